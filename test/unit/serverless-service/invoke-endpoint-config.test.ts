import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadServerlessService } from '../../../src/serverless-service/load-serverless-service.js';
import { devConfigFromServerless } from '../../../src/serverless-service/serverless-dev-config.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DYNAMODB = 'http://127.0.0.1:8000';
const INVOKE = 'http://127.0.0.1:3002';

const event = { rocketmq: { topic: 'T', consumerGroup: 'g' } };

const problemsOf = problemsThrownBy;

describe('devConfigFromServerless with invokeEndpoint (dev --invoke-endpoint)', () => {
  it('invokes the example service through the endpoint as <service>-<stage>-<function>', async () => {
    // As dev resolves its env variables; the functions' deployed names are dev's <service>-<stage>-<fn>.
    const { document } = await loadServerlessService(path.join(REPO, 'serverless.yml'), {
      env: {},
      stateDir: mkdtempSync(path.join(tmpdir(), 'dev-invoke-state-')),
    });
    const { config, handlers } = devConfigFromServerless(document, {
      serviceDir: REPO,
      env: {},
      dynamoDbEndpoint: DYNAMODB,
      invokeEndpoint: INVOKE,
    });
    expect(config.lambda.endpoint).toBe(INVOKE);
    expect(config.lambda.region).toBeDefined();
    expect(config.mappings.map((m) => [m.name, m.functionRef])).toEqual([
      ['orders', 'rocketmq-lambda-example-dev-orders'],
      ['ledger', 'rocketmq-lambda-example-dev-ledger'],
    ]);
    expect(config.mappings.map((m) => m.topic)).toEqual(['Orders', 'Ledger']);
    // Nothing runs in-process, so there is nothing to watch.
    expect(handlers.size).toBe(0);
  }, 60_000);

  it('takes the stage from --stage, then provider.stage, and honours functions.<fn>.name', () => {
    const document = {
      service: { name: 'svc' },
      provider: { name: 'aws', stage: 'test' },
      functions: {
        a: { handler: 'missing/module.handler', events: [event] },
        b: {
          handler: 'missing/module.handler',
          name: 'custom-b',
          events: [{ rocketmq: { topic: 'T', consumerGroup: 'g2' } }],
        },
      },
    };
    const base = {
      serviceDir: '/nowhere',
      env: {},
      nameServer: '127.0.0.1:9876',
      dynamoDbEndpoint: DYNAMODB,
      invokeEndpoint: INVOKE,
    };
    const refs = (stage?: string) =>
      devConfigFromServerless(document, { ...base, stage }).config.mappings.map((m) => m.functionRef);
    expect(refs()).toEqual(['svc-test-a', 'custom-b']);
    expect(refs('prod')).toEqual(['svc-prod-a', 'custom-b']);
  });

  it('needs a service name, and keeps in-process local: refs without the option', () => {
    const functions = { a: { handler: 'src/examples/orders.handler', events: [event] } };
    expect(
      problemsOf(() =>
        devConfigFromServerless(
          { functions },
          {
            serviceDir: REPO,
            env: {},
            nameServer: 'ns:9876',
            dynamoDbEndpoint: DYNAMODB,
            invokeEndpoint: INVOKE,
          },
        ),
      ),
    ).toEqual([expect.stringMatching(/^service: required/)]);
    const local = devConfigFromServerless(
      { service: 's', functions },
      { serviceDir: REPO, env: {}, nameServer: 'ns:9876', dynamoDbEndpoint: DYNAMODB },
    );
    expect(local.config.lambda.endpoint).toBeUndefined();
    expect(local.config.mappings[0]?.functionRef).toMatch(/^local:.*orders\.ts#handler$/);
  });
});
