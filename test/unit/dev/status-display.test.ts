import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  formatMappingLine,
  type MappingLine,
  StatusDisplay,
  type TextStream,
} from '../../../src/dev/status-display.js';

const line: MappingLine = {
  name: 'orders',
  topic: 'Orders',
  consumerGroup: 'orders-lambda',
  state: 'running',
  queues: 4,
  pending: 2,
  invocations: 3,
  failures: 1,
};

function recordingStream(): { stream: TextStream; written: string[] } {
  const written: string[] = [];
  const stream = {
    write: ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as TextStream['write'],
  };
  return { stream, written };
}

describe('StatusDisplay', () => {
  it('formats a mapping line', () => {
    expect(formatMappingLine(line)).toBe(
      'orders  Orders → orders-lambda  running  queues 4  pending 2  invocations 3  failures 1',
    );
  });

  it('on a terminal, redraws the block in place and erases it before other writes', () => {
    const { stream, written } = recordingStream();
    const display = new StatusDisplay({ stream, tty: true, log: pino({ level: 'silent' }) });
    display.render([line]);
    display.render([{ ...line, invocations: 4 }]);
    stream.write('handler output\n');
    display.close();
    expect(written).toEqual([
      `\x1b[2K${formatMappingLine(line)}\n`,
      '\x1b[1F\x1b[J',
      `\x1b[2K${formatMappingLine({ ...line, invocations: 4 })}\n`,
      '\x1b[1F\x1b[J',
      'handler output\n',
    ]);
  });

  it('without a terminal, logs a mapping only when its numbers changed', () => {
    const { stream, written } = recordingStream();
    const logged: string[] = [];
    const log = pino({ level: 'info' }, { write: (text: string) => logged.push(text) });
    const display = new StatusDisplay({ stream, tty: false, log });
    display.render([line]);
    display.render([line]);
    display.render([{ ...line, failures: 2 }]);
    display.close();
    expect(written).toEqual([]);
    expect(logged.map((text) => (JSON.parse(text) as { failures: number; msg: string }).failures)).toEqual([
      1, 2,
    ]);
  });
});
