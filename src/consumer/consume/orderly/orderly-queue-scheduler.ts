/**
 * Scheduling of orderly queue tasks (the thread pool and scheduled executor of Java's
 * `ConsumeMessageOrderlyService`): at most one task per queue, at most `maxConcurrency` tasks running,
 * waiting tasks served first come first served, and every task ending with a decision: idle, run again
 * later (suspend, yield) or try to lock later.
 */
import type { Logger } from '../../../util/logger.js';
import type { ProcessQueue } from '../../pull/process-queue.js';

/** A locked queue is resubmitted this soon (Java). */
export const RESUBMIT_DELAY_MS = 10;
/** After a failed lock attempt the queue task runs again after this long (Java). */
export const LOCK_FAILED_RETRY_DELAY_MS = 3000;

/** How a queue task run ended. */
export type QueueRunOutcome =
  | { readonly kind: 'idle' }
  | { readonly kind: 'later'; readonly delayMs: number }
  | { readonly kind: 'lock'; readonly delayMs: number };

/** Options of {@link OrderlyQueueScheduler}. */
export interface OrderlyQueueSchedulerOptions {
  maxConcurrency: number;
  /** Consumes a queue; resolves with what to do next. */
  run: (processQueue: ProcessQueue) => Promise<QueueRunOutcome>;
  /** Tries to lock a queue (after a `lock` outcome). */
  lock: (processQueue: ProcessQueue) => Promise<boolean>;
  /** False once the service stops or halts: nothing new is started then. */
  accepting: () => boolean;
  log: Logger;
}

interface Task {
  readonly pq: ProcessQueue;
  timer: NodeJS.Timeout | undefined;
  running: Promise<void> | undefined;
}

/**
 * Runs queue tasks, one per queue, with bounded concurrency.
 */
export class OrderlyQueueScheduler {
  private readonly o: OrderlyQueueSchedulerOptions;
  private readonly tasks = new Map<ProcessQueue, Task>();
  private readonly waiting: Task[] = [];
  private runningCount = 0;

  constructor(options: OrderlyQueueSchedulerOptions) {
    this.o = options;
  }

  /** Gives the queue a task after `delayMs` unless it has one already (scheduled or running). */
  schedule(processQueue: ProcessQueue, delayMs = 0): void {
    if (!this.usable(processQueue) || this.tasks.has(processQueue)) return;
    const task: Task = { pq: processQueue, timer: undefined, running: undefined };
    this.tasks.set(processQueue, task);
    this.defer(task, delayMs);
  }

  /** The queue's running task, if one runs now. */
  running(processQueue: ProcessQueue): Promise<void> | undefined {
    return this.tasks.get(processQueue)?.running;
  }

  /** Every task running now. */
  runningTasks(): Promise<void>[] {
    return [...this.tasks.values()].flatMap((task) => (task.running === undefined ? [] : [task.running]));
  }

  /** Forgets a (dropped) queue's scheduled task; a running one ends by itself. */
  cancel(processQueue: ProcessQueue): void {
    const task = this.tasks.get(processQueue);
    if (task !== undefined && task.running === undefined) this.forget(task);
  }

  /** Cancels every scheduled task (running ones end by themselves). */
  cancelAll(): void {
    this.waiting.length = 0;
    for (const task of this.tasks.values()) {
      if (task.timer !== undefined) clearTimeout(task.timer);
      task.timer = undefined;
    }
  }

  private usable(pq: ProcessQueue): boolean {
    return this.o.accepting() && !pq.dropped;
  }

  private defer(task: Task, delayMs: number, action: () => void = () => this.enqueue(task)): void {
    if (!this.usable(task.pq)) {
      this.forget(task);
      return;
    }
    if (delayMs <= 0) {
      action();
      return;
    }
    task.timer = setTimeout(() => {
      task.timer = undefined;
      action();
    }, delayMs);
  }

  private enqueue(task: Task): void {
    if (!this.usable(task.pq)) {
      this.forget(task);
      return;
    }
    this.waiting.push(task);
    this.pump();
  }

  private forget(task: Task): void {
    if (task.timer !== undefined) clearTimeout(task.timer);
    task.timer = undefined;
    if (this.tasks.get(task.pq) === task) this.tasks.delete(task.pq);
  }

  /** Starts waiting tasks while fewer than `maxConcurrency` run. */
  private pump(): void {
    while (this.runningCount < this.o.maxConcurrency && this.o.accepting()) {
      const task = this.waiting.shift();
      if (task === undefined) return;
      this.runningCount++;
      let next: QueueRunOutcome = { kind: 'idle' };
      task.running = this.o
        .run(task.pq)
        .then((outcome) => {
          next = outcome;
        })
        .catch((error: unknown) =>
          this.o.log.error({ err: error, queue: task.pq.messageQueue }, 'orderly task failed'),
        )
        .finally(() => {
          this.runningCount--;
          task.running = undefined;
          this.afterRun(task, next);
          this.pump();
        });
    }
  }

  private afterRun(task: Task, next: QueueRunOutcome): void {
    switch (next.kind) {
      case 'later':
        this.defer(task, next.delayMs);
        return;
      case 'lock':
        this.defer(task, next.delayMs, () => this.lockAndResubmit(task));
        return;
      case 'idle':
        // Messages put while this run was ending found the task still present: run again for them.
        if (task.pq.firstOffset() !== undefined) this.defer(task, 0);
        else this.forget(task);
        return;
    }
  }

  private lockAndResubmit(task: Task): void {
    if (!this.usable(task.pq)) {
      this.forget(task);
      return;
    }
    this.o
      .lock(task.pq)
      .then((locked) => this.defer(task, locked ? RESUBMIT_DELAY_MS : LOCK_FAILED_RETRY_DELAY_MS))
      .catch((error: unknown) => {
        this.o.log.error({ err: error, queue: task.pq.messageQueue }, 'orderly lock retry failed');
        this.defer(task, LOCK_FAILED_RETRY_DELAY_MS);
      });
  }
}
