import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { childLogger, componentLogger } from '../../../src/util/logger.js';

/** A pino logger writing its JSON lines into `lines`. */
function recording(): { root: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  return {
    root: pino({ base: undefined, timestamp: false }, { write: (text: string) => lines.push(text) }),
    lines,
  };
}

/** How often `"key":` occurs in a JSON line (JSON.parse would silently keep the last). */
function occurrences(line: string, key: string): number {
  return line.split(`"${key}":`).length - 1;
}

describe('componentLogger / childLogger', () => {
  it('nested components and repeated bindings appear once per line, the innermost value winning', () => {
    const { root, lines } = recording();
    const poller = componentLogger('poller', root);
    const mapping = childLogger(poller, { mapping: 'orders' });
    const runtime = childLogger(componentLogger('consumer.runtime', mapping), {
      mapping: 'orders',
      consumerGroup: 'orders-fn',
    });
    componentLogger('consumer.pull', runtime).info({ queueId: 3 }, 'pulled');

    expect(lines).toHaveLength(1);
    const line = lines[0] ?? '';
    expect(occurrences(line, 'component')).toBe(1);
    expect(occurrences(line, 'mapping')).toBe(1);
    expect(JSON.parse(line)).toEqual({
      level: 30,
      component: 'consumer.pull',
      mapping: 'orders',
      consumerGroup: 'orders-fn',
      queueId: 3,
      msg: 'pulled',
    });
  });

  it('keeps the level and destination of the logger it was given', () => {
    const { root, lines } = recording();
    root.level = 'warn';
    const log = componentLogger('b', componentLogger('a', root));
    log.info('dropped');
    log.warn('kept');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string; component: string }).msg)).toEqual([
      'kept',
    ]);
    expect((JSON.parse(lines[0] ?? '{}') as { component: string }).component).toBe('b');
  });
});
