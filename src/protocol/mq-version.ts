/**
 * RocketMQ version codes: the ordinals of Java's `MQVersion.Version` enum, the number a remoting frame
 * carries in its `version` field. A broker or name server sets its own code as the version of every
 * command it creates, responses included (its startup sets the `rocketmq.remoting.version` system
 * property that `RemotingCommand` reads), so a response tells which release answered; 0 when the
 * server does not set it.
 */
export const MQVersionCode = {
  V4_9_4: 401,
  V4_9_7: 407,
  V5_0_0: 413,
  V5_3_3: 479,
  V5_5_1: 515,
} as const;

/**
 * True when `versionCode` names a release before 5.0.0. False for 0 (unknown: the server did not say),
 * so callers keep their 5.x behaviour when the version cannot be told.
 */
export function isVersionCodeBefore5(versionCode: number): boolean {
  return versionCode > 0 && versionCode < MQVersionCode.V5_0_0;
}
