import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveHandlerModule } from '../../../src/serverless-service/handler-module.js';
import { loadServerlessService } from '../../../src/serverless-service/load-serverless-service.js';
import {
  DEV_OFFSETS_TABLE,
  devConfigFromServerless,
} from '../../../src/serverless-service/serverless-dev-config.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const ENDPOINT = 'http://127.0.0.1:8000';

const problemsOf = problemsThrownBy;

/** A service dir with src/h.ts and serverless.yml given as an object. */
function service(functions: Record<string, unknown>, custom?: unknown): { dir: string; document: unknown } {
  const dir = mkdtempSync(path.join(tmpdir(), 'dev-config-'));
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'h.ts'), 'export const handler = () => null;\n');
  return { dir, document: { service: 's', functions, ...(custom === undefined ? {} : { custom }) } };
}

describe('resolveHandlerModule', () => {
  const has =
    (...files: string[]) =>
    (file: string) =>
      files.includes(file);

  it('prefers the src/ TypeScript twin of a dist/ handler', () => {
    expect(
      resolveHandlerModule(
        'dist/examples/orders.handler',
        '/app',
        has('/app/src/examples/orders.ts', '/app/dist/examples/orders.js'),
      ),
    ).toEqual({
      file: '/app/src/examples/orders.ts',
      exportName: 'handler',
    });
  });

  it('falls back to the path as given with .js, .mjs, .ts in that order', () => {
    expect(resolveHandlerModule('dist/a.main', '/app', has('/app/dist/a.js')).file).toBe('/app/dist/a.js');
    expect(resolveHandlerModule('lib/a.main', '/app', has('/app/lib/a.mjs', '/app/lib/a.ts')).file).toBe(
      '/app/lib/a.mjs',
    );
    expect(resolveHandlerModule('lib/a.main', '/app', has('/app/lib/a.ts'))).toEqual({
      file: '/app/lib/a.ts',
      exportName: 'main',
    });
  });

  it('names every file it tried, and rejects a handler without an export', () => {
    expect(() => resolveHandlerModule('dist/x.handler', '/app', has())).toThrow(
      /tried src\/x\.ts, dist\/x\.js, dist\/x\.mjs, dist\/x\.ts/,
    );
    expect(() => resolveHandlerModule('handler', '/app', has())).toThrow(/not <path>\.<export>/);
  });
});

