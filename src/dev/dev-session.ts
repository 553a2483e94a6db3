/**
 * One `rocketmq-lambda dev` run: the embedded DynamoDB, optionally a local broker or cluster (with the
 * mapped topics),
 * the poller over serverless.yml's `rocketmq` events with handlers invoked in-process (reloaded on edit),
 * and the live status. `stop()` releases everything it started, in reverse order.
 */
import path from 'node:path';
import { LOCAL_ENDPOINT_REGION, type RunConfig } from '../config/run-config.js';
import { KEPT_BROKER_DIR } from '../local-broker/kept-broker-files.js';
import { type PollerExit, startPoller } from '../poller/poller.js';
import {
  DEV_STATE_DIR,
  type DevState,
  removeDevState,
  writeDevState,
} from '../serverless-service/dev-state-file.js';
import { loadServerlessService } from '../serverless-service/load-serverless-service.js';
import {
  DEV_OFFSETS_TABLE,
  type DevConfig,
  devConfigFromServerless,
} from '../serverless-service/serverless-dev-config.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { markStartupPhase } from '../util/startup-timeline.js';
import { type DevConsole, startDevConsole } from './console/dev-console.js';
import { type BackgroundStarts, startInBackground } from './dev-background-starts.js';
import { type HandlerWatcher, watchHandlerSources } from './handler-watcher.js';
import type { DevRocketMQ, DevRocketMQKind } from './local-rocketmq.js';
import { ReloadingInvoker } from './reloading-invoker.js';
import { LastInvokeTracker, mappingLineOf, StatusDisplay, type TextStream } from './status-display.js';
import { ensureTypeScriptLoader } from './typescript-loader.js';

/** A name server that is never dialled: used to validate serverless.yml before a local broker exists. */
const PLACEHOLDER_NAME_SERVER = '127.0.0.1:9876';
const STATUS_INTERVAL_MS = 1000;

/**
 * Options of {@link startDevSession}.
 */
export interface DevSessionOptions {
  readonly configFile: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--stage` for the Framework's variables; unset, provider.stage, else dev. */
  readonly stage?: string | undefined;
  /** `--region` for the Framework's variables. */
  readonly region?: string | undefined;
  /** `--param key=value`, each: `${param:key}`. */
  readonly params?: readonly string[] | undefined;
  readonly nameServer?: string | undefined;
  /** Start a local RocketMQ (stopped with the session, unless `keepBroker`). */
  readonly localBroker?: boolean | undefined;
  /**
   * With `localBroker`: a kept broker (src/local-broker/kept-broker.ts) in `<state dir>/kept-broker`, taken
   * when an earlier session left one up and left up for `idleMs` after this session.
   */
  readonly keepBroker?: { readonly idleMs: number } | undefined;
  /**
   * Start a local cluster instead: 2 broker groups, each a master and `slavesPerGroup` slaves (stopped
   * with the session); the topics are created on every broker.
   */
  readonly localCluster?: { readonly slavesPerGroup: number } | undefined;
  /** State (offsets, shims, broker logs). @default `<service dir>/.rocketmq-lambda` */
  readonly stateDir?: string | undefined;
  readonly logger: Logger;
  /** Where the live status goes. */
  readonly stdout: TextStream;
  /** Live lines (true) or status log lines (false). */
  readonly tty: boolean;
  /**
   * `--invoke-endpoint`: invoke the functions through this Lambda Invoke API (e.g. serverless-offline's
   * `http://127.0.0.1:3002`) as `<service>-<stage>-<function>` instead of running handlers in-process.
   */
  readonly invokeEndpoint?: string | undefined;
  /**
   * The web console (docs/console-api.md) on 127.0.0.1:`port` (0: any free port); undefined: none.
   */
  readonly console?: { readonly port: number } | undefined;
  /** Called once the console listens (before the broker starts), with its address. */
  readonly onConsole?: ((url: string) => void) | undefined;
  /** Called once, when the first batch has been invoked, with the milliseconds since the start. */
  readonly onFirstInvocation?: ((msSinceStart: number) => void) | undefined;
  /**
   * Called once the local RocketMQ started by the session has its topics (before the poller starts),
   * with its name server: `npm run demo` starts sending its samples then.
   */
  readonly onLocalTopics?: ((nameServer: string) => void) | undefined;
  /**
   * The local RocketMQ and the embedded DynamoDB, already starting ({@link startInBackground} with the
   * local kind these options give and the same state directory): `npm run demo` starts them before it
   * imports the rest, so the JVMs boot while the modules load. The session owns them from here (stops
   * them with itself, or when it cannot start). @default started by the session
   */
  readonly starting?: BackgroundStarts | undefined;
}

