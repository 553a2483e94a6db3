/**
 * `offsets show` and `offsets reset` refuse a consumeMode POP mapping before asking anything of a broker
 * or a store (its position is the broker's, the offsets table holds nothing of it), name it, and say
 * what to use instead; `offsets show` of every mapping skips the POP ones with that note.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_FAILURE } from '../../../src/cli/exit-codes.js';
import { offsetsCommand } from '../../../src/cli/offsets-command.js';
import { popOffsetsRefusal } from '../../../src/operations/pop-offsets-refusal.js';
import type { TargetMapping } from '../../../src/operations/target.js';
import { runCaptured } from '../../support/fake-cli-io.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pop-refusal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Nothing listens on port 1: a command that reached for the broker would fail, not refuse.
const POP_ONLY = `nameServer: 127.0.0.1:1
offsets: { store: memory }
mappings:
  - { name: audit, topic: Audit, consumerGroup: audit-fn, function: audit-fn, consumeMode: POP, startingPosition: TRIM_HORIZON }
`;
const MIXED = `${POP_ONLY}  - { name: orders, topic: Orders, consumerGroup: orders-fn, function: orders-fn }
`;

const REASON =
  "audit is a consumeMode POP mapping: the brokers keep group audit-fn's position (its consumer offsets, moved at pop time), not the offsets table; see it with rocketmq-lambda status --mapping audit, move it with mqadmin resetOffsetByTime -g audit-fn -t Audit -s <epoch ms|now>";

async function config(text: string): Promise<string> {
  const file = path.join(dir, 'poller.yaml');
  await writeFile(file, text);
  return file;
}

const offsets = (args: string[]) => runCaptured((io) => offsetsCommand(args, io));

describe('popOffsetsRefusal', () => {
  it('refuses POP mappings only', () => {
    const mapping: TargetMapping = {
      name: 'audit',
      topic: 'Audit',
      consumerGroup: 'audit-fn',
      messageModel: 'CLUSTERING',
      startingPosition: 'TRIM_HORIZON',
      startingPositionTimestampMs: undefined,
      offsetStoreKind: 'memory',
      consumeMode: 'POP',
    };
    expect(popOffsetsRefusal(mapping)).toBe(REASON);
    expect(popOffsetsRefusal({ ...mapping, consumeMode: 'PUSH' })).toBeUndefined();
  });
});

describe('offsets reset of a POP mapping', () => {
  it('is refused (exit 1) with the reason and what to do instead, before any broker is asked', async () => {
    const file = await config(POP_ONLY);
    const result = await offsets(['reset', '--config', file, '--to', 'earliest', '--yes']);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.err).toBe(`rocketmq-lambda offsets reset: refused: ${REASON}\n`);
    expect(result.out).toBe('');
  });

  it('is refused for a dry run too', async () => {
    const file = await config(MIXED);
    const result = await offsets(['reset', '--config', file, '--mapping', 'audit', '--to', '0', '--dry-run']);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.err).toContain('refused: audit is a consumeMode POP mapping');
  });
});

describe('offsets show of a POP mapping', () => {
  it('is refused (exit 1) when --mapping names it', async () => {
    const file = await config(MIXED);
    const result = await offsets(['show', '--config', file, '--mapping', 'audit']);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.err).toBe(`rocketmq-lambda offsets show: refused: ${REASON}\n`);
    expect(result.out).toBe('');
  });

  it('is refused when it is the only mapping', async () => {
    const file = await config(POP_ONLY);
    const result = await offsets(['show', '--config', file, '--json']);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.err).toBe(`rocketmq-lambda offsets show: refused: ${REASON}\n`);
  });

  it('is skipped with the note when every mapping is shown, the PUSH ones still are', async () => {
    const file = await config(MIXED);
    const result = await offsets(['show', '--config', file, '--json']);
    expect(result.err).toContain(`rocketmq-lambda offsets show: skipped: ${REASON}\n`);
    // orders is shown (its broker is unreachable here: exit 1 says so, no lag of 0).
    const json = JSON.parse(result.out) as { mappings: { name: string; lag: number | null }[] };
    expect(json.mappings.map((m) => [m.name, m.lag])).toEqual([['orders', null]]);
    expect(result.err).toMatch(
      /rocketmq-lambda offsets show: orders: broker unreachable: the route of topic Orders/,
    );
    expect(result.code).toBe(EXIT_FAILURE);
  });
});
