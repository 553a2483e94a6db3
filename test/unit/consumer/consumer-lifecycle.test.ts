/**
 * The lifecycle both consume modes share (src/consumer/consumer-lifecycle.ts): what a start, a failed
 * start, a fatal error and a stop do to the state, the events and the log, in the order a listener sees.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConsumerLifecycle } from '../../../src/consumer/consumer-lifecycle.js';

/** A lifecycle whose steps and events are recorded in one ordered trail. */
function recorded(options: { unclean?: unknown } = {}) {
  const trail: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let stops = 0;
  const lifecycle = new ConsumerLifecycle({
    noun: 'widget',
    log,
    stop: async () => {
      stops++;
      trail.push(`release (${lifecycle.state})`);
      return options.unclean;
    },
    started: () => trail.push(`started line (${lifecycle.state})`),
    stopped: () => trail.push(`stopped line (${lifecycle.state})`),
  });
  lifecycle.onEvent((event) => trail.push(`event ${event.type}`));
  return { lifecycle, trail, lines, stops: () => stops };
}

describe('ConsumerLifecycle', () => {
  it('starts once: created, starting while the work runs, running; a second start is refused', async () => {
    const { lifecycle, trail } = recorded();
    expect(lifecycle.state).toBe('created');
    expect(lifecycle.startedAtMs).toBeUndefined();
    await lifecycle.start(async () => {
      trail.push(`work (${lifecycle.state}, active ${lifecycle.active})`);
    });
    expect(trail).toEqual(['work (starting, active true)', 'started line (running)', 'event started']);
    expect(lifecycle.startedAtMs).toBeTypeOf('number');
    await expect(lifecycle.start(async () => undefined)).rejects.toThrow(
      'cannot start a widget in state running',
    );
  });

  it('stops after a start that fails, then rejects with the start error', async () => {
    const { lifecycle, trail, lines, stops } = recorded();
    const broken = new Error('no route');
    await expect(lifecycle.start(() => Promise.reject(broken))).rejects.toBe(broken);
    expect(lifecycle.state).toBe('stopped');
    expect(stops()).toBe(1);
    expect(trail).toEqual(['release (stopping)', 'stopped line (stopped)', 'event stopped']);
    expect(lines.map((line) => line.msg)).toEqual(['start failed']);
  });

  it('keeps the first fatal error, and a start it interrupts ends failed, not running', async () => {
    const { lifecycle, trail, lines } = recorded();
    const first = new Error('function gone');
    await lifecycle.start(async () => {
      expect(lifecycle.fail(first, 'pulling stopped')).toBe(true);
      expect(lifecycle.fail(new Error('second'), 'pulling stopped')).toBe(false);
    });
    expect(lifecycle.state).toBe('failed');
    expect(lifecycle.active).toBe(false);
    expect(lifecycle.fatalError).toBe(first);
    expect(trail).toEqual(['event fatal', 'started line (failed)', 'event started']);
    expect(lines.map((line) => [line.msg, line.reason])).toEqual([
      ['fatal error: pulling stopped', 'function gone'],
    ]);
    await lifecycle.stop();
    expect(lifecycle.fail(new Error('after stop'), 'pulling stopped')).toBe(false);
    expect(lifecycle.fatalError).toBe(first);
  });

  it('stops once, however often asked; an unclean stop rejects after the stopped event', async () => {
    const unclean = new Error('queue not released');
    const { lifecycle, trail, stops } = recorded({ unclean });
    await lifecycle.start(async () => undefined);
    const [a, b] = [lifecycle.stop(), lifecycle.stop()];
    expect(a).toBe(b);
    await expect(a).rejects.toBe(unclean);
    expect(stops()).toBe(1);
    expect(lifecycle.state).toBe('stopped');
    expect(trail.slice(2)).toEqual(['release (stopping)', 'stopped line (stopped)', 'event stopped']);
  });

  it('tells every listener even when one throws, and logs the one that threw', async () => {
    const { lifecycle, lines } = recorded();
    const heard: string[] = [];
    lifecycle.onEvent(() => {
      throw new Error('listener bug');
    });
    const unsubscribe = lifecycle.onEvent((event) => heard.push(event.type));
    lifecycle.emit({ type: 'queues-changed', added: [], removed: [] });
    unsubscribe();
    lifecycle.emit({ type: 'queues-changed', added: [], removed: [] });
    expect(heard).toEqual(['queues-changed']);
    expect(lines.filter((line) => line.msg === 'event listener failed')).toHaveLength(2);
  });
});