/**
 * A running dev session.
 */
export interface DevSession {
  readonly config: RunConfig;
  /** What `<state dir>/dev.json` says of this session (written once it is up, removed on stop). */
  readonly state: DevState;
  /** The name server the poller uses. */
  readonly nameServer: string;
  /** The local broker or cluster the session started, if any. */
  readonly local?: Pick<DevRocketMQ, 'kind' | 'clusterName' | 'brokers' | 'reused' | 'keptForMs'> | undefined;
  readonly dynamoDbEndpoint: string;
  readonly stateDir: string;
  /** The console's address, when it runs. */
  readonly consoleUrl?: string | undefined;
  /** Resolves once everything has stopped (after `stop()`, or a fatal mapping failure). */
  readonly stopped: Promise<PollerExit>;
  stop(): Promise<PollerExit>;
}

/**
 * Starts a dev session. On a start failure everything already started is stopped before the error is thrown.
 */
export async function startDevSession(options: DevSessionOptions): Promise<DevSession> {
  const startedAtMs = Date.now();
  const log = componentLogger('dev', options.logger);
  const configFile = path.resolve(options.configFile);
  const serviceDir = path.dirname(configFile);
  const stateDir = path.resolve(options.stateDir ?? path.join(serviceDir, DEV_STATE_DIR));
  const localKind: DevRocketMQKind | undefined =
    options.localCluster !== undefined
      ? { kind: 'cluster', slavesPerGroup: options.localCluster.slavesPerGroup }
      : options.localBroker === true
        ? {
            kind: 'broker',
            keep:
              options.keepBroker === undefined
                ? undefined
                : { dir: path.join(stateDir, KEPT_BROKER_DIR), idleMs: options.keepBroker.idleMs },
          }
        : undefined;
  // The slow starts need nothing from the service, so they run while it is read (the Framework, when it
  // has variables) and checked: the local RocketMQ's JVMs (seconds) and the embedded DynamoDB. Its
  // topics are created once the service is known; a service that does not load stops them again.
  const starting = options.starting ?? startInBackground(localKind, stateDir, options.logger);
  let loaded: Awaited<ReturnType<typeof loadServerlessService>>;
  try {
    loaded = await loadServerlessService(configFile, {
      env: options.env,
      stage: options.stage,
      region: options.region,
      params: options.params,
      stateDir,
      source: options.configFile,
    });
  } catch (error) {
    starting.abandon(log);
    throw error;
  }
  markStartupPhase('service loaded');
  const { document, resolvedBy } = loaded;
  if (resolvedBy !== undefined) {
    log.info({ resolvedBy, msSinceStart: Date.now() - startedAtMs }, 'service variables resolved');
  }
  const build = (nameServer: string | undefined, dynamoDbEndpoint: string): DevConfig =>
    devConfigFromServerless(document, {
      serviceDir,
      env: options.env,
      stage: options.stage,
      nameServer,
      dynamoDbEndpoint,
      source: options.configFile,
      invokeEndpoint: options.invokeEndpoint,
    });
  let checked: DevConfig;
  try {
    checked = build(
      localKind !== undefined ? PLACEHOLDER_NAME_SERVER : options.nameServer,
      'http://127.0.0.1:1',
    );
  } catch (error) {
    starting.abandon(log);
    throw error;
  }
  for (const notice of checked.notices) log.warn(notice);

  const cleanups: { what: string; run: () => Promise<void> | void }[] = [];
  /** Until the background starts are taken, a failure (the console's port in use) abandons them. */
  let startsTaken = false;
  const cleanUp = async (): Promise<void> => {
    for (const { what, run } of cleanups.splice(0).reverse()) {
      try {
        await run();
      } catch (error) {
        log.error({ err: error }, `stopping the ${what} failed`);
      }
    }
  };
  try {
    let devConsole: DevConsole | undefined;
    if (options.console !== undefined) {
      devConsole = await startDevConsole({
        port: options.console.port,
        logger: options.logger,
        functionNameOf: (mapping) => checked.functionKeys.get(mapping.name) ?? mapping.functionRef,
      });
      const started = devConsole;
      cleanups.push({ what: 'console', run: () => started.close() });
      options.onConsole?.(devConsole.url);
    }
    startsTaken = true;
    const { db, local } = await starting.started((what, run) => cleanups.push({ what, run }));
    log.info({ endpoint: db.endpoint, dataDir: db.dataDir }, 'embedded DynamoDB started');
    let nameServer = options.nameServer;
    if (local !== undefined) {
      const topics = new Map<string, boolean>();
      for (const mapping of checked.config.mappings) {
        topics.set(mapping.topic, (topics.get(mapping.topic) ?? false) || mapping.orderly);
      }
      await local.createTopics([...topics].map(([topic, orderly]) => ({ topic, orderly })));
      markStartupPhase('topics created');
      nameServer = local.nameServer;
      options.onLocalTopics?.(local.nameServer);
    }
    const { config, handlers, functionKeys } = build(nameServer, db.endpoint);
    const files = [...new Set([...handlers.values()].map((h) => h.file))];
    if (files.some((file) => /\.[cm]?tsx?$/.test(file))) await ensureTypeScriptLoader();

    // Through an Invoke API endpoint the poller's own LambdaInvoker (config.lambda) does the invoking.
    const invoker =
      options.invokeEndpoint === undefined
        ? new ReloadingInvoker({ shimDir: path.join(stateDir, 'handlers'), logger: options.logger })
        : undefined;
    let firstInvocationLogged = false;
    const firstInvocation = (): void => {
      if (firstInvocationLogged) return;
      firstInvocationLogged = true;
      const msSinceStart = Date.now() - startedAtMs;
      markStartupPhase('first invocation');
      log.info({ msSinceStart }, 'first invocation');
      options.onFirstInvocation?.(msSinceStart);
    };
    const recorded = invoker === undefined ? undefined : (devConsole?.recordingInvoker(invoker) ?? invoker);
    const poller = await startPoller(config, {
      logger: options.logger,
      // In-process, the first invocation is told as its handler answers; else by the status refresh.
      invoker: recorded && {
        invoke: (request) => recorded.invoke(request).finally(firstInvocation),
        close: () => recorded.close(),
      },
      wrapListener: devConsole?.wrapListener,
    });
    cleanups.push({ what: 'poller', run: async () => void (await poller.stop()) });
    markStartupPhase('poller started');

    if (invoker !== undefined) {
      // The service directory and each handler's own (even under dist/ or outside the service).
      const watcher: HandlerWatcher = watchHandlerSources({
        roots: [serviceDir, ...files.map((file) => path.dirname(file))],
        ignorePaths: [stateDir],
        onChange: (changed) => {
          const generation = invoker.reload(changed);
          log.info(
            { file: changed[0], files: changed.length > 1 ? changed : undefined, generation },
            'source changed: reloading the handlers on their next batch',
          );
        },
        log,
      });
      cleanups.push({ what: 'handler watcher', run: () => watcher.close() });
    }

    const display = new StatusDisplay({ stream: options.stdout, tty: options.tty, log });
    const lastInvokes = new LastInvokeTracker();
    const refresh = async (): Promise<void> => {
      const [statuses, lags] = await Promise.all([poller.status(), poller.lag()]);
      const stats = poller.invokeStats().mappings;
      const lines = statuses.map((s) => {
        const invokes = stats.get(s.name)?.invokes ?? 0;
        return mappingLineOf(
          s,
          lags.find((lag) => lag.name === s.name),
          invokes,
          lastInvokes.observe(s.name, invokes),
        );
      });
      if (lines.some((line) => line.invocations > 0)) firstInvocation();
      display.render(lines);
    };
    const timer = setInterval(() => {
      refresh().catch((error: unknown) => log.warn({ err: error }, 'status refresh failed'));
    }, STATUS_INTERVAL_MS);
    cleanups.push({
      what: 'status display',
      run: () => {
        clearInterval(timer);
        display.close();
      },
    });
    const state = devStateOf(config, {
      serviceDir,
      configFile,
      startedAt: new Date(startedAtMs),
      dynamoDbEndpoint: db.endpoint,
      functionKeys,
    });
    devConsole?.attach({ config, poller, functionKeys, startedAt: new Date(startedAtMs) });
    await writeDevState(stateDir, state);
    cleanups.push({ what: 'dev state file', run: () => removeDevState(stateDir) });
    log.info(
      {
        nameServer: config.nameServerAddresses,
        mappings: config.mappings.map((m) => m.name),
        handlers: options.invokeEndpoint === undefined ? files : config.mappings.map((m) => m.functionRef),
        msSinceStart: Date.now() - startedAtMs,
      },
      'dev started: watching handlers, Ctrl-C stops',
    );

    let stopping: Promise<PollerExit> | undefined;
    const stop = (): Promise<PollerExit> => {
      stopping ??= (async () => {
        const exit = await poller.stop();
        await cleanUp();
        return exit;
      })();
      return stopping;
    };
    poller.stopped
      .then(() => stop())
      .catch((error: unknown) => log.error({ err: error }, 'stopping dev failed'));
    return {
      config,
      state,
      nameServer: config.nameServerAddresses.join(';'),
      local,
      dynamoDbEndpoint: db.endpoint,
      stateDir,
      consoleUrl: devConsole?.url,
      stopped: poller.stopped.then(() => stop()),
      stop,
    };
  } catch (error) {
    if (!startsTaken) starting.abandon(log);
    await cleanUp();
    throw error;
  }
}

