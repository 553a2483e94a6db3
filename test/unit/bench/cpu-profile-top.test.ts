import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { topSelfTime } from '../../../bench/cpu-profile-top.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function profileFile(profile: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cpu-profile-top-'));
  dirs.push(dir);
  const file = join(dir, 'run.cpuprofile');
  await writeFile(file, JSON.stringify(profile));
  return file;
}

describe('topSelfTime', () => {
  it('sums each frame’s sample time, merges nodes of one frame on different call paths, and orders by self time', async () => {
    const frame = (functionName: string, url: string, lineNumber: number) => ({
      functionName,
      url,
      lineNumber,
    });
    const file = await profileFile({
      nodes: [
        { id: 1, callFrame: frame('(root)', '', -1) },
        {
          id: 2,
          callFrame: frame(
            'serializeLayouts',
            'file:///repo/node_modules/.cache/x/src/invoke/event-builder.js',
            9,
          ),
        },
        { id: 3, callFrame: frame('', 'file:///repo/node_modules/@smithy/core/dist/index.js', 99) },
        {
          id: 4,
          callFrame: frame(
            'serializeLayouts',
            'file:///repo/node_modules/.cache/x/src/invoke/event-builder.js',
            9,
          ),
        },
      ],
      samples: [2, 3, 4, 2, 1],
      timeDeltas: [1000, 3000, 1000, 1000, 4000],
    });
    expect(await topSelfTime(file, 2)).toEqual([
      { frame: '(root)', selfMs: 4, percent: 40 },
      { frame: 'serializeLayouts (src/invoke/event-builder.js:10)', selfMs: 3, percent: 30 },
    ]);
    expect((await topSelfTime(file, 3))[2]).toEqual({
      frame: '(anonymous) (@smithy/core/dist/index.js:100)',
      selfMs: 3,
      percent: 30,
    });
  });
});
