/**
 * Watches the sources of a service for `rocketmq-lambda dev`: every directory under the given roots (one
 * non-recursive `fs.watch` each, robust to editors that save by rename), skipping dependency, VCS and
 * output directories, so that editing any module a handler imports reloads the handlers. Node's own
 * `recursive: true` is not used: on Linux it walks into `node_modules` with no way to skip it.
 * Directories created later are watched as they appear. Changes are debounced into one callback per burst.
 */
import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import path from 'node:path';
import { DEV_STATE_DIR } from '../serverless-service/dev-state-file.js';
import type { Logger } from '../util/logger.js';

/** How long a burst of events must stay quiet before the callback runs. */
const DEFAULT_DEBOUNCE_MS = 100;
/** Most directories watched: past this the rest is skipped (with a warning). */
const MAX_WATCHED_DIRS = 5000;

/**
 * Directory names never watched (nor anything under them).
 */
export const IGNORED_DIR_NAMES: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  DEV_STATE_DIR,
  'dist',
  '.serverless',
  'coverage',
]);

/**
 * File extensions whose changes count (modules and the JSON they may import).
 */
export const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.ts',
  '.mts',
  '.cts',
  '.js',
  '.mjs',
  '.cjs',
  '.json',
]);

/**
 * Options of {@link watchHandlerSources}.
 */
export interface HandlerWatcherOptions {
  /** Directories watched with everything under them (absolute, or relative to the working directory). */
  readonly roots: readonly string[];
  /** Paths (files or directories) whose changes are ignored, e.g. the state directory. */
  readonly ignorePaths?: readonly string[] | undefined;
  /** Called with the changed source files (absolute, sorted) once a burst of events has settled. */
  readonly onChange: (files: readonly string[]) => void;
  readonly log: Logger;
  /** @default 100 */
  readonly debounceMs?: number | undefined;
}

/**
 * A running watcher.
 */
export interface HandlerWatcher {
  /** How many directories are being watched. */
  readonly watchedDirs: number;
  close(): void;
}

/**
 * Whether a change to `file` can matter to a handler: its extension is in {@link SOURCE_EXTENSIONS}.
 */
export function isSourceFile(file: string): boolean {
  return SOURCE_EXTENSIONS.has(path.extname(file));
}

/**
 * Calls `onChange(files)` when source files under `roots` are written, created, deleted or replaced.
 */
export function watchHandlerSources(options: HandlerWatcherOptions): HandlerWatcher {
  const { log, onChange } = options;
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const ignored = (options.ignorePaths ?? []).map((p) => path.resolve(p));
  const isIgnored = (target: string): boolean =>
    ignored.some((p) => target === p || target.startsWith(`${p}${path.sep}`));
  const watchers = new Map<string, FSWatcher>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let capWarned = false;

  const flush = (): void => {
    timer = undefined;
    const files = [...pending].sort();
    pending.clear();
    if (files.length > 0 && !closed) onChange(files);
  };
  const schedule = (file: string): void => {
    pending.add(file);
    clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };
  const unwatchTree = (dir: string): void => {
    for (const [watched, watcher] of watchers) {
      if (watched === dir || watched.startsWith(`${dir}${path.sep}`)) {
        watcher.close();
        watchers.delete(watched);
      }
    }
  };
  const onEvent = (dir: string, name: string): void => {
    if (closed) return;
    const target = path.join(dir, name);
    if (IGNORED_DIR_NAMES.has(name) || isIgnored(target)) return;
    let isDirectory = false;
    try {
      isDirectory = statSync(target).isDirectory();
    } catch {
      // Gone (deleted or renamed away): a watched directory stops being watched; a file counts as changed.
      if (watchers.has(target)) unwatchTree(target);
    }
    if (isDirectory) {
      if (!watchers.has(target)) watchTree(target);
      return;
    }
    if (isSourceFile(target)) schedule(target);
  };
  const watchDir = (dir: string): boolean => {
    if (watchers.size >= MAX_WATCHED_DIRS) {
      if (!capWarned) {
        capWarned = true;
        log.warn(
          { dir, maxDirs: MAX_WATCHED_DIRS },
          'too many directories to watch: edits past them do not reload',
        );
      }
      return false;
    }
    try {
      const watcher = watch(dir, { persistent: false }, (_event, filename) => {
        if (filename !== null) onEvent(dir, filename.toString());
      });
      watcher.on('error', (error) => {
        log.warn({ dir, err: error }, 'watching a source directory failed: edits in it do not reload');
        watcher.close();
        if (watchers.get(dir) === watcher) watchers.delete(dir);
      });
      watchers.set(dir, watcher);
      return true;
    } catch (error) {
      log.warn({ dir, err: error }, 'cannot watch a source directory: edits in it do not reload');
      return false;
    }
  };
  function watchTree(root: string): void {
    const stack = [root];
    for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
      if (watchers.has(dir) || isIgnored(dir) || !watchDir(dir)) continue;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        log.warn({ dir, err: error }, 'cannot list a source directory: edits under it do not reload');
        continue;
      }
      for (const entry of entries) {
        // Symbolic links are not followed (no loops, no watching outside the roots).
        if (entry.isDirectory() && !IGNORED_DIR_NAMES.has(entry.name)) stack.push(path.join(dir, entry.name));
      }
    }
  }

  for (const root of options.roots) watchTree(path.resolve(root));
  return {
    get watchedDirs() {
      return watchers.size;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      pending.clear();
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
