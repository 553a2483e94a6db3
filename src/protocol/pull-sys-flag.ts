/**
 * PullSysFlag bits of a PULL_MESSAGE request's `sysFlag` header (`PullSysFlag.java`).
 */
export const PullSysFlag = {
  /** The broker stores `commitOffset` as the group's consumer offset. */
  COMMIT_OFFSET: 1,
  /** The broker may hold the request (long polling) until a message arrives. */
  SUSPEND: 2,
  /** The broker filters with the request's `subscription`/`expressionType`, not the heartbeat's. */
  SUBSCRIPTION: 4,
  /** Legacy filter-server class filter. */
  CLASS_FILTER: 8,
  /** Lite pull: sent as LITE_PULL_MESSAGE (361). */
  LITE_PULL: 16,
} as const;
export type PullSysFlag = (typeof PullSysFlag)[keyof typeof PullSysFlag];

/**
 * Builds a pull `sysFlag` from named switches.
 */
export function buildPullSysFlag(options: {
  commitOffset?: boolean;
  suspend?: boolean;
  subscription?: boolean;
  classFilter?: boolean;
  litePull?: boolean;
}): number {
  let flag = 0;
  if (options.commitOffset) flag |= PullSysFlag.COMMIT_OFFSET;
  if (options.suspend) flag |= PullSysFlag.SUSPEND;
  if (options.subscription) flag |= PullSysFlag.SUBSCRIPTION;
  if (options.classFilter) flag |= PullSysFlag.CLASS_FILTER;
  if (options.litePull) flag |= PullSysFlag.LITE_PULL;
  return flag;
}
