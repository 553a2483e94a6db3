/**
 * How `dlq show` prints dead letters: a block of a few lines per message for people, or one JSON object
 * per line (`--json`, body in base64) for tools.
 */
import { isUtf8 } from 'node:buffer';
import type { DeadLetterView } from '../operations/dead-letter.js';
import { CompressionType } from '../protocol/compression.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import type { TerminalStyle } from './terminal-style.js';

/** Characters of a body shown before it is cut. */
export const BODY_PREVIEW_CHARS = 200;

/**
 * A short, one-line view of a body: its UTF-8 text (escaped line breaks, cut after
 * {@link BODY_PREVIEW_CHARS} characters) when it is printable text, else `<n bytes binary>`.
 */
export function bodyPreview(body: Buffer, maxChars = BODY_PREVIEW_CHARS): string {
  if (body.length === 0) return '<empty>';
  if (!isUtf8(body)) return `<${body.length} bytes binary>`;
  const text = body.toString('utf8');
  // Control characters other than line breaks and tabs make a body binary for a terminal.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return `<${body.length} bytes binary>`;
  const oneLine = text.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  const chars = [...oneLine];
  if (chars.length <= maxChars) return oneLine;
  return `${chars.slice(0, maxChars).join('')}… (${body.length} bytes)`;
}

/**
 * The text block of one dead letter.
 */
export function renderDeadLetter(view: DeadLetterView, style: TerminalStyle): string {
  const lines = [
    `${style.bold(`#${view.dlqOffset}`)}  msgId ${view.msgId}  dead-lettered ${isoTime(view.storeTimestamp)}  reconsume times ${view.reconsumeTimes}`,
    `    original topic ${view.originalTopic ?? style.yellow('(not recorded)')}  original msgId ${view.originalMsgId ?? '(not recorded)'}`,
    `    tags ${view.tags ?? '-'}  keys ${view.keys.length === 0 ? '-' : view.keys.join(' ')}`,
  ];
  const properties = Object.entries(view.userProperties);
  if (properties.length > 0) {
    lines.push(`    properties ${properties.map(([key, value]) => `${key}=${value}`).join(' ')}`);
  }
  lines.push(
    view.tooLarge === undefined
      ? `    body ${bodyPreview(view.body)}`
      : `    body ${style.yellow(`<too large to inflate: ${view.tooLarge.reason}>`)}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * One JSON line of a dead letter: every field, the body in base64.
 */
export function deadLetterJsonLine(queue: MessageQueue, view: DeadLetterView): string {
  return `${JSON.stringify({
    dlqTopic: queue.topic,
    brokerName: queue.brokerName,
    queueId: queue.queueId,
    dlqOffset: view.dlqOffset,
    msgId: view.msgId,
    offsetMsgId: view.offsetMsgId,
    originalTopic: view.originalTopic ?? null,
    originalMsgId: view.originalMsgId ?? null,
    reconsumeTimes: view.reconsumeTimes,
    storeTimestamp: view.storeTimestamp,
    storeTime: isoTime(view.storeTimestamp),
    bornTimestamp: view.bornTimestamp,
    tags: view.tags ?? null,
    keys: view.keys,
    properties: view.userProperties,
    flag: view.flag,
    bodyBytes: view.body.length,
    body: view.body.toString('base64'),
    // A body too large to inflate: the reason, and the body as stored (compressed) in base64.
    ...(view.tooLarge === undefined
      ? {}
      : {
          tooLarge: view.tooLarge.reason,
          storedBody: view.tooLarge.storedBody.toString('base64'),
          storedCompression: compressionName(view.tooLarge.compression),
        }),
  })}\n`;
}

function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

function compressionName(type: CompressionType): string {
  return type === CompressionType.LZ4 ? 'lz4' : type === CompressionType.ZSTD ? 'zstd' : 'zlib';
}
