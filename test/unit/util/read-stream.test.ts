import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStream } from '../../../src/util/read-stream.js';

describe('readStream', () => {
  it('joins every chunk, strings as UTF-8, in order', async () => {
    expect((await readStream(Readable.from([Buffer.from('ab'), 'cé', Buffer.from('d')]))).toString()).toBe(
      'abcéd',
    );
    expect(await readStream(Readable.from([]))).toEqual(Buffer.alloc(0));
  });

  it('gives a single chunk as it came', async () => {
    const chunk = Buffer.from('{"ok":true}');
    expect(await readStream(Readable.from([chunk]))).toBe(chunk);
  });

  it('rejects with the stream’s error', async () => {
    const stream = new PassThrough();
    const read = readStream(stream);
    stream.write('partial');
    stream.destroy(new Error('cut off at the limit'));
    await expect(read).rejects.toThrow('cut off at the limit');
  });

  it('rejects when the stream closes before its end', async () => {
    const stream = new PassThrough();
    const read = readStream(stream);
    stream.write('partial');
    stream.destroy();
    await expect(read).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });
});
