/**
 * A `.dockerignore` read as BuildKit reads it, so the host replay copies from the context a real build would
 * send: patterns are context-relative paths with `*` (within one path segment), `?`, `**` (any number of
 * segments) and a leading `!` to re-include; the last pattern that matches a path or one of its parent
 * directories decides. Character classes and escapes are rejected by name rather than half-supported.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Whether the build context sends a context-relative path (POSIX separators) to the builder. */
export type ContextFilter = (relativePath: string) => boolean;

interface IgnorePattern {
  readonly regex: RegExp;
  readonly include: boolean;
}

/**
 * The filter of a build: BuildKit's Dockerfile-specific `<Dockerfile>.dockerignore` when it exists, else
 * the context's `.dockerignore`, else everything is sent. Also returns which file it used.
 *
 * @example
 * ```ts
 * const { sends } = await contextFilter('pkg/infra/docker/Dockerfile', 'pkg');
 * sends('dist/cli/main.js'); // => true
 * sends('node_modules/zod/package.json'); // => false
 * ```
 */
export async function contextFilter(
  dockerfile: string,
  context: string,
): Promise<{ sends: ContextFilter; ignoreFile: string | undefined }> {
  const candidates = [`${dockerfile}.dockerignore`, path.join(context, '.dockerignore')];
  const ignoreFile = candidates.find((file) => existsSync(file));
  if (ignoreFile === undefined) return { sends: () => true, ignoreFile };
  return { sends: parseDockerignore(await readFile(ignoreFile, 'utf8'), ignoreFile), ignoreFile };
}

/**
 * Parses `.dockerignore` text into a filter. Throws, naming the line, on syntax the replay does not model.
 *
 * @example
 * ```ts
 * const sends = parseDockerignore('*\n!package.json\n', '.dockerignore');
 * sends('package.json'); // => true
 * ```
 */
export function parseDockerignore(text: string, source: string): ContextFilter {
  const patterns: IgnorePattern[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const include = line.startsWith('!');
    const pattern = path.posix.normalize((include ? line.slice(1) : line).trim()).replace(/^\/+|\/+$/g, '');
    if (/[[\]\\]/.test(pattern))
      throw new Error(`${source}:${index + 1}: "${line}" uses classes or escapes the replay does not model`);
    patterns.push({ regex: patternRegex(pattern), include });
  });
  return (relativePath) => {
    const segments = path.posix.normalize(relativePath).split('/');
    // The path and each of its parents, as BuildKit's MatchesOrParentMatches checks them.
    const candidates = segments.map((_, index) => segments.slice(0, index + 1).join('/'));
    let sent = true;
    for (const { regex, include } of patterns) {
      if (candidates.some((candidate) => regex.test(candidate))) sent = include;
    }
    return sent;
  };
}

function patternRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` (or a trailing `**`) spans any number of whole segments, none included.
      const slash = pattern[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
