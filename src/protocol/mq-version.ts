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

/**
 * The releases of the 3.x line before 3.0.1, in the order the enum lists them (its first 16 ordinals).
 */
const V3_0_0_LABELS = [
  'SNAPSHOT',
  'ALPHA1',
  ...[1, 2, 3, 4, 5].map((n) => `BETA${n}`),
  ...[6, 7, 8, 9].flatMap((n) => [`BETA${n}_SNAPSHOT`, `BETA${n}`]),
  'FINAL',
].map((label) => `V3_0_0_${label}`);

/**
 * Every `major.minor.patch` release after 3.0.0, in enum order; each takes two ordinals (its SNAPSHOT,
 * then the release). 3.0.x runs to 3.0.15; 3.1 and 3.2 have patches 0-9; 3.3 to 3.9 patches 1-9; 4.x
 * and 5.x every minor and patch 0-9.
 */
function releases(): string[] {
  const out: string[] = [];
  for (let patch = 1; patch <= 15; patch++) out.push(`3_0_${patch}`);
  for (let minor = 1; minor <= 9; minor++) {
    for (let patch = minor <= 2 ? 0 : 1; patch <= 9; patch++) out.push(`3_${minor}_${patch}`);
  }
  for (const major of [4, 5])
    for (let minor = 0; minor <= 9; minor++)
      for (let patch = 0; patch <= 9; patch++) out.push(`${major}_${minor}_${patch}`);
  return out;
}

/** `MQVersion.Version` names by ordinal, the last one (HIGHER_VERSION) included. */
const VERSION_NAMES: readonly string[] = [
  ...V3_0_0_LABELS,
  ...releases().flatMap((release) => [`V${release}_SNAPSHOT`, `V${release}`]),
  'HIGHER_VERSION',
];

/**
 * The `MQVersion.Version` name of a version code, as `mqadmin consumerConnection` prints a client's
 * version: `401` → `V4_9_4`, `413` → `V5_0_0`. A code past the enum's end is `HIGHER_VERSION` (Java's
 * answer too); a negative or fractional one, which no client sends, is the number itself.
 */
export function mqVersionName(versionCode: number): string {
  if (!Number.isSafeInteger(versionCode) || versionCode < 0) return String(versionCode);
  return VERSION_NAMES[Math.min(versionCode, VERSION_NAMES.length - 1)] as string;
}
