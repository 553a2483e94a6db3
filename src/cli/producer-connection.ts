/**
 * Where `rocketmq-lambda send` finds its name server, first match wins: `--name-server`, the `nameServer`
 * of a poller config (`--config`, with its ACL and TLS), the running dev session (dev.json in the state
 * directory), then `ROCKETMQ_NAME_SERVER` / `NAMESRV_ADDR`. Outside a config, ACL credentials come from
 * `ROCKETMQ_ACCESS_KEY` / `ROCKETMQ_SECRET_KEY` as `run` reads them.
 */
import path from 'node:path';
import { applyEnvironment, CONFIG_ENV, environmentProblems } from '../config/config-env.js';
import { ConfigError } from '../config/config-error.js';
import { loadConfig } from '../config/load-config.js';
import { RocketMQError } from '../errors.js';
import { parseNameServerAddresses } from '../network/name-server-addresses.js';
import type { ClientConnectionConfig } from '../poller/rocketmq-client-of-config.js';
import type { AclCredentials } from '../protocol/acl-signer.js';
import { DEV_STATE_DIR, readDevState } from '../serverless-service/dev-state-file.js';

/**
 * What the command line says about the connection.
 */
export interface ConnectionOptions {
  readonly nameServer?: string | undefined;
  /** A poller config file. */
  readonly config?: string | undefined;
  /** dev's state directory. @default ./.rocketmq-lambda */
  readonly stateDir?: string | undefined;
}

/**
 * A connection and where it came from (for messages: `--name-server`, `poller.yaml`, `dev session (pid 42)`).
 */
export interface ResolvedConnection {
  readonly connection: ClientConnectionConfig;
  readonly source: string;
}

/**
 * No name server anywhere, or an unusable one. Permanent: the command line or environment must change.
 */
export class NoNameServerError extends RocketMQError {
  constructor(message: string) {
    super(message, { permanent: true });
  }
}

/**
 * The connection for `options` in `env`. Throws {@link ConfigError} for an invalid `--config` or half-set
 * ACL variables, {@link NoNameServerError} when nothing names a name server, and the dev state file's
 * error when dev.json is malformed.
 */
export async function resolveProducerConnection(
  options: ConnectionOptions,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): Promise<ResolvedConnection> {
  if (options.config !== undefined) {
    const config = await loadConfig(path.resolve(cwd, options.config), { env });
    return { connection: config, source: options.config };
  }
  const fromEnv = (nameServer: string, source: string): ResolvedConnection => {
    const addresses = parseNameServerAddresses(nameServer);
    if (addresses.length === 0 || addresses.some((address) => !/^\S+:\d+$/.test(address))) {
      throw new NoNameServerError(`${source}: ${JSON.stringify(nameServer)} is not host:port[;host:port]`);
    }
    return { connection: { nameServerAddresses: addresses, acl: aclOf(env), tls: undefined }, source };
  };
  if (options.nameServer !== undefined) return fromEnv(options.nameServer, '--name-server');
  const stateDir = path.resolve(cwd, options.stateDir ?? DEV_STATE_DIR);
  const dev = await readDevState(stateDir);
  if (dev !== undefined) return fromEnv(dev.nameServer, `dev session (pid ${dev.pid}, ${dev.configFile})`);
  for (const name of CONFIG_ENV.nameServer) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return fromEnv(value, name);
  }
  throw new NoNameServerError(
    `no name server: give --name-server host:port or --config <poller config>, run rocketmq-lambda dev in this directory (or pass its --state-dir), or set ${CONFIG_ENV.nameServer.join(' or ')}`,
  );
}

/** ACL credentials from the environment, as `run` reads them; half a pair is a config error. */
function aclOf(env: Readonly<Record<string, string | undefined>>): AclCredentials | undefined {
  const problems = environmentProblems({}, env);
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((problem) => `${problem.path.join('.')}: ${problem.message}`),
      { source: '(environment)' },
    );
  }
  const filled = applyEnvironment({}, env) as { acl?: AclCredentials };
  return filled.acl;
}
