/**
 * Watches handler files for `rocketmq-lambda dev`: one `fs.watch` per directory (robust to editors that
 * save by rename), debounced, calling back with the absolute path of a changed file.
 */
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../util/logger.js';

/** How long to wait for a burst of events on one file to settle. */
const DEBOUNCE_MS = 100;

/**
 * A running watcher.
 *
 * @example
 * ```ts
 * const watcher = watchHandlerFiles(['/app/src/orders.ts'], (file) => invoker.reload(file), log);
 * watcher.close();
 * ```
 */
export interface HandlerWatcher {
  close(): void;
}

/**
 * Calls `onChange(file)` when one of `files` (absolute) is written, created or replaced.
 *
 * @example
 * ```ts
 * const watcher = watchHandlerFiles(files, (file) => log.info({ file }, 'changed'), log);
 * ```
 */
export function watchHandlerFiles(
  files: readonly string[],
  onChange: (file: string) => void,
  log: Logger,
): HandlerWatcher {
  const byDir = new Map<string, Set<string>>();
  for (const file of files) {
    const absolute = path.resolve(file);
    const dir = path.dirname(absolute);
    const names = byDir.get(dir) ?? new Set<string>();
    names.add(path.basename(absolute));
    byDir.set(dir, names);
  }
  const timers = new Map<string, NodeJS.Timeout>();
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, filename) => {
        if (filename === null || !names.has(filename.toString())) return;
        const file = path.join(dir, filename.toString());
        clearTimeout(timers.get(file));
        timers.set(
          file,
          setTimeout(() => {
            timers.delete(file);
            onChange(file);
          }, DEBOUNCE_MS),
        );
      });
      watcher.on('error', (error) => log.warn({ dir, err: error }, 'watching handler files failed'));
      watchers.push(watcher);
    } catch (error) {
      log.warn({ dir, err: error }, 'cannot watch handler files: edits will not reload');
    }
  }
  return {
    close() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const watcher of watchers) watcher.close();
    },
  };
}
