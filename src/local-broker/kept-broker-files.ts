/**
 * The files of a kept local broker (kept-broker.ts), all in one directory (the demo's is
 * `.rocketmq-lambda/demo/kept-broker`):
 *
 * - `state.json`: written by the host process (kept-broker-host.ts) once its broker is ready, removed when
 *   it stops: the host's pid and the broker's addresses.
 * - `lease.json`: until when the broker is wanted (epoch ms) and which process holds it now, if any. The
 *   session using the broker renews it every few seconds; on leaving it sets `until` to now + the idle
 *   time and no holder. The host stops its broker once `until` has passed, or when the file is gone.
 * - `host.log`: the host's output (its JSON log lines, the JVMs' failures).
 * - `broker-logs/`: namesrv.log and broker.log.
 *
 * Both JSON files are read with a size bound and a closed schema; a file that is too large or does not
 * match reads as absent (the broker is then started afresh), and the problem is returned for the log.
 */
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** The kept broker's directory inside a dev session's state directory (`.rocketmq-lambda/demo/kept-broker`). */
export const KEPT_BROKER_DIR = 'kept-broker';

/** Names of the files in a kept broker's directory. */
export const KEPT_BROKER_FILES = {
  state: 'state.json',
  lease: 'lease.json',
  hostLog: 'host.log',
  brokerLogs: 'broker-logs',
} as const;

/** Larger state or lease files are not read (both are a few hundred bytes). */
export const KEPT_BROKER_FILE_MAX_BYTES = 4096;

const address = z.string().regex(/^[^\s:;]+:\d{1,5}$/, 'must be host:port');

/** `state.json`: the running host and its broker. Closed: another version's file reads as absent. */
export const keptBrokerStateSchema = z.strictObject({
  version: z.literal(1),
  hostPid: z.number().int().positive(),
  namesrvAddr: address,
  brokerAddr: address,
  brokerName: z.string().min(1).max(127),
  clusterName: z.string().min(1).max(127),
  /** The RocketMQ version of its JVMs (broker-version.ts): another one is not reused. */
  rocketmqVersion: z.string().min(1).max(64),
  startedAt: z.iso.datetime({ offset: true }),
});

/** A kept broker's `state.json`. */
export type KeptBrokerState = z.infer<typeof keptBrokerStateSchema>;

/** `lease.json`: until when the broker is wanted, and by whom now. */
export const keptBrokerLeaseSchema = z.strictObject({
  version: z.literal(1),
  /** Epoch milliseconds; the host stops its broker after it. */
  until: z.number().int().nonnegative(),
  /** The pid of the session using the broker now; absent between sessions. */
  holder: z.number().int().positive().optional(),
});

/** A kept broker's `lease.json`. */
export type KeptBrokerLease = z.infer<typeof keptBrokerLeaseSchema>;

/** What reading one of the files gave: its value, or why there is none (`missing` when it does not exist). */
export type KeptBrokerFileRead<T> =
  | { value: T; problem?: undefined }
  | { value: undefined; problem: string | undefined };

/** The path of `name` in the kept broker directory `dir`. */
export function keptBrokerPath(dir: string, name: keyof typeof KEPT_BROKER_FILES): string {
  return path.join(dir, KEPT_BROKER_FILES[name]);
}

/**
 * Reads and checks `file` against `schema`: at most {@link KEPT_BROKER_FILE_MAX_BYTES}, JSON, the schema.
 * A missing file gives no problem; any other failure gives one naming the file.
 */
export async function readKeptBrokerFile<T>(
  file: string,
  schema: z.ZodType<T>,
): Promise<KeptBrokerFileRead<T>> {
  let text: string;
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(KEPT_BROKER_FILE_MAX_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > KEPT_BROKER_FILE_MAX_BYTES) {
        return { value: undefined, problem: `${file}: larger than ${KEPT_BROKER_FILE_MAX_BYTES} bytes` };
      }
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { value: undefined, problem: undefined };
    return { value: undefined, problem: `${file}: cannot read (${(error as Error).message})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { value: undefined, problem: `${file}: not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`,
    );
    return { value: undefined, problem: `${file}: not a kept broker file (${problems.join('; ')})` };
  }
  return { value: parsed.data };
}

/** Writes `value` as JSON to `file` through a temp file and a rename (readers never see half a file). */
export async function writeKeptBrokerFile(
  file: string,
  value: KeptBrokerState | KeptBrokerLease,
): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(value)}\n`);
  await rename(temp, file);
}

/** Removes `file` (no error when it is already gone). */
export async function removeKeptBrokerFile(file: string): Promise<void> {
  await rm(file, { force: true });
}
