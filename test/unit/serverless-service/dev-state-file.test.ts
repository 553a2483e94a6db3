import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEV_STATE_FILE,
  DevStateFileError,
  devStatePath,
  readDevState,
  removeDevState,
  writeDevState,
} from '../../../src/serverless-service/dev-state-file.js';
import { isProcessAlive } from '../../../src/util/process-alive.js';
import { devStateFixture } from '../../support/dev-state.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function stateDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'dev-state-'));
  dirs.push(dir);
  return path.join(dir, '.rocketmq-lambda');
}

const state = devStateFixture;

/** The pid of a process that has exited (so no process has it, barring reuse within the test). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('dev.json', () => {
  it('round-trips through write and read, creating the state directory, and is gone after remove', async () => {
    const dir = await stateDir();
    await writeDevState(dir, state());
    expect(devStatePath(dir)).toBe(path.join(dir, DEV_STATE_FILE));
    expect(JSON.parse(await readFile(path.join(dir, 'dev.json'), 'utf8'))).toEqual(state());
    expect(await readDevState(dir)).toEqual(state());
    await removeDevState(dir);
    expect(await readDevState(dir)).toBeUndefined();
    await removeDevState(dir); // already gone: no error
  });

  it('reads as no session when the file is absent or its process is gone', async () => {
    const dir = await stateDir();
    expect(await readDevState(dir)).toBeUndefined();
    const pid = deadPid();
    expect(isProcessAlive(pid)).toBe(false);
    await writeDevState(dir, state({ pid }));
    expect(await readDevState(dir)).toBeUndefined();
  });

  it('names the file and the problem when dev.json is not JSON or not a version-1 state', async () => {
    const dir = await stateDir();
    await writeDevState(dir, state());
    const file = devStatePath(dir);
    await writeFile(file, '{ not json');
    await expect(readDevState(dir)).rejects.toThrow(DevStateFileError);
    await expect(readDevState(dir)).rejects.toThrow(`${file}: not JSON`);

    await writeFile(file, JSON.stringify({ ...state(), version: 2, nameServer: 'nowhere', extra: 1 }));
    const error = await readDevState(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DevStateFileError);
    const message = (error as Error).message;
    expect(message).toContain(file);
    expect(message).toContain('version');
    expect(message).toContain('nameServer: must be host:port[;host:port]');
    expect(message).toContain('extra');
    expect((error as DevStateFileError).permanent).toBe(true);
  });

  it('refuses to write a state that does not follow the schema (a relative path, a bad endpoint)', async () => {
    const dir = await stateDir();
    await expect(writeDevState(dir, state({ serviceDir: 'app' }))).rejects.toThrow(/absolute/);
    await expect(writeDevState(dir, state({ dynamoDbEndpoint: 'localhost:8000' }))).rejects.toThrow();
    await writeDevState(dir, state({ nameServer: '10.0.0.1:9876;10.0.0.2:9876' }));
    expect((await readDevState(dir))?.nameServer).toBe('10.0.0.1:9876;10.0.0.2:9876');
  });
});
