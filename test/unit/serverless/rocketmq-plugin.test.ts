/**
 * The plugin class against a stand-in of the framework's `serverless` object: what it reads from the
 * service (timeouts, stage, `--param`), what it changes besides the template (package patterns, the core
 * template), and the "did you mean" it reports before the framework's own schema check.
 */
import { describe, expect, it } from 'vitest';
import {
  RocketMQLogicalIds as Ids,
  type PollerConfigSub,
  RocketMQServerlessPlugin,
  type ServerlessInstance,
} from '../../../src/serverless/index.js';
import {
  DEPENDENCY_SOURCES_EXCLUDE_PATTERN,
  DEV_STATE_EXCLUDE_PATTERN,
} from '../../../src/serverless/rocketmq-plugin.js';
import { checkPollerConfig } from './config-check.js';

class FrameworkError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

interface FakeOptions {
  readonly functions: Record<string, { events?: unknown[]; timeout?: unknown }>;
  readonly custom?: unknown;
  readonly providerTimeout?: unknown;
  readonly stage?: string;
  readonly configValidationMode?: string;
  readonly patterns?: string[];
}

function fakeServerless(options: FakeOptions) {
  const compiled = { Resources: {} as Record<string, unknown>, Outputs: {} as Record<string, unknown> };
  const core = { Resources: { ServerlessDeploymentBucket: {} } as Record<string, unknown> };
  const serverless = {
    service: {
      custom: options.custom === undefined ? undefined : { rocketmq: options.custom },
      configValidationMode: options.configValidationMode,
      provider: {
        compiledCloudFormationTemplate: compiled,
        coreCloudFormationTemplate: core,
        timeout: options.providerTimeout,
      },
      package: options.patterns === undefined ? undefined : { patterns: options.patterns },
      getAllFunctions: () => Object.keys(options.functions),
      getFunction: (name: string) => options.functions[name] ?? {},
    },
    getProvider: () => ({
      naming: {
        getLambdaLogicalId: (name: string) => `${name[0]?.toUpperCase()}${name.slice(1)}LambdaFunction`,
      },
      getStage: () => options.stage ?? 'prod',
    }),
    configSchemaHandler: { defineFunctionEvent: () => undefined, defineCustomProperties: () => undefined },
    classes: { Error: FrameworkError },
  } satisfies ServerlessInstance;
  return { serverless, compiled, core };
}

const CUSTOM = { nameServers: '10.0.0.10:9876', vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] } };
const ORDERS = { rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } };

function logger() {
  const lines: string[] = [];
  return { lines, log: { warning: (m: string) => lines.push(`warning ${m}`), verbose: () => undefined } };
}

describe('unknown keys, before the framework validates', () => {
  it('stop the command with a "did you mean" for every typo, events and custom.rocketmq', () => {
    const { serverless } = fakeServerless({
      functions: {
        orders: { events: [{ http: {} }, { rocketmq: { topic: 'O', consumerGroup: 'g', batchsize: 5 } }] },
      },
      custom: {
        ...CUSTOM,
        maxCont: 4,
        vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'], securityGroupsIds: [] },
      },
    });
    expect(() => new RocketMQServerlessPlugin(serverless)).toThrow(
      new FrameworkError(
        [
          'Invalid rocketmq configuration:',
          '  functions.orders.events[1].rocketmq.batchsize: unknown key (did you mean batchSize?)',
          '  custom.rocketmq.vpc.securityGroupsIds: unknown key (did you mean securityGroupIds?)',
          '  custom.rocketmq.maxCont: unknown key (did you mean maxCount?)',
        ].join('\n'),
        'ROCKETMQ_INVALID_CONFIGURATION',
      ),
    );
  });

  it('only warn with configValidationMode: warn, and are left alone with off', () => {
    const typo = {
      functions: { orders: { events: [{ rocketmq: { topic: 'O', consumerGroup: 'g', quues: 4 } }] } },
    };
    const { lines, log } = logger();
    new RocketMQServerlessPlugin(
      fakeServerless({ ...typo, configValidationMode: 'warn' }).serverless,
      {},
      { log },
    );
    expect(lines).toEqual([
      'warning Invalid rocketmq configuration: functions.orders.events[0].rocketmq.quues: unknown key (did you mean queues?)',
    ]);
    expect(
      () => new RocketMQServerlessPlugin(fakeServerless({ ...typo, configValidationMode: 'off' }).serverless),
    ).not.toThrow();
  });

  it('other problems are left to the framework and the compile step', () => {
    const { serverless } = fakeServerless({
      functions: { orders: { events: [{ rocketmq: { topic: 'O', batchSize: 0 } }] } },
      custom: { vpc: {} },
    });
    expect(() => new RocketMQServerlessPlugin(serverless)).not.toThrow();
  });
});

