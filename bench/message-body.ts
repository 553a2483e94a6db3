/** The message bodies the bench produces. */

/**
 * A JSON body of exactly `bytes` bytes (ASCII), as an application's message would be; all `x` when
 * `bytes` is too small for the JSON frame.
 *
 * @example
 * ```ts
 * benchMessageBody(0, 7, 64).length; // 64
 * ```
 */
export function benchMessageBody(queueId: number, index: number, bytes: number): Buffer {
  const head = `{"queue":${queueId},"seq":${index},"pad":"`;
  const tail = '"}';
  const padding = bytes - head.length - tail.length;
  return padding < 0 ? Buffer.alloc(bytes, 'x') : Buffer.from(`${head}${'x'.repeat(padding)}${tail}`);
}
