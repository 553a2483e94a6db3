import { describe, expect, it } from 'vitest';
import { devCommand, startedLine } from '../../../src/cli/dev-command.js';
import { EXIT_USAGE } from '../../../src/cli/exit-codes.js';
import { localBrokersLine } from '../../../src/dev/local-rocketmq.js';
import { formatMinutes } from '../../../src/util/format-minutes.js';
import { runCaptured } from '../../support/fake-cli-io.js';

describe('dev: --local-broker, --local-cluster, --with-slaves', () => {
  it('takes one source of RocketMQ at a time, and --with-slaves only with --local-cluster', async () => {
    for (const [args, message] of [
      [['--local-broker', '--local-cluster'], /not --local-broker and --local-cluster/],
      [['--name-server', '127.0.0.1:9876', '--local-cluster'], /not --name-server and --local-cluster/],
      [['--name-server', '127.0.0.1:9876', '--local-broker'], /not --name-server and --local-broker/],
      [['--local-broker', '--with-slaves'], /--with-slaves needs --local-cluster/],
    ] as const) {
      const { code, err } = await runCaptured((io) => devCommand([...args], io));
      expect(code, err).toBe(EXIT_USAGE);
      expect(err).toMatch(message);
    }
  });

  it('prints the local brokers after the name server line', () => {
    const state = { topics: ['Orders'] } as Parameters<typeof startedLine>[0]['state'];
    expect(startedLine({ nameServer: '127.0.0.1:1', state })).toBe(
      'name server 127.0.0.1:1 (rocketmq-lambda send --topic Orders --body hi sends a test message)',
    );
    const local = {
      kind: 'cluster' as const,
      clusterName: 'DefaultCluster',
      brokers: [
        { brokerName: 'broker-a', brokerId: 0, address: '127.0.0.1:2' },
        { brokerName: 'broker-a', brokerId: 1, address: '127.0.0.1:4' },
        { brokerName: 'broker-b', brokerId: 0, address: '127.0.0.1:6' },
      ],
      reused: false,
      keptForMs: undefined,
    };
    expect(startedLine({ nameServer: '127.0.0.1:1', state, local }).split('\n')).toEqual([
      'name server 127.0.0.1:1 (rocketmq-lambda send --topic Orders --body hi sends a test message)',
      'local cluster DefaultCluster: broker-a 127.0.0.1:2 (master), broker-a 127.0.0.1:4 (slave 1), broker-b 127.0.0.1:6 (master)',
    ]);
  });
});

describe('localBrokersLine of a kept broker', () => {
  const broker = {
    kind: 'broker' as const,
    clusterName: 'DefaultCluster',
    brokers: [{ brokerName: 'broker-a', brokerId: 0, address: '127.0.0.1:2' }],
  };

  it('says whether the broker was kept from an earlier run and how long it stays up', () => {
    expect(localBrokersLine({ ...broker, reused: true, keptForMs: 900_000 })).toBe(
      'local broker DefaultCluster: broker-a 127.0.0.1:2 (master); kept from an earlier run, kept up 15 min after this one',
    );
    expect(localBrokersLine({ ...broker, reused: false, keptForMs: 90_000 })).toBe(
      'local broker DefaultCluster: broker-a 127.0.0.1:2 (master); started now, kept up 1.5 min after this one',
    );
    expect(localBrokersLine({ ...broker, reused: false, keptForMs: undefined })).toBe(
      'local broker DefaultCluster: broker-a 127.0.0.1:2 (master)',
    );
  });

  it('formats the idle time in minutes, or seconds under a minute', () => {
    expect([formatMinutes(30_000), formatMinutes(60_000), formatMinutes(150_000)]).toEqual([
      '30 s',
      '1 min',
      '2.5 min',
    ]);
  });
});
