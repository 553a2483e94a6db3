/**
 * The dev console page's pure helpers (src/dev/console/assets/console-format.js, plain browser JS run
 * here in Node): bodies decoded for display (text, JSON pretty-printed, binary as a hex dump), the
 * page's routes, the invocation filters and what the replay and send forms accept or refuse. The page
 * itself never sets message content as HTML: its scripts have no HTML sink at all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bodyPreview,
  describeBody,
  describeHealth,
  describeResponse,
  formatDuration,
  hexDump,
  invocationFilters,
  parseEvent,
  parseProperties,
  parseRoute,
  routeHash,
  sendRequest,
  summaryMatches,
  totalLag,
} from '../../../src/dev/console/assets/console-format.js';

const ASSETS = new URL('../../../src/dev/console/assets/', import.meta.url);

describe('record bodies', () => {
  it('shows text as is, JSON pretty-printed and binary as an xxd-like hex dump', () => {
    expect(describeBody({ kind: 'text', text: 'hi <b>there</b>' })).toEqual({
      label: 'text',
      text: 'hi <b>there</b>',
    });
    expect(describeBody({ kind: 'json', json: { orderId: 7, items: [1] } })).toEqual({
      label: 'JSON',
      text: '{\n  "orderId": 7,\n  "items": [\n    1\n  ]\n}',
    });
    const hex = Buffer.concat([Buffer.from('Hello, binary world!'), Buffer.from([0, 0xff])]).toString('hex');
    expect(describeBody({ kind: 'binary', hex, bytes: 22 })).toEqual({
      label: 'binary, 22 bytes',
      text: [
        '00000000  48 65 6c 6c 6f 2c 20 62 69 6e 61 72 79 20 77 6f  |Hello, binary wo|',
        '00000010  72 6c 64 21 00 ff                                |rld!..|',
      ].join('\n'),
    });
  });

  it('refuses a hex string that is not whole bytes, naming it', () => {
    expect(() => hexDump('abc')).toThrow('not a hex string of whole bytes: "abc"');
    expect(() => hexDump('zz')).toThrow('"zz"');
    expect(hexDump('')).toBe('');
  });

  it('labels an unknown body shape instead of guessing', () => {
    expect(describeBody({ kind: 'weird' })).toEqual({
      label: 'unknown body',
      text: '{\n  "kind": "weird"\n}',
    });
  });

  it('previews a body on one line, cut with an ellipsis', () => {
    expect(bodyPreview({ kind: 'json', json: { a: 1 } })).toBe('{"a":1}');
    expect(bodyPreview({ kind: 'text', text: 'one\ntwo' })).toBe('one two');
    expect(bodyPreview({ kind: 'text', text: 'x'.repeat(100) }, 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('responses, durations, lag and health', () => {
  it('shows a result as JSON and an error as its type and message', () => {
    expect(describeResponse({ kind: 'result', value: { batchItemFailures: [] } })).toEqual({
      label: 'result',
      text: '{\n  "batchItemFailures": []\n}',
    });
    expect(
      describeResponse({ kind: 'error', errorType: 'TypeError', errorMessage: 'x is undefined' }),
    ).toEqual({
      label: 'error',
      text: 'TypeError: x is undefined',
    });
  });

  it('formats durations in ms, s and min', () => {
    expect([12.4, 1250, 125_000].map(formatDuration)).toEqual(['12 ms', '1.25 s', '2 min 5 s']);
    expect(formatDuration(undefined)).toBe('–');
  });

  it('sums the known lag of the queues, null when none is known', () => {
    expect(totalLag([{ lag: 3 }, { lag: null }, { lag: 4 }])).toBe(7);
    expect(totalLag([{ lag: null }])).toBeNull();
    expect(describeHealth({ healthy: false, reason: 'no route to Orders' })).toBe(
      'unhealthy: no route to Orders',
    );
    expect(describeHealth({ healthy: true })).toBe('healthy');
  });
});

describe('routes', () => {
  it('round-trips every view through its hash', () => {
    const cases = [
      ['mappings', undefined, {}],
      ['invocations', undefined, { mapping: 'orders', outcome: 'dead-lettered' }],
      ['invocation', 'inv/1 2', {}],
      ['send', undefined, {}],
      ['dead-letters', undefined, { group: 'orders-lambda', all: 'true' }],
      ['filtered', undefined, { mapping: 'orders' }],
      ['message', 'C0A8000100002A9F', {}],
    ] as const;
    for (const [view, id, query] of cases) {
      const route = parseRoute(routeHash(view, id, query));
      expect(route).toEqual(id === undefined ? { view, query } : { view, id, query });
    }
    expect(parseRoute('')).toEqual({ view: 'mappings', query: {} });
    expect(parseRoute('#/nowhere')).toEqual({ view: 'mappings', query: {} });
    expect(routeHash('invocations', undefined, { mapping: ' ', key: ' k ' })).toBe('#/invocations?key=k');
  });

  it('refuses an unknown view by name', () => {
    // @ts-expect-error: not a view
    expect(() => routeHash('graphs')).toThrow('unknown view "graphs"');
  });
});

describe('the invocation filters', () => {
  it('keeps the known filters that have a value', () => {
    expect(invocationFilters({ mapping: 'orders', outcome: '', key: ' k1 ', other: 'x' })).toEqual({
      mapping: 'orders',
      key: 'k1',
    });
  });

  it('adds a live invocation to a list only when its summary says it matches', () => {
    const summary = { mappingId: 'orders', outcome: 'partial', messageIds: ['m1', 'm2'] };
    expect(summaryMatches(summary, {})).toBe('yes');
    expect(summaryMatches(summary, { mapping: 'ledger' })).toBe('no');
    expect(summaryMatches(summary, { messageId: 'm2', outcome: 'partial' })).toBe('yes');
    expect(summaryMatches(summary, { messageId: 'm3' })).toBe('no');
    expect(summaryMatches(summary, { outcome: 'succeeded' })).toBe('no');
    // A record outcome or a key: the summary does not say, the list must be reloaded to know.
    expect(summaryMatches(summary, { outcome: 'retried' })).toBe('unknown');
    expect(summaryMatches(summary, { key: 'order-1' })).toBe('unknown');
  });
});

describe('the replay editor', () => {
  it('accepts a JSON object and names what is wrong with anything else', () => {
    expect(parseEvent('{"Records":[]}')).toEqual({ event: { Records: [] } });
    expect(parseEvent('{"Records": [}').error).toMatch(/^the event is not valid JSON: /);
    expect(parseEvent('[1]')).toEqual({ error: 'the event must be a JSON object, not an array' });
    expect(parseEvent('null')).toEqual({ error: 'the event must be a JSON object, not null' });
    expect(parseEvent('"x"')).toEqual({ error: 'the event must be a JSON object, not string' });
  });
});

describe('the send form', () => {
  it('builds the send request, leaving out empty tags, keys and properties', () => {
    expect(
      sendRequest({ topic: ' Orders ', body: '{"orderId":1}', tags: '', keys: ' ', properties: '' }),
    ).toEqual({
      request: { topic: 'Orders', body: '{"orderId":1}' },
    });
    expect(
      sendRequest({
        topic: 'Orders',
        body: 'x',
        tags: 'order',
        keys: 'order-1, order-2\norder-3',
        properties: 'a=1\n\n b = two=2 ',
      }),
    ).toEqual({
      request: {
        topic: 'Orders',
        body: 'x',
        tags: 'order',
        keys: ['order-1', 'order-2', 'order-3'],
        properties: { a: '1', b: 'two=2' },
      },
    });
  });

  it('names the missing topic and the bad property line', () => {
    expect(sendRequest({ topic: ' ', body: 'x' })).toEqual({ error: 'a topic is required' });
    expect(sendRequest({ topic: 'T', properties: 'a=1\nnovalue' })).toEqual({
      error: 'property line 2 is not name=value: "novalue"',
    });
    expect(parseProperties('=1')).toEqual({ error: 'property line 1 is not name=value: "=1"' });
    expect(parseProperties('a=1\na=2')).toEqual({ error: 'property "a" is given twice (line 2)' });
  });
});

describe('the page scripts', () => {
  it('never write HTML: message content is set as text only', () => {
    const scripts = readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    expect(scripts).toEqual(expect.arrayContaining(['console.js', 'console-format.js']));
    for (const file of scripts) {
      const source = readFileSync(new URL(file, ASSETS), 'utf8');
      expect(source, file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|eval\(/,
      );
    }
  });

  it('load nothing from the network but the dev loop itself', () => {
    for (const file of readdirSync(ASSETS)) {
      const source = readFileSync(new URL(file, ASSETS), 'utf8');
      expect(source, file).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    }
  });
});
