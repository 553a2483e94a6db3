/**
 * The PULL_MESSAGE header of a read that changes nothing: no SUSPEND bit (the broker answers at once),
 * no COMMIT_OFFSET bit (no group's offset moves), and the SUBSCRIPTION bit with `*`, so the broker
 * filters by this request and not by a heartbeat that was never sent.
 */
import type { PullMessageRequestHeader } from '../protocol/headers.js';
import { buildPullSysFlag } from '../protocol/pull-sys-flag.js';

/**
 * Where a read-only pull reads.
 */
export interface ReadOnlyPullTarget {
  /** The group the broker sees pulling; nothing of its offsets changes. */
  consumerGroup: string;
  topic: string;
  queueId: number;
  /** The queue's broker group name. */
  bname?: string | undefined;
  queueOffset: number;
  maxMsgNums: number;
}

/**
 * Builds the header of a pull that reads `maxMsgNums` messages from `queueOffset` and commits nothing.
 */
export function readOnlyPullHeader(target: ReadOnlyPullTarget): PullMessageRequestHeader {
  return {
    ...target,
    sysFlag: buildPullSysFlag({ subscription: true }),
    commitOffset: 0,
    suspendTimeoutMillis: 0,
    subscription: '*',
    expressionType: 'TAG',
    subVersion: 0,
  };
}
