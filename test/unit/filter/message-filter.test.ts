import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileFilter } from '../../../src/filter/message-filter.js';

/**
 * Whether `pattern` (one pattern) matches the record `metadata` + `body`; a body is matched both as
 * text (parsed whole by JSON.parse) and as bytes (json-body-scanner.ts), which must agree.
 */
function matches(pattern: unknown, metadata: Record<string, unknown>, body?: string | Uint8Array): boolean {
  const filter = compileFilter([pattern]);
  const answer = filter.matches(metadata, body);
  if (body !== undefined) {
    const [text, bytes] =
      typeof body === 'string' ? [body, Buffer.from(body)] : [Buffer.from(body).toString('utf8'), body];
    expect(filter.matches(metadata, bytes), 'the body as bytes').toBe(answer);
    expect(filter.matches(metadata, text), 'the body as text').toBe(answer);
  }
  return answer;
}

describe('compileFilter: exact values', () => {
  it('matches strings, numbers, booleans and null by value and type', () => {
    expect(matches({ tags: ['paid'] }, { tags: 'paid' })).toBe(true);
    expect(matches({ tags: ['paid'] }, { tags: 'PAID' })).toBe(false);
    expect(matches({ n: [5] }, { n: 5 })).toBe(true);
    expect(matches({ n: [5] }, { n: '5' })).toBe(false);
    expect(matches({ s: ['5'] }, { s: 5 })).toBe(false);
    expect(matches({ b: [true] }, { b: true })).toBe(true);
    expect(matches({ b: [true] }, { b: 'true' })).toBe(false);
    expect(matches({ z: [null] }, { z: null })).toBe(true);
    expect(matches({ z: [null] }, {})).toBe(false);
    expect(matches({ e: [''] }, { e: '' })).toBe(true);
  });

  it('compares numbers by value: 5 in a pattern matches 5.0 and 5e0 in a JSON body', () => {
    expect(matches({ body: { n: [5] } }, {}, '{"n": 5.0}')).toBe(true);
    expect(matches({ body: { n: [300] } }, {}, '{"n": 3e2}')).toBe(true);
  });

  it('treats the values of a rule array as alternatives, and an event array as any of its elements', () => {
    expect(matches({ tags: ['a', 'b'] }, { tags: 'b' })).toBe(true);
    expect(matches({ tags: ['a', 'b'] }, { tags: 'c' })).toBe(false);
    expect(matches({ keys: ['k2'] }, { keys: ['k1', 'k2'] })).toBe(true);
    expect(matches({ keys: ['k3'] }, { keys: ['k1', ['k2', ['k3']]] })).toBe(true);
    expect(matches({ keys: ['k3'] }, { keys: [] })).toBe(false);
  });

  it('requires every field of a pattern, and passes when any pattern matches', () => {
    expect(matches({ topic: ['t'], tags: ['a'] }, { topic: 't', tags: 'a' })).toBe(true);
    expect(matches({ topic: ['t'], tags: ['a'] }, { topic: 't', tags: 'b' })).toBe(false);
    const filter = compileFilter(['{"tags": ["a"]}', { topic: ['t'] }]);
    expect(filter.patternCount).toBe(2);
    expect(filter.matches({ tags: 'x', topic: 't' })).toBe(true);
    expect(filter.matches({ tags: 'a', topic: 'x' })).toBe(true);
    expect(filter.matches({ tags: 'x', topic: 'x' })).toBe(false);
  });

  it('matches nested objects, and an array of objects when one element matches all the nested fields', () => {
    const pattern = { properties: { region: ['eu'], tier: ['gold'] } };
    expect(matches(pattern, { properties: { region: 'eu', tier: 'gold', other: 'x' } })).toBe(true);
    expect(
      matches(pattern, {
        properties: [
          { region: 'eu', tier: 'silver' },
          { region: 'us', tier: 'gold' },
        ],
      }),
    ).toBe(false);
    expect(matches(pattern, { properties: [{ region: 'us' }, { region: 'eu', tier: 'gold' }] })).toBe(true);
    expect(matches(pattern, { properties: 'eu' })).toBe(false);
    expect(matches({ a: ['x'] }, { a: { b: 'x' } })).toBe(false);
  });

  it("does not read inherited properties of the metadata object ('constructor', '__proto__')", () => {
    expect(matches({ constructor: [{ exists: true }] }, {})).toBe(false);
    expect(matches('{"__proto__": [{"exists": false}]}', {})).toBe(true);
    expect(matches('{"__proto__": [{"exists": true}]}', JSON.parse('{"__proto__": "own"}'))).toBe(true);
  });
});

