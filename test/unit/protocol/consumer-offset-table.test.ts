import { describe, expect, it } from 'vitest';
import { committedOffsetOf, parseConsumerOffsetTable } from '../../../src/protocol/consumer-offset-table.js';
import { ProtocolError } from '../../../src/protocol/errors.js';

describe('parseConsumerOffsetTable', () => {
  it('reads the fastjson body of a 4.x broker (bare integer queue ids)', () => {
    const body = Buffer.from('{"offsetTable":{"%RETRY%G@G":{0:0},"T@G":{0:5,1:0},"T@H":{3:12}}}');
    const table = parseConsumerOffsetTable(body);
    expect(committedOffsetOf(table, 'G', 'T', 0)).toBe(5);
    expect(committedOffsetOf(table, 'G', 'T', 1)).toBe(0);
    expect(committedOffsetOf(table, 'G', 'T', 2)).toBeUndefined();
    expect(committedOffsetOf(table, 'H', 'T', 3)).toBe(12);
    expect(committedOffsetOf(table, 'G', '%RETRY%G', 0)).toBe(0);
    expect(committedOffsetOf(table, 'X', 'T', 0)).toBeUndefined();
  });

  it('ignores the members 5.x adds beside offsetTable', () => {
    const body = Buffer.from(
      '{"dataVersion":{"counter":3,"stateVersion":0,"timestamp":1},"offsetTable":{"T@G":{0:1}},"pullOffsetTable":{}}',
    );
    expect(committedOffsetOf(parseConsumerOffsetTable(body), 'G', 'T', 0)).toBe(1);
  });

  it('refuses an empty body or a malformed table', () => {
    expect(() => parseConsumerOffsetTable(undefined)).toThrow(ProtocolError);
    expect(() => parseConsumerOffsetTable(Buffer.from('{"offsetTable":[]}'))).toThrow(ProtocolError);
    expect(() => parseConsumerOffsetTable(Buffer.from('{"offsetTable":{"T@G":{0:"x"}}}'))).toThrow(
      ProtocolError,
    );
  });
});
