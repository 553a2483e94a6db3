import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DLQ_USAGE, dlqCommand, unreadableDlqHint } from '../../../src/cli/dlq-command.js';
import { runCaptured } from '../../support/fake-cli-io.js';

let dir: string;
let configFile: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rl-dlq-unit-'));
  await writeFile(path.join(dir, 'h.js'), 'export const handler = async () => ({});\n');
  configFile = path.join(dir, 'poller.json');
  // Port 1: nothing listens, so any test that connected would fail instead of passing.
  await writeFile(
    configFile,
    JSON.stringify({
      nameServer: '127.0.0.1:1',
      offsets: { store: 'memory' },
      mappings: [
        { name: 'orders', topic: 'Orders', consumerGroup: 'G1', function: 'local:./h.js', orderly: true },
        { name: 'audit', topic: 'Orders', consumerGroup: 'G2', function: 'local:./h.js' },
      ],
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function dlq(args: string[], deps: Parameters<typeof dlqCommand>[2] = { confirm: undefined }) {
  return runCaptured((io) => dlqCommand(args, io, deps));
}

describe('dlq command line', () => {
  it('wants a subcommand', async () => {
    expect(await dlq([])).toMatchObject({
      code: 2,
      err: `rocketmq-lambda dlq: missing subcommand (show or redrive)\n\n${DLQ_USAGE}`,
    });
    expect((await dlq(['purge'])).err).toContain('unknown subcommand purge');
    expect(await dlq(['--help'])).toMatchObject({ code: 0, out: DLQ_USAGE });
  });

  it('documents both subcommands, and the reach of --to topic', async () => {
    const show = await dlq(['show', '--help']);
    expect(show.code).toBe(0);
    expect(show.out).toContain('--all');
    expect(show.out).toContain('--json');
    const redrive = await dlq(['redrive', '--help']);
    expect(redrive.code).toBe(0);
    expect(redrive.out).toContain('EVERY consumer group\nsubscribed to that topic receives it again');
    expect(redrive.out).toMatch(/--to <target>.*\(choices: "retry", "topic", default: "retry"\)/s);
    expect(redrive.out).toContain('Exit codes:');
  });

  it('refuses contradictory or malformed options with exit 2', async () => {
    const both = await dlq(['show', '--config', configFile, '--from', '3', '--all']);
    expect(both).toMatchObject({ code: 2 });
    expect(both.err).toContain('use --from <offset> or --all, not both');
    expect((await dlq(['show', '--limit', '0'])).code).toBe(2);
    expect((await dlq(['show', '--from', '-1'])).code).toBe(2);
    const to = await dlq(['redrive', '--to', 'elsewhere', '--yes']);
    expect(to.code).toBe(2);
    expect(to.err).toContain("argument 'elsewhere' is invalid");
  });

  it('will not send without --yes when nobody can confirm', async () => {
    const result = await dlq(['redrive', '--config', configFile, '--mapping', 'audit']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('pass --yes to send (or --dry-run to list what would be sent)');
  });

  it('refuses --to retry for an orderly mapping before connecting', async () => {
    const result = await dlq(['redrive', '--config', configFile, '--mapping', 'orders', '--yes']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('mapping orders is orderly');
    expect(result.err).toContain('use --to topic');
  });

  it('names the mappings when --mapping is missing or wrong', async () => {
    const missing = await dlq(['show', '--config', configFile]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('pass --mapping <orders|audit>');
    const typo = await dlq(['show', '--config', configFile, '--mapping', 'odrers']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('did you mean orders?');
  });
});

describe('unreadableDlqHint', () => {
  it('gives the mqadmin line that makes the DLQ readable', () => {
    expect(unreadableDlqHint('%DLQ%G', ['ns1:9876', 'ns2:9876'], '10.0.0.5:10911')).toBe(
      '%DLQ%G is not readable: older brokers (4.x) create DLQ topics write-only (perm 2). Make it readable (perm 6, read+write):\n' +
        "  mqadmin updateTopicPerm -n 'ns1:9876;ns2:9876' -b 10.0.0.5:10911 -t '%DLQ%G' -p 6\n",
    );
  });
});
