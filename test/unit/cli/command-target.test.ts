import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { canReset as isResettableStore } from '../../../src/offsets/offset-store.js';
import {
  TargetError as CommandTargetError,
  openTarget as openCommandTarget,
} from '../../../src/operations/target.js';
import { writeDevState } from '../../../src/serverless-service/dev-state-file.js';
import { devStateFixture } from '../../support/dev-state.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

const io = fakeCliIo();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'command-target-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const POLLER_YAML = `nameServer: 127.0.0.1:9876
offsets: { store: dynamodb, table: offsets, region: eu-west-1 }
mappings:
  - { name: orders, topic: Orders, consumerGroup: orders-fn, function: orders-fn, startingPosition: TRIM_HORIZON }
  - { name: payments, topic: Payments, consumerGroup: payments-fn, function: payments-fn }
  - { name: audit, topic: Audit, consumerGroup: audit-fn, function: audit-fn, messageModel: BROADCASTING }
`;

describe('openCommandTarget', () => {
  it('reads a poller config: mappings with their store kinds, a client for its name servers', async () => {
    await writeFile(path.join(dir, 'poller.yaml'), POLLER_YAML);
    const target = await openCommandTarget({ config: 'poller.yaml', cwd: dir }, io);
    try {
      expect(target.source).toBe('poller.yaml');
      expect(target.mappings.map((m) => [m.name, m.offsetStoreKind, m.startingPosition])).toEqual([
        ['orders', 'dynamodb', 'TRIM_HORIZON'],
        ['payments', 'dynamodb', 'LATEST'],
        ['audit', 'file', 'LATEST'],
      ]);
      expect(target.client.nameServer.addresses).toEqual(['127.0.0.1:9876']);
      const orders = target.mapping('orders');
      expect(isResettableStore(target.offsetStore(orders))).toBe(true);
      expect(target.offsetStore(orders)).toBe(target.offsetStore(orders)); // one store per mapping
      expect(isResettableStore(target.offsetStore(target.mapping('audit')))).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('names the known mappings, with a did-you-mean, for an unknown or missing --mapping', async () => {
    await writeFile(path.join(dir, 'poller.yaml'), POLLER_YAML);
    const target = await openCommandTarget({ config: 'poller.yaml', cwd: dir }, io);
    try {
      expect(() => target.mapping('odrers')).toThrow(CommandTargetError);
      expect(() => target.mapping('odrers')).toThrow(
        'no mapping "odrers" in poller.yaml (did you mean orders?); its mappings: orders, payments, audit',
      );
      expect(() => target.mapping('zzz')).toThrow('no mapping "zzz" in poller.yaml; its mappings: orders');
      expect(() => target.mapping()).toThrow(
        'poller.yaml has 3 mappings: pass --mapping <orders|payments|audit>',
      );
    } finally {
      await target.close();
    }
  });

  it('takes the only mapping without --mapping', async () => {
    await writeFile(
      path.join(dir, 'one.yaml'),
      'nameServer: 127.0.0.1:9876\noffsets: { store: memory }\nmappings:\n  - { topic: T, consumerGroup: g, function: f }\n',
    );
    const target = await openCommandTarget({ config: 'one.yaml', cwd: dir }, io);
    try {
      expect(target.mapping().consumerGroup).toBe('g');
    } finally {
      await target.close();
    }
  });

  it('uses the dev session of ./serverless.yml: its name server, its embedded DynamoDB', async () => {
    const serviceFile = path.join(dir, 'serverless.yml');
    await writeFile(serviceFile, 'service: shop\n');
    await writeDevState(
      path.join(dir, '.rocketmq-lambda'),
      devStateFixture({
        serviceDir: dir,
        configFile: serviceFile,
        nameServer: '127.0.0.1:19876',
        mappings: [
          {
            name: 'orders',
            functionName: 'orders',
            topic: 'Orders',
            consumerGroup: 'orders-lambda',
            offsetsTable: 'dev-offsets',
          },
        ],
      }),
    );
    const target = await openCommandTarget({ cwd: dir }, io);
    try {
      expect(target.source).toBe(`dev session (pid ${process.pid}) of serverless.yml`);
      expect(target.client.nameServer.addresses).toEqual(['127.0.0.1:19876']);
      expect(target.config.offsets).toMatchObject({
        store: 'dynamodb',
        table: 'dev-offsets',
        endpoint: 'http://127.0.0.1:41234',
        region: 'us-east-1',
      });
      expect(target.mapping()).toMatchObject({
        name: 'orders',
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
      });
    } finally {
      await target.close();
    }
  });

  it('refuses when there is neither --config nor a serverless.yml', async () => {
    await expect(openCommandTarget({ cwd: dir }, io)).rejects.toThrow(
      `no --config given and no serverless.yml or serverless.yaml in ${dir}: pass --config <poller config or serverless.yml>`,
    );
  });

  it('passes an invalid config on as a ConfigError', async () => {
    await writeFile(
      path.join(dir, 'bad.yaml'),
      'nameServer: 127.0.0.1:9876\nmappings: []\noffsets: { store: nope }\n',
    );
    await expect(openCommandTarget({ config: 'bad.yaml', cwd: dir }, io)).rejects.toBeInstanceOf(ConfigError);
  });

  it("asks for --offsets-table when the deployed table's name was generated", async () => {
    await writeFile(
      path.join(dir, 'serverless.yml'),
      `service: shop
provider: { name: aws, region: eu-west-1 }
custom: { rocketmq: { nameServers: '10.0.0.1:9876' } }
functions:
  orders:
    handler: orders.handler
    events:
      - rocketmq: { topic: Orders, consumerGroup: orders-fn }
`,
    );
    await expect(openCommandTarget({ cwd: dir }, io)).rejects.toThrow(/pass --offsets-table <name>/);
    const target = await openCommandTarget({ cwd: dir, offsetsTable: 'shop-offsets' }, io);
    try {
      expect(target.source).toBe('serverless.yml (deployed)');
      expect(target.client.nameServer.addresses).toEqual(['10.0.0.1:9876']);
      expect(target.config.offsets).toMatchObject({
        store: 'dynamodb',
        table: 'shop-offsets',
        region: 'eu-west-1',
      });
      expect(target.mapping()).toMatchObject({ name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn' });
      expect(target.config.tls).toBeUndefined();
    } finally {
      await target.close();
    }
  });

  it("talks TLS to a deployed service's brokers as its poller does (custom.rocketmq.tls)", async () => {
    await writeFile(
      path.join(dir, 'serverless.yml'),
      `service: shop
provider: { name: aws, region: eu-west-1 }
custom:
  rocketmq:
    nameServers: 'ns.internal:9876'
    offsetsTable: { existing: shop-offsets }
    tls: { serverName: rocketmq.internal, verifyServer: false }
functions:
  orders:
    handler: orders.handler
    events:
      - rocketmq: { topic: Orders, consumerGroup: orders-fn }
`,
    );
    const target = await openCommandTarget({ cwd: dir }, io);
    try {
      expect(target.config.tls).toMatchObject({ serverName: 'rocketmq.internal', verifyServer: false });
    } finally {
      await target.close();
    }
  });
});
