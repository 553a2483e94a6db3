/**
 * The peak resident memory of this process while the main thread runs something synchronous (a decode),
 * which leaves no turn of the event loop to sample it in: a worker thread reads the process's RSS
 * (`process.memoryUsage.rss()`, the whole process's) about every millisecond between {@link
 * RssPeakSampler.begin} and {@link RssPeakSampler.end}. The two threads meet through shared memory only,
 * so the main thread never yields. The worker is plain JavaScript (`eval`): no TypeScript loader in it.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** Slots of the shared control array. */
const STATE = 0;
const REQUESTS = 1;
const DONE = 2;
const IDLE = 0;
const SAMPLING = 1;
const EXIT = 2;
/** A sampler that has not answered by then has died (it answers within a millisecond). */
const ANSWER_TIMEOUT_MS = 10_000;

/** Waits for a request (a new REQUESTS count), samples while STATE is SAMPLING, then answers in DONE. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const control = new Int32Array(workerData.control);
const peak = new Float64Array(workerData.peak);
const tick = new Int32Array(new SharedArrayBuffer(4));
let seen = 0;
for (;;) {
  Atomics.wait(control, ${REQUESTS}, seen);
  seen = Atomics.load(control, ${REQUESTS});
  if (Atomics.load(control, ${STATE}) === ${EXIT}) break;
  let max = process.memoryUsage.rss();
  while (Atomics.load(control, ${STATE}) === ${SAMPLING}) {
    Atomics.wait(tick, 0, 0, 1);
    const rss = process.memoryUsage.rss();
    if (rss > max) max = rss;
  }
  peak[0] = max;
  Atomics.store(control, ${DONE}, seen);
  Atomics.notify(control, ${DONE});
}
`;

/**
 * One sampling worker, used for one measurement at a time.
 *
 * @example
 * ```ts
 * const sampler = await RssPeakSampler.start();
 * sampler.begin();
 * const result = decodeMessages(body);
 * const peakRss = sampler.end();
 * await sampler.close();
 * ```
 */
export class RssPeakSampler {
  private readonly control = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  private readonly peak = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;

  private constructor() {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control: this.control.buffer, peak: this.peak.buffer },
    });
  }

  /** A sampler whose worker is running. */
  static async start(): Promise<RssPeakSampler> {
    const sampler = new RssPeakSampler();
    await once(sampler.worker, 'online');
    return sampler;
  }

  /** Starts sampling (the worker wakes within microseconds). */
  begin(): void {
    Atomics.store(this.control, STATE, SAMPLING);
    Atomics.add(this.control, REQUESTS, 1);
    Atomics.notify(this.control, REQUESTS);
  }

  /**
   * Stops sampling; the largest RSS seen since {@link begin}, this thread's reading now included.
   *
   * @throws Error when the worker does not answer within 10 s (it died).
   */
  end(): number {
    const now = process.memoryUsage.rss();
    Atomics.store(this.control, STATE, IDLE);
    const request = Atomics.load(this.control, REQUESTS);
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (
      let done = Atomics.load(this.control, DONE);
      done !== request;
      done = Atomics.load(this.control, DONE)
    ) {
      if (Date.now() > deadline)
        throw new Error(`the RSS sampler did not answer within ${ANSWER_TIMEOUT_MS} ms`);
      Atomics.wait(this.control, DONE, done, 100);
    }
    return Math.max(now, this.peak[0] ?? 0);
  }

  async close(): Promise<void> {
    Atomics.store(this.control, STATE, EXIT);
    Atomics.add(this.control, REQUESTS, 1);
    Atomics.notify(this.control, REQUESTS);
    await once(this.worker, 'exit');
  }
}