describe('compileFilter: operators', () => {
  it('prefix and suffix match strings only, with equals-ignore-case inside', () => {
    expect(matches({ t: [{ prefix: 'ord' }] }, { t: 'orders' })).toBe(true);
    expect(matches({ t: [{ prefix: 'ord' }] }, { t: 'Orders' })).toBe(false);
    expect(matches({ t: [{ prefix: '12' }] }, { t: 123 })).toBe(false);
    expect(matches({ t: [{ prefix: { 'equals-ignore-case': 'ORD' } }] }, { t: 'orders' })).toBe(true);
    expect(matches({ t: [{ suffix: '.png' }] }, { t: 'a.png' })).toBe(true);
    expect(matches({ t: [{ suffix: '.png' }] }, { t: 'a.PNG' })).toBe(false);
    expect(matches({ t: [{ suffix: { 'equals-ignore-case': '.png' } }] }, { t: 'a.PNG' })).toBe(true);
    expect(matches({ t: [{ prefix: '' }] }, { t: 'anything' })).toBe(true);
  });

  it('equals-ignore-case matches strings whatever their case', () => {
    expect(matches({ t: [{ 'equals-ignore-case': 'PaId' }] }, { t: 'paid' })).toBe(true);
    expect(matches({ t: [{ 'equals-ignore-case': 'PaId' }] }, { t: 'paid!' })).toBe(false);
  });

  it('wildcard matches strings, * standing for any run of characters', () => {
    expect(matches({ k: [{ wildcard: 'order-*-paid' }] }, { k: 'order-17-paid' })).toBe(true);
    expect(matches({ k: [{ wildcard: 'order-*-paid' }] }, { k: 'order-17-new' })).toBe(false);
    expect(matches({ k: [{ wildcard: '*' }] }, { k: 5 })).toBe(false);
  });

  it('anything-but excludes values, lists and prefixes, suffixes, cases and wildcards, and passes other types', () => {
    expect(matches({ s: [{ 'anything-but': 'stopped' }] }, { s: 'running' })).toBe(true);
    expect(matches({ s: [{ 'anything-but': 'stopped' }] }, { s: 'stopped' })).toBe(false);
    expect(matches({ s: [{ 'anything-but': 'stopped' }] }, { s: 5 })).toBe(true);
    expect(matches({ s: [{ 'anything-but': 'stopped' }] }, {})).toBe(false);
    expect(matches({ n: [{ 'anything-but': [100, 200] }] }, { n: 200 })).toBe(false);
    expect(matches({ n: [{ 'anything-but': [100, 200] }] }, { n: 300 })).toBe(true);
    expect(matches({ n: [{ 'anything-but': 100 }] }, { n: '100' })).toBe(true);
    expect(matches({ s: [{ 'anything-but': ['a', 'b'] }] }, { s: ['a', 'c'] })).toBe(true);
    expect(matches({ s: [{ 'anything-but': { prefix: 'init' } }] }, { s: 'initializing' })).toBe(false);
    expect(matches({ s: [{ 'anything-but': { prefix: ['x', 'init'] } }] }, { s: 'running' })).toBe(true);
    expect(matches({ s: [{ 'anything-but': { suffix: '.tmp' } }] }, { s: 'a.tmp' })).toBe(false);
    expect(matches({ s: [{ 'anything-but': { 'equals-ignore-case': 'Stopped' } }] }, { s: 'STOPPED' })).toBe(
      false,
    );
    expect(matches({ s: [{ 'anything-but': { 'equals-ignore-case': ['Stopped'] } }] }, { s: 'run' })).toBe(
      true,
    );
    expect(matches({ s: [{ 'anything-but': { wildcard: '*/bin/*' } }] }, { s: '/usr/bin/x' })).toBe(false);
    expect(matches({ s: [{ 'anything-but': { wildcard: '*/bin/*' } }] }, { s: '/usr/lib/x' })).toBe(true);
  });

  it('numeric compares numbers, with one bound or a range, and never strings', () => {
    const range = { n: [{ numeric: ['>', 0, '<=', 5] }] };
    expect([0, 0.000001, 5, 5.000001].map((n) => matches(range, { n }))).toEqual([false, true, true, false]);
    expect(matches(range, { n: '3' })).toBe(false);
    expect(matches({ n: [{ numeric: ['>=', 10, '<', 20] }] }, { n: 10 })).toBe(true);
    expect(matches({ n: [{ numeric: ['>=', 10, '<', 20] }] }, { n: 20 })).toBe(false);
    expect(matches({ n: [{ numeric: ['=', 301.8] }] }, { n: 301.8 })).toBe(true);
    expect(matches({ n: [{ numeric: ['<', -5e9] }] }, { n: -6e9 })).toBe(true);
    expect(matches({ n: [{ numeric: ['<=', 1] }] }, { n: 1 })).toBe(true);
    expect(matches({ n: [{ numeric: ['>', 1] }] }, { n: 1 })).toBe(false);
  });

  it('exists matches on leaf values: true needs one (null counts), false needs none', () => {
    expect(matches({ p: [{ exists: true }] }, { p: null })).toBe(true);
    expect(matches({ p: [{ exists: true }] }, {})).toBe(false);
    expect(matches({ p: [{ exists: true }] }, { p: { nested: 1 } })).toBe(false);
    expect(matches({ p: [{ exists: true }] }, { p: [] })).toBe(false);
    expect(matches({ p: [{ exists: false }] }, {})).toBe(true);
    expect(matches({ p: [{ exists: false }] }, { p: { nested: 1 } })).toBe(true);
    expect(matches({ p: [{ exists: false }] }, { p: 'x' })).toBe(false);
    expect(matches({ a: { b: [{ exists: false }] } }, { a: 'leaf' })).toBe(true);
  });

  it('exists: false holds only when no element of any array on the way has the field (as event-ruler)', () => {
    const pattern = { a: { b: [{ exists: false }] } };
    expect(matches(pattern, { a: [{ b: 1 }, { c: 2 }] })).toBe(false);
    expect(matches(pattern, { a: [{ c: 1 }, { c: 2 }] })).toBe(true);
  });

  it('$or needs one branch to match, at the top and nested', () => {
    const top = { $or: [{ tags: ['a'] }, { topic: ['t'] }] };
    expect(matches(top, { tags: 'a' })).toBe(true);
    expect(matches(top, { topic: 't' })).toBe(true);
    expect(matches(top, { tags: 'b', topic: 'u' })).toBe(false);
    const nested = {
      body: { kind: ['order'], $or: [{ amount: [{ numeric: ['>', 100] }] }, { vip: [true] }] },
    };
    expect(matches(nested, {}, '{"kind":"order","amount":500}')).toBe(true);
    expect(matches(nested, {}, '{"kind":"order","amount":5,"vip":true}')).toBe(true);
    expect(matches(nested, {}, '{"kind":"order","amount":5}')).toBe(false);
  });
});

