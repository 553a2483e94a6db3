import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { InvocationLogCapture, type LogLevel } from '../../../../src/dev/console/invocation-log-capture.js';

/** A stream whose writes are kept, and a console writing to it as Node's does. */
function fakeProcess() {
  const printed: string[] = [];
  const stream = (name: string) => ({
    write: ((chunk: unknown) => {
      printed.push(`${name}:${String(chunk)}`);
      return true;
    }) as NodeJS.WriteStream['write'],
  });
  const streams = { stdout: stream('out'), stderr: stream('err') };
  const fakeConsole = {
    log: (...args: unknown[]) => streams.stdout.write(`${args.join(' ')}\n`),
    info: (...args: unknown[]) => streams.stdout.write(`${args.join(' ')}\n`),
    debug: (...args: unknown[]) => streams.stdout.write(`${args.join(' ')}\n`),
    trace: (...args: unknown[]) => streams.stderr.write(`${args.join(' ')}\n`),
    warn: (...args: unknown[]) => streams.stderr.write(`${args.join(' ')}\n`),
    error: (...args: unknown[]) => streams.stderr.write(`${args.join(' ')}\n`),
  };
  return { printed, streams, console: fakeConsole };
}

class Sink {
  open = true;
  readonly lines: { level: LogLevel; text: string }[] = [];
  appendLog(level: LogLevel, text: string): void {
    this.lines.push({ level, text });
  }
}

describe('InvocationLogCapture', () => {
  it('attributes each write to the invocation whose async context made it, with concurrent invocations', async () => {
    const fake = fakeProcess();
    const capture = new InvocationLogCapture();
    capture.install(fake.streams, fake.console);
    onTestFinished(() => capture.uninstall());
    const handler = async (name: string, delays: number[]) => {
      for (const [step, delay] of delays.entries()) {
        await sleep(delay);
        fake.console.log(`${name} step ${step}`);
        if (step === 1) fake.console.error(`${name} oops`);
      }
      setTimeout(() => fake.console.log(`${name} late`), 0);
      await Promise.resolve();
      fake.streams.stderr.write(Buffer.from(`${name} raw\n`));
    };
    const a = new Sink();
    const b = new Sink();
    fake.console.log('before');
    // As the recording invoker does: a sink closes when its invocation finishes; what its timers write
    // later is printed, not recorded.
    const invoke = (sink: Sink, run: () => Promise<void>) =>
      capture.run(sink, run).finally(() => {
        sink.open = false;
      });
    await Promise.all([invoke(a, () => handler('a', [5, 1, 5])), invoke(b, () => handler('b', [1, 5, 1]))]);
    await sleep(5);
    fake.console.log('after');

    expect(a.lines).toEqual([
      { level: 'log', text: 'a step 0' },
      { level: 'log', text: 'a step 1' },
      { level: 'error', text: 'a oops' },
      { level: 'log', text: 'a step 2' },
      { level: 'stderr', text: 'a raw' },
    ]);
    expect(b.lines.map((l) => l.text)).toEqual(['b step 0', 'b step 1', 'b oops', 'b step 2', 'b raw']);
    // Everything is still printed, whoever wrote it.
    expect(fake.printed).toContain('out:before\n');
    expect(fake.printed).toContain('out:a late\n');
    expect(fake.printed).toContain('err:b oops\n');
    expect(fake.printed).toContain('out:after\n');
  });

  it('drops terminal control sequences and empty lines, splits lines, and restores on uninstall', async () => {
    const fake = fakeProcess();
    const original = fake.streams.stdout.write;
    const capture = new InvocationLogCapture();
    capture.install(fake.streams, fake.console);
    const sink = new Sink();
    await capture.run(sink, async () => {
      fake.streams.stdout.write('\x1b[2F\x1b[J');
      fake.streams.stdout.write('\x1b[31mred\x1b[0m\r\nsecond\n\n');
    });
    expect(sink.lines).toEqual([
      { level: 'stdout', text: 'red' },
      { level: 'stdout', text: 'second' },
    ]);
    capture.uninstall();
    expect(fake.streams.stdout.write).toBe(original);
    await capture.run(sink, async () => fake.console.log('not captured'));
    expect(sink.lines).toHaveLength(2);
  });
});
