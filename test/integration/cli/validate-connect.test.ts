/**
 * `rocketmq-lambda validate --connect` against the real broker: the checks a poller meets when it starts
 * (mapping-broker-checks.ts), run on their own. A topic with a route passes; a topic without one is named,
 * with exit 1; an SQL92 filter goes to the broker's CHECK_CLIENT_CONFIG. The broker compiles every
 * filter our local checker accepts (test/integration/client/sql92-filter.test.ts: it accepts a superset),
 * so the filter case here is one the broker accepts, and one on a missing topic, which is reported once,
 * for the topic, before any broker could be asked.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateCommand } from '../../../src/cli/validate-command.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient } from '../client/helpers.js';

let client: RocketMQClient;
let dir: string;
let existing: string;

beforeAll(async () => {
  client = newClient();
  dir = await mkdtemp(path.join(tmpdir(), 'validate-connect-'));
  await writeFile(path.join(dir, 'h.js'), 'export const handler = async () => ({});\n');
  existing = uniqueTopic('Validate');
  await createTopic(client, existing, 1);
});
afterAll(async () => {
  await client.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes a poller config with one mapping `orders` of `topic` (and `filter`, when given). */
async function pollerConfig(topic: string, filter?: { sql: string }): Promise<string> {
  const file = path.join(dir, `${topic}.json`);
  await writeFile(
    file,
    JSON.stringify({
      nameServer: testBroker().namesrvAddr,
      offsets: { store: 'memory' },
      mappings: [
        {
          name: 'orders',
          topic,
          consumerGroup: uniqueGroup('Validate'),
          function: 'local:./h.js',
          ...(filter === undefined ? {} : { filter }),
        },
      ],
    }),
  );
  return file;
}

function validate(args: string[]) {
  return runCaptured((io) => validateCommand(args, io));
}

describe('rocketmq-lambda validate --connect', () => {
  it('passes a mapping whose topic exists (exit 0)', async () => {
    const file = await pollerConfig(existing);
    expect(await validate(['--config', file, '--connect'])).toEqual({
      code: 0,
      out: 'ok: 1 mapping\n',
      err: '',
    });
  });

  it('names a topic that does not exist on the name servers (exit 1)', async () => {
    const missing = uniqueTopic('Missing');
    const file = await pollerConfig(missing);
    // Without --connect the config alone is valid: only the broker knows the topic is missing.
    expect((await validate(['--config', file])).code).toBe(0);

    const result = await validate(['--config', file, '--connect']);
    expect(result.code).toBe(1);
    expect(result.out).toBe('valid: 1 mapping, but --connect found 1 problem(s)\n');
    // One problem, one line (the name server's remark ends with a line break and a FAQ link).
    expect(result.err).toMatch(
      new RegExp(
        `^${escapeRegExp(file)}: mappings\\.orders\\.topic: ${missing}: no route on the name servers: `,
      ),
    );
    expect(result.err).toContain('TOPIC_NOT_EXIST');
    expect(result.err.match(/mappings\./g)).toHaveLength(1);
    expect(result.err.trimEnd().split('\n')).toHaveLength(1);
  });

  it('has the broker compile an SQL92 filter: one it accepts passes (exit 0)', async () => {
    const file = await pollerConfig(existing, { sql: "region = 'eu' AND amount BETWEEN 1 AND 100" });
    expect(await validate(['--config', file, '--connect', '--json'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('"ok":true'),
      err: '',
    });
  });

  it('reports an SQL92 filter on a missing topic once, for the topic (exit 1)', async () => {
    const missing = uniqueTopic('Missing');
    const file = await pollerConfig(missing, { sql: 'amount > 10' });
    const result = await validate(['--config', file, '--connect', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as { ok: boolean; problems: string[]; connectProblems: string[] };
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([]);
    expect(report.connectProblems).toHaveLength(1);
    expect(report.connectProblems[0]).toContain(`mappings.orders.topic: ${missing}: no route`);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
