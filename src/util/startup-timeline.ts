/**
 * The start-up timeline of a process (`rocketmq-lambda dev --timings`, `npm run demo -- --timings`): named
 * phases, each marked once, in milliseconds since the process started (`performance.now()`, so node's own
 * start and the module imports before the first mark are part of the first phase). Any layer may mark a
 * phase; only the first mark of each name counts, and at most {@link MAX_PHASES} are kept, so a phase
 * marked from a loop (a consumer's first pull) costs nothing after the first time.
 */

/** Phases kept per process; later marks are dropped. */
export const MAX_PHASES = 64;

/**
 * One phase: its name and when it ended.
 */
export interface StartupPhase {
  readonly name: string;
  /** Milliseconds since the process started. */
  readonly atMs: number;
}

const phases: StartupPhase[] = [];
const marked = new Set<string>();
const listeners = new Set<(phase: StartupPhase) => void>();

/**
 * Marks that the phase `name` ended now; a name already marked (or one past {@link MAX_PHASES}) is
 * ignored. Tells every listener of {@link onStartupPhase}.
 */
export function markStartupPhase(name: string): void {
  if (marked.has(name) || phases.length >= MAX_PHASES) return;
  marked.add(name);
  const phase = { name, atMs: Math.round(performance.now()) };
  phases.push(phase);
  for (const listener of listeners) listener(phase);
}

/** The phases marked so far, in the order they were marked. */
export function startupPhases(): readonly StartupPhase[] {
  return [...phases];
}

/** Calls `listener` with each phase marked from now on; returns the unsubscribe function. */
export function onStartupPhase(listener: (phase: StartupPhase) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * The timeline as text, one phase a line: when it ended (ms since the process started), how long after
 * the phase before it, its name.
 */
export function formatStartupTimeline(list: readonly StartupPhase[] = phases): string {
  const width = String(list.at(-1)?.atMs ?? 0).length;
  let previous = 0;
  const lines = list.map((phase) => {
    const line = `  ${String(phase.atMs).padStart(width)}  +${String(phase.atMs - previous).padEnd(width)}  ${phase.name}`;
    previous = phase.atMs;
    return line;
  });
  return ['start-up timeline (ms since the process started, + since the phase before):', ...lines].join('\n');
}