describe('compileFilter: the body', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('looks inside a JSON body (bytes or text) under body', () => {
    const pattern = { body: { status: ['paid'] } };
    expect(matches(pattern, {}, '{"status":"paid"}')).toBe(true);
    expect(matches(pattern, {}, Buffer.from('{"status":"paid"}'))).toBe(true);
    expect(matches(pattern, {}, new Uint8Array(Buffer.from('xx{"status":"paid"}')).subarray(2))).toBe(true);
    expect(matches(pattern, {}, '{"status":"new"}')).toBe(false);
  });

  it('matches a non-JSON body only with patterns that do not look inside it', () => {
    const filter = compileFilter([{ body: { status: [{ exists: false }] } }, { tags: ['plain'] }]);
    expect(filter.matches({ tags: 'x' }, '{"other":1}')).toBe(true);
    expect(filter.matches({ tags: 'x' }, 'status=paid')).toBe(false);
    expect(filter.matches({ tags: 'x' }, undefined)).toBe(false);
    expect(filter.matches({ tags: 'plain' }, 'status=paid')).toBe(true);
    const withOr = compileFilter([{ $or: [{ body: { a: [1] } }, { tags: ['t'] }] }]);
    expect(withOr.matches({ tags: 't' }, 'not json')).toBe(true);
  });

  it("ignores the metadata's own body key", () => {
    expect(matches({ body: { a: [1] } }, { body: { a: 1 } }, 'not json')).toBe(false);
  });

  it('parses the body only when a pattern looks inside it, once per message', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const metadataOnly = compileFilter([{ tags: ['a'] }, { topic: ['t'] }]);
    expect(metadataOnly.readsBody).toBe(false);
    expect(metadataOnly.matches({ tags: 'b' }, '{"a":1}')).toBe(false);
    expect(parse).not.toHaveBeenCalled();
    const twoBodyPatterns = compileFilter([{ body: { a: [2] } }, { body: { a: [3] } }]);
    expect(twoBodyPatterns.readsBody).toBe(true);
    expect(twoBodyPatterns.matches({}, '{"a":3}')).toBe(true);
    expect(parse).toHaveBeenCalledTimes(1);
  });
});