describe('devConfigFromServerless', () => {
  // The example service as dev resolves its ${env:..., 'default'} variables (without the Framework: they
  // mean what they mean to the repository's osls, test/integration/dev/simple-variables-framework.test.ts).
  let example: unknown;
  beforeAll(async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'dev-config-state-'));
    const loaded = await loadServerlessService(path.join(REPO, 'serverless.yml'), { env: {}, stateDir });
    expect(loaded.resolvedBy).toBe('rocketmq-lambda (env)');
    example = loaded.document;
  }, 60_000);

  it("builds the repository's serverless.yml into a RunConfig with local TypeScript handlers", () => {
    const { config, handlers, notices } = devConfigFromServerless(example, {
      serviceDir: REPO,
      env: {},
      dynamoDbEndpoint: ENDPOINT,
    });
    expect(notices).toEqual([]);
    expect(config.nameServerAddresses).toEqual(['127.0.0.1:9876']);
    // The deployed config publishes the lag metric; dev has nothing to scale and no CloudWatch.
    expect(config.metrics.cloudwatch).toBeUndefined();
    expect(config.offsets).toMatchObject({
      store: 'dynamodb',
      table: DEV_OFFSETS_TABLE,
      endpoint: ENDPOINT,
      createTable: true,
    });
    const [orders, ledger] = config.mappings;
    expect(orders).toMatchObject({
      name: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-lambda',
      functionRef: `local:${path.join(REPO, 'src/examples/orders.ts')}#handler`,
      batchSize: 100,
      maximumBatchingWindowMs: 1000,
      startingPosition: 'TRIM_HORIZON',
      maxReconsumeTimes: 5,
      bisectBatchOnError: true,
    });
    expect(orders?.filter).toMatchObject({ type: 'TAG', expression: 'order || refund' });
    expect(ledger).toMatchObject({
      name: 'ledger',
      topic: 'Ledger',
      orderly: true,
      orderlyFailure: 'block',
      batchSize: 10,
    });
    expect(handlers.get('ledger')?.file).toBe(path.join(REPO, 'src/examples/ledger.ts'));
  });

  it('takes the name server from --name-server, else custom.rocketmq.nameServers, else ROCKETMQ_NAME_SERVER', () => {
    const fns = {
      f: { handler: 'src/h.handler', events: [{ rocketmq: { topic: 'T', consumerGroup: 'g' } }] },
    };
    const withCustom = service(fns, { rocketmq: { nameServers: '1.1.1.1:9876' } });
    const build = (s: { dir: string; document: unknown }, env: Record<string, string>, nameServer?: string) =>
      devConfigFromServerless(s.document, { serviceDir: s.dir, env, nameServer, dynamoDbEndpoint: ENDPOINT })
        .config.nameServerAddresses;
    expect(build(withCustom, { ROCKETMQ_NAME_SERVER: '3.3.3.3:9876' }, '9.9.9.9:9876')).toEqual([
      '9.9.9.9:9876',
    ]);
    expect(build(withCustom, { ROCKETMQ_NAME_SERVER: '3.3.3.3:9876' })).toEqual(['1.1.1.1:9876']);
    expect(build(service(fns), { ROCKETMQ_NAME_SERVER: '3.3.3.3:9876' })).toEqual(['3.3.3.3:9876']);
  });

  it('names several events of one function by index, leaves disabled ones out, and drops onFailure with a notice', () => {
    const s = service({
      f: {
        handler: 'src/h.handler',
        events: [
          { http: { path: '/' } },
          {
            rocketmq: {
              topic: 'A',
              consumerGroup: 'ga',
              onFailure: 'arn:aws:sqs:us-east-1:123456789012:dlq',
            },
          },
          { rocketmq: { topic: 'B', consumerGroup: 'gb', enabled: false } },
        ],
      },
    });
    const { config, notices } = devConfigFromServerless(s.document, {
      serviceDir: s.dir,
      env: { ROCKETMQ_NAME_SERVER: 'ns:9876' },
      dynamoDbEndpoint: ENDPOINT,
    });
    expect(config.mappings.map((m) => [m.name, m.topic])).toEqual([['f-1', 'A']]);
    expect(config.mappings[0]?.onFailure).toBeUndefined();
    expect(notices).toEqual(['functions.f: onFailure is not used locally (failures are only logged)']);
  });

  it('reports variables left unresolved, invalid events and missing handlers together, by key path', () => {
    const s = service({
      a: { handler: `\${self:custom.handler}`, events: [{ rocketmq: { topic: 'T', consumerGroup: 'g' } }] },
      b: {
        handler: 'src/h.handler',
        events: [{ rocketmq: { topic: 'T', consumerGroup: 'g', batchsize: 5 } }],
      },
      c: { handler: 'src/missing.handler', events: [{ rocketmq: { topic: 'T', consumerGroup: 'g' } }] },
      d: {
        handler: 'src/h.handler',
        events: [{ rocketmq: { topic: 'T', consumerGroup: 'g', startingPosition: 'AT_TIMESTAMP' } }],
      },
    });
    const problems = problemsOf(() =>
      devConfigFromServerless(s.document, { serviceDir: s.dir, env: {}, dynamoDbEndpoint: ENDPOINT }),
    );
    expect(problems).toEqual([
      `functions.a.handler: \${self:custom.handler}: not resolved (read the service with loadServerlessService)`,
      'functions.b.events[0].rocketmq.batchsize: unknown key (did you mean batchSize?)',
      expect.stringMatching(/^functions\.c\.handler: handler "src\/missing\.handler": no module found/),
      'functions.d.events[0].rocketmq.startingPositionTimestamp: required when startingPosition is AT_TIMESTAMP',
    ]);
  });

  it('says so when no function has a rocketmq event, and rejects an intrinsic name server', () => {
    const none = service({ f: { handler: 'src/h.handler', events: [{ http: { path: '/' } }] } });
    expect(
      problemsOf(() =>
        devConfigFromServerless(none.document, { serviceDir: none.dir, env: {}, dynamoDbEndpoint: ENDPOINT }),
      ),
    ).toEqual(['functions: no function has a rocketmq event (nothing for dev to run)']);
    const intrinsic = service(
      { f: { handler: 'src/h.handler', events: [{ rocketmq: { topic: 'T', consumerGroup: 'g' } }] } },
      { rocketmq: { nameServers: { 'Fn::ImportValue': 'ns' } } },
    );
    expect(
      problemsOf(() =>
        devConfigFromServerless(intrinsic.document, {
          serviceDir: intrinsic.dir,
          env: {},
          dynamoDbEndpoint: ENDPOINT,
        }),
      ),
    ).toEqual([
      expect.stringContaining(
        'custom.rocketmq.nameServers: an intrinsic function cannot be resolved locally',
      ),
    ]);
  });
});
