import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  KEPT_BROKER_FILE_MAX_BYTES,
  type KeptBrokerState,
  keptBrokerLeaseSchema,
  keptBrokerPath,
  keptBrokerStateSchema,
  readKeptBrokerFile,
  removeKeptBrokerFile,
  writeKeptBrokerFile,
} from '../../../src/local-broker/kept-broker-files.js';

const STATE: KeptBrokerState = {
  version: 1,
  hostPid: 4242,
  namesrvAddr: '127.0.0.1:9876',
  brokerAddr: '127.0.0.1:10911',
  brokerName: 'broker-a',
  clusterName: 'DefaultCluster',
  rocketmqVersion: '5.3.3',
  startedAt: '2026-12-07T05:00:00.000Z',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kept-broker-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('kept broker files', () => {
  it('writes and reads back the state and the lease, leaving no temp file', async () => {
    const stateFile = keptBrokerPath(dir, 'state');
    const leaseFile = keptBrokerPath(path.join(dir, 'nested'), 'lease');
    await writeKeptBrokerFile(stateFile, STATE);
    await writeKeptBrokerFile(leaseFile, { version: 1, until: 1_796_000_000_000, holder: 77 });
    expect(await readKeptBrokerFile(stateFile, keptBrokerStateSchema)).toEqual({ value: STATE });
    expect(await readKeptBrokerFile(leaseFile, keptBrokerLeaseSchema)).toEqual({
      value: { version: 1, until: 1_796_000_000_000, holder: 77 },
    });
    expect((await readdir(dir)).sort()).toEqual(['nested', 'state.json']);
    await removeKeptBrokerFile(stateFile);
    await removeKeptBrokerFile(stateFile);
    expect(await readKeptBrokerFile(stateFile, keptBrokerStateSchema)).toEqual({
      value: undefined,
      problem: undefined,
    });
  });

  it.each([
    ['not JSON', '{"version":1,', /state\.json: not JSON/],
    [
      'another version',
      JSON.stringify({ ...STATE, version: 2 }),
      /state\.json: not a kept broker file \(version:/,
    ],
    [
      'an unknown key',
      JSON.stringify({ ...STATE, extra: true }),
      /not a kept broker file \(\(root\): Unrecognized key/,
    ],
    [
      'an address without a port',
      JSON.stringify({ ...STATE, namesrvAddr: 'localhost' }),
      /namesrvAddr: must be host:port/,
    ],
    ['a negative pid', JSON.stringify({ ...STATE, hostPid: -1 }), /hostPid/],
  ])(
    'reads a state file with %s as absent, naming the file and the problem',
    async (_what, text, problem) => {
      const file = keptBrokerPath(dir, 'state');
      await writeFile(file, text);
      const read = await readKeptBrokerFile(file, keptBrokerStateSchema);
      expect(read.value).toBeUndefined();
      expect(read.problem).toMatch(problem);
      expect(read.problem).toContain(file);
    },
  );

  it(`does not read a file over ${KEPT_BROKER_FILE_MAX_BYTES} bytes`, async () => {
    const file = keptBrokerPath(dir, 'lease');
    await writeFile(file, `{"version":1,"until":1,"pad":"${'x'.repeat(KEPT_BROKER_FILE_MAX_BYTES)}"}`);
    const read = await readKeptBrokerFile(file, keptBrokerLeaseSchema);
    expect(read).toEqual({
      value: undefined,
      problem: `${file}: larger than ${KEPT_BROKER_FILE_MAX_BYTES} bytes`,
    });
  });
});
