/**
 * A peer consumer of the drain race besides Apache's Java push consumer: another Node client a user
 * could pick (ali-ons, Apache's rocketmq-client-nodejs through the 5.x proxy). main.ts runs each one
 * like our children: a child process per run, a fresh group, the whole topic from the first offset,
 * exiting once it saw every message and printing one `BENCH_RESULT {json}` line (child-run.ts) with the
 * same fields as consumer-child.ts. A peer that cannot run here throws from prepare() with the reason,
 * and the results carry that error instead of figures.
 */

/** What one run of a peer child consumes. */
export interface PeerRunSpec {
  readonly topic: string;
  readonly group: string;
  readonly expected: number;
  readonly timeoutMs: number;
  /** After its result, how long the child waits for its client's shutdown. Undefined: 10 s. */
  readonly closeWaitMs?: number;
}

/** A peer ready to run (its packages installed, its proxy up, ...). */
export interface PreparedDrainPeer {
  /** The executable (`process.execPath` for a node child). */
  readonly command: string;
  /** The child's arguments for one run. */
  args(spec: PeerRunSpec): string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Releases what prepare() started (a proxy, ...). */
  stop(): Promise<void>;
}

/** A registered peer. */
export interface DrainPeer {
  /** Consumer id in the results (`ali-ons`, `rocketmq-client-nodejs`). */
  readonly id: string;
  /** What runs, for a reader. */
  readonly label: string;
  /** The peer's package version (pinned). */
  readonly version: string;
  /**
   * A peer too slow to drain the whole backlog within the run timeout drains only its first
   * `maxMessages` (its rate is still comparable; the label says so). Undefined: the whole backlog.
   */
  readonly maxMessages?: number;
  /** The same for `--quick`, whose runs only show that the peer runs: a slow peer's run stays short. */
  readonly quickMaxMessages?: number;
  /** Gets it ready against the run's broker; throws with the reason when it cannot run here. */
  prepare(context: { namesrvAddr: string; log(line: string): void }): Promise<PreparedDrainPeer>;
}
