/**
 * The bytes of a readable stream, read to its end. A stream that errors or closes before its end rejects
 * (async iteration sees a premature close). Cheaper than `node:stream/consumers`' `buffer()`, which goes
 * through a Blob (a transferable object and a copy per call): the invoke path reads one answer per
 * invoke (bench/invoke-overhead.ts profiles it).
 */
export async function readStream(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  const [first] = chunks;
  return chunks.length === 1 && first !== undefined ? first : Buffer.concat(chunks);
}
