/** Types of demo-bundle.mjs (plain JavaScript, run before any TypeScript loader): see it for the why. */

/** One file the bundle was built from (or with), as it was then. */
export interface BundleInput {
  /** Its path relative to the bundle's root. */
  readonly file: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** What to bundle and where. */
export interface BundleSpec {
  /** The directory input paths are relative to (the repository). */
  readonly root: string;
  /** The entry module, absolute. */
  readonly entry: string;
  /** The cache directory, absolute. */
  readonly dir: string;
}

export declare const MAX_MANIFEST_BYTES: number;
export declare const MAX_INPUTS: number;
export declare const BUNDLED_FRAGMENT: string;
export declare function bundlePaths(dir: string): { manifest: string; builds: string };
export declare function staleReason(spec: BundleSpec): Promise<string | undefined>;
export declare function buildBundle(spec: BundleSpec): Promise<{ id: string; buildMs: number }>;
export declare function cachedBundle(
  spec: BundleSpec,
): Promise<{ url: string; state: 'reused' | 'built'; buildMs?: number; reason?: string }>;