/**
 * The dev.json of a session: its name server, embedded DynamoDB and mappings.
 */
export function devStateOf(
  config: RunConfig,
  session: {
    readonly serviceDir: string;
    readonly configFile: string;
    readonly startedAt: Date;
    readonly dynamoDbEndpoint: string;
    /** The serverless.yml function of each mapping; the mapping's function ref otherwise. */
    readonly functionKeys: ReadonlyMap<string, string>;
  },
): DevState {
  const offsets = config.offsets;
  const offsetsTable = offsets.store === 'dynamodb' ? offsets.table : DEV_OFFSETS_TABLE;
  return {
    version: 1,
    pid: process.pid,
    startedAt: session.startedAt.toISOString(),
    serviceDir: session.serviceDir,
    configFile: session.configFile,
    nameServer: config.nameServerAddresses.join(';'),
    dynamoDbEndpoint: session.dynamoDbEndpoint,
    region: (offsets.store === 'dynamodb' ? offsets.region : undefined) ?? LOCAL_ENDPOINT_REGION,
    topics: [...new Set(config.mappings.map((m) => m.topic))],
    mappings: config.mappings.map((m) => ({
      name: m.name,
      functionName: session.functionKeys.get(m.name) ?? m.functionRef,
      topic: m.topic,
      consumerGroup: m.consumerGroup,
      offsetsTable,
    })),
  };
}
