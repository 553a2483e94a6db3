/**
 * The functions with the most self time in a V8 CPU profile (`node --cpu-prof` writes one `.cpuprofile`
 * per process): what the http-invoke scenario and `--profile`'s drain runs (drain-profile.ts) list next
 * to their profiles, all under bench/results/profiles/.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the bench's CPU profiles go (`*.cpuprofile` and `*-quick.*` there are git-ignored).
 *
 * @example
 * ```ts
 * const file = join(PROFILES_DIR, 'drain-ours.cpuprofile');
 * ```
 */
export const PROFILES_DIR = fileURLToPath(new URL('./results/profiles/', import.meta.url));

/** The parts of a `.cpuprofile` read here (Chrome DevTools' Profile). */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * One function's self time.
 *
 * @example
 * ```ts
 * const [top]: SelfTime[] = await topSelfTime(file, 10);
 * ```
 */
export interface SelfTime {
  /** `name (file:line)`; file relative to the repo or node_modules where it can be. */
  readonly frame: string;
  readonly selfMs: number;
  /** Of all samples' time, idle included. */
  readonly percent: number;
}

/**
 * The `count` frames with the most self time in the profile at `file` (samples attributed to a frame
 * by name, file and line, whatever the call path).
 *
 * @example
 * ```ts
 * for (const { frame, selfMs, percent } of await topSelfTime('run.cpuprofile', 15)) console.log(frame, selfMs, percent);
 * ```
 */
export async function topSelfTime(file: string, count: number): Promise<SelfTime[]> {
  return ranked(await readProfile(file), frameName).slice(0, count);
}

/**
 * Self time by where the code lives: a package under node_modules (`@smithy/core`, `@aws-sdk/...`),
 * `src` (ours), `node:` (Node's own JavaScript), or a pseudo frame (`(garbage collector)`, `(idle)`,
 * `(program)`) or native function (no file) by its name. What the SDK costs is the `@smithy/` and
 * `@aws-sdk/` lines (plus the hashing and HTTP work they ask of Node, which shows as `node:` and native).
 *
 * @example
 * ```ts
 * const areas = await selfTimeByArea('run.cpuprofile'); // [{ frame: 'src', selfMs: 812, percent: 31 }, ...]
 * ```
 */
export async function selfTimeByArea(file: string): Promise<SelfTime[]> {
  return ranked(await readProfile(file), areaName);
}

/**
 * The node flags that make a child write its profile as `<PROFILES_DIR>/<name>.cpuprofile` when it exits
 * (creates the directory).
 *
 * @example
 * ```ts
 * spawn(process.execPath, [...(await cpuProfileFlags('drain-ours')), script, spec]);
 * ```
 */
export async function cpuProfileFlags(name: string): Promise<string[]> {
  await mkdir(PROFILES_DIR, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${PROFILES_DIR}`, `--cpu-prof-name=${name}.cpuprofile`];
}

/**
 * What {@link writeProfileTop} found in one profile.
 *
 * @example
 * ```ts
 * const { profile, text }: ProfileTop = await writeProfileTop('drain-ours', 15);
 * ```
 */
export interface ProfileTop {
  /** The `.cpuprofile` read. */
  readonly profile: string;
  /** The `.top.txt` written beside it. */
  readonly topFile: string;
  /** Its text: the top frames, then the self time by area. */
  readonly text: string;
  readonly top: SelfTime[];
  readonly areas: SelfTime[];
}

/**
 * Reads `<PROFILES_DIR>/<name>.cpuprofile` and writes `<name>.top.txt` beside it: the `count` frames
 * with the most self time, then the self time by area ({@link selfTimeByArea}), `count` lines each.
 *
 * @example
 * ```ts
 * const { text } = await writeProfileTop('http-invoke-batch-100', 15);
 * console.error(text);
 * ```
 */
export async function writeProfileTop(name: string, count: number): Promise<ProfileTop> {
  const profile = join(PROFILES_DIR, `${name}.cpuprofile`);
  const topFile = join(PROFILES_DIR, `${name}.top.txt`);
  const parsed = await readProfile(profile);
  const top = ranked(parsed, frameName).slice(0, count);
  const areas = ranked(parsed, areaName);
  const format = (entries: readonly SelfTime[]): string[] =>
    entries.map(
      (entry) =>
        `${entry.percent.toFixed(1).padStart(5)} %  ${entry.selfMs.toFixed(1).padStart(8)} ms  ${entry.frame}`,
    );
  const text = [
    `Top ${count} frames by self time:`,
    ...format(top),
    '',
    'Self time by area (package, src, node: internals, native or pseudo frame):',
    ...format(areas.slice(0, count)),
  ].join('\n');
  await writeFile(topFile, `${text}\n`, 'utf8');
  return { profile, topFile, text, top, areas };
}

type CallFrame = CpuProfile['nodes'][number]['callFrame'];

async function readProfile(file: string): Promise<CpuProfile> {
  return JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
}

function ranked(profile: CpuProfile, keyOf: (frame: CallFrame) => string): SelfTime[] {
  const keyOfNode = new Map<number, string>();
  for (const node of profile.nodes) keyOfNode.set(node.id, keyOf(node.callFrame));
  const selfUs = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const key = keyOfNode.get(id) ?? `node ${id}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
    totalUs += delta;
  });
  return [...selfUs]
    .sort((a, b) => b[1] - a[1])
    .map(([frame, us]) => ({
      frame,
      selfMs: Math.round(us / 100) / 10,
      percent: totalUs === 0 ? 0 : Math.round((us / totalUs) * 1000) / 10,
    }));
}

function frameName({ functionName, url, lineNumber }: CallFrame): string {
  const where = url === '' ? '' : ` (${shortUrl(url)}:${lineNumber + 1})`;
  return `${functionName === '' ? '(anonymous)' : functionName}${where}`;
}

function areaName({ functionName, url }: CallFrame): string {
  if (url === '') return functionName === '' ? '(anonymous native)' : functionName;
  if (url.startsWith('node:')) return 'node:';
  const path = shortUrl(url);
  if (path.startsWith('src/') || path.startsWith('bench/')) return path.slice(0, path.indexOf('/'));
  const parts = path.split('/');
  return path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? path);
}

/** `file:///.../node_modules/@aws-sdk/x/dist/y.js` -> `@aws-sdk/x/dist/y.js`; our compiled sources -> `src/...`. */
function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const cache = /\/node_modules\/\.cache\/[^/]+\/(.*)$/.exec(path);
  if (cache?.[1] !== undefined) return cache[1];
  const dependency = /.*\/node_modules\/(.*)$/.exec(path);
  return dependency?.[1] ?? path;
}
