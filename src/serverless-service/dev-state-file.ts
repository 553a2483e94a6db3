/**
 * `<state dir>/dev.json`: what a running `rocketmq-lambda dev` tells other commands on the same machine
 * (`send`, `status`, `offsets`, `dlq`): its name server, its embedded DynamoDB (offsets readable while dev
 * runs) and its mappings. Written once the session is up, removed when it stops; a file whose process is
 * gone (dev was killed) reads as no session. It lives beside the reading of the service, not in dev/:
 * the commands that read it target the service's session without depending on the session's code.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { LOCAL_STATE_DIR } from '../config/config-defaults.js';
import { RocketMQError } from '../errors.js';
import { isProcessAlive } from '../util/process-alive.js';

/** dev's state directory inside a service, unless `--state-dir` says otherwise (dev.json lives there). */
export const DEV_STATE_DIR = LOCAL_STATE_DIR;
/** The file's name inside the state directory. */
export const DEV_STATE_FILE = 'dev.json';

/** One mapping of the session, as the other commands need it. */
const devStateMappingSchema = z.strictObject({
  name: z.string().min(1),
  functionName: z.string().min(1),
  topic: z.string().min(1),
  consumerGroup: z.string().min(1),
  offsetsTable: z.string().min(1),
});

/**
 * The schema of dev.json (version 1). Closed: an unknown key means another version wrote it.
 */
export const devStateSchema = z.strictObject({
  version: z.literal(1),
  pid: z.number().int().positive(),
  startedAt: z.iso.datetime({ offset: true }),
  serviceDir: z.string().refine((dir) => path.isAbsolute(dir), 'must be an absolute path'),
  configFile: z.string().refine((file) => path.isAbsolute(file), 'must be an absolute path'),
  /** `host:port[;host:port]`. */
  nameServer: z.string().regex(/^[^;\s]+:\d+(;[^;\s]+:\d+)*$/, 'must be host:port[;host:port]'),
  /** The embedded DynamoDB: `http://127.0.0.1:<port>`. */
  dynamoDbEndpoint: z.url({ protocol: /^https?$/ }),
  region: z.string().min(1),
  topics: z.array(z.string().min(1)),
  mappings: z.array(devStateMappingSchema),
});

/**
 * A running dev session, as dev.json describes it.
 */
export type DevState = z.infer<typeof devStateSchema>;

/**
 * A dev.json that cannot be read as a {@link DevState}: the message names the file and the problem.
 * Permanent: reading it again gives the same answer until someone removes or fixes the file.
 */
export class DevStateFileError extends RocketMQError {
  /** The file's path. */
  readonly file: string;

  constructor(file: string, problem: string, options: { cause?: unknown } = {}) {
    super(`${file}: ${problem}`, { ...options, permanent: true });
    this.file = file;
  }
}

/**
 * The path of dev.json in `stateDir`.
 */
export function devStatePath(stateDir: string): string {
  return path.join(stateDir, DEV_STATE_FILE);
}

/**
 * Writes dev.json (through a temp file and a rename, so readers never see half a file). Creates `stateDir`.
 */
export async function writeDevState(stateDir: string, state: DevState): Promise<void> {
  const checked = devStateSchema.parse(state);
  await mkdir(stateDir, { recursive: true });
  const file = devStatePath(stateDir);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(checked, null, 2)}\n`);
  await rename(temp, file);
}

/**
 * The running session's state in `stateDir`: undefined when there is no dev.json or when the process that
 * wrote it is gone. Throws {@link DevStateFileError} when the file is not valid JSON or not a version-1 state.
 */
export async function readDevState(stateDir: string): Promise<DevState | undefined> {
  const file = devStatePath(stateDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DevStateFileError(file, `cannot read: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DevStateFileError(file, `not JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = devStateSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`,
    );
    throw new DevStateFileError(file, `not a dev session state: ${problems.join('; ')}`, {
      cause: parsed.error,
    });
  }
  return isProcessAlive(parsed.data.pid) ? parsed.data : undefined;
}

/**
 * Removes dev.json from `stateDir` (no error when it is already gone).
 */
export async function removeDevState(stateDir: string): Promise<void> {
  await rm(devStatePath(stateDir), { force: true });
}