describe('packaging', () => {
  it('keeps dev state (.rocketmq-lambda/) and dependency sources out of the zip, after the service patterns, once', async () => {
    const { serverless } = fakeServerless({ functions: {}, patterns: ['!**', 'dist/**'] });
    const plugin = new RocketMQServerlessPlugin(serverless);
    await plugin.hooks['before:package:createDeploymentArtifacts']?.();
    await plugin.hooks['before:package:function:package']?.();
    expect(serverless.service.package?.patterns).toEqual([
      '!**',
      'dist/**',
      DEV_STATE_EXCLUDE_PATTERN,
      DEPENDENCY_SOURCES_EXCLUDE_PATTERN,
    ]);
    const bare = fakeServerless({ functions: {} }).serverless;
    new RocketMQServerlessPlugin(bare).excludeDevState();
    expect(bare.service.package?.patterns).toEqual([
      '!.rocketmq-lambda/**',
      '!node_modules/**/*.{ts,cts,mts,map}',
    ]);
  });
});

describe('package:compileEvents', () => {
  it('passes the timeouts (function, else provider) and the stage, and logs the warnings', async () => {
    const { serverless, compiled } = fakeServerless({
      functions: {
        orders: { events: [ORDERS], timeout: 20 },
        ledger: { events: [{ rocketmq: { topic: 'L', consumerGroup: 'l' } }] },
      },
      custom: { ...CUSTOM, nameServers: 'localhost:9876' },
      providerTimeout: '45',
      stage: 'dev',
    });
    const { lines, log } = logger();
    await new RocketMQServerlessPlugin(serverless, {}, { log }).hooks['package:compileEvents']?.();
    const definition = compiled.Resources[Ids.taskDefinition] as {
      Properties: { ContainerDefinitions: { Environment: { Name: string; Value: PollerConfigSub }[] }[] };
    };
    const sub = definition.Properties.ContainerDefinitions[0]?.Environment[0]?.Value;
    if (sub === undefined) throw new Error('no poller config');
    expect(checkPollerConfig(sub).raw.mappings).toMatchObject([
      { consumerGroup: 'orders-fn', functionTimeoutMs: 20_000 },
      { consumerGroup: 'l', functionTimeoutMs: 45_000 },
    ]);
    expect(lines).toEqual([
      'warning rocketmq: custom.rocketmq.nameServers: localhost:9876 is a loopback address: the poller tasks run in your VPC and cannot reach it (give addresses the VPC reaches) (allowed in stage "dev" only)',
    ]);
  });

  it('refuses in a production stage with the framework error class and code', async () => {
    const { serverless } = fakeServerless({
      functions: { orders: { events: [ORDERS] } },
      custom: { ...CUSTOM, nameServers: '127.0.0.1:9876' },
    });
    const attempt = new RocketMQServerlessPlugin(serverless).hooks['package:compileEvents']?.();
    await expect(attempt).rejects.toBeInstanceOf(FrameworkError);
    await expect(attempt).rejects.toMatchObject({ code: 'ROCKETMQ_INVALID_CONFIGURATION' });
  });

  it('with image.build, also gives the core template (a new stack) the repository', async () => {
    const { serverless, compiled, core } = fakeServerless({
      functions: { orders: { events: [ORDERS] } },
      custom: { ...CUSTOM, image: { build: true } },
    });
    await new RocketMQServerlessPlugin(serverless).hooks['package:compileEvents']?.();
    expect(Object.keys(core.Resources)).toEqual(['ServerlessDeploymentBucket', Ids.imageRepository]);
    expect(core.Resources[Ids.imageRepository]).toEqual(compiled.Resources[Ids.imageRepository]);
  });

  it('--param rocketmq-bootstrap-image=<uri> runs that image while the repository is added', async () => {
    const { serverless, compiled } = fakeServerless({
      functions: { orders: { events: [ORDERS] } },
      custom: { ...CUSTOM, image: { build: true } },
    });
    const bootstrap = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/poller:0.1.0';
    const plugin = new RocketMQServerlessPlugin(serverless, {
      param: ['other=1', `rocketmq-bootstrap-image=${bootstrap}`],
    });
    await plugin.hooks['package:compileEvents']?.();
    expect(JSON.stringify(compiled.Resources[Ids.taskDefinition])).toContain(`"Image":"${bootstrap}"`);
    expect(compiled.Resources[Ids.imageRepository]).toBeDefined();
    // Nothing to build: the deploy hooks leave Docker alone.
    await expect(plugin.checkImageBuildTools()).resolves.toBeUndefined();
    await expect(plugin.pushBuiltImage()).resolves.toBeUndefined();
  });
});
