import { describe, expect, it } from 'vitest';
import { brokerDirectMemoryMb, TEST_BROKER_DEFAULTS } from '../../../src/local-broker/broker-config.js';
import { localJvmArgs } from '../../../src/local-broker/jvm-args.js';

const MiB = 1024 * 1024;
/** A commit-log writer thread's encoder buffer in 5.3.3: `maxMessageSize` + 64 KiB. */
const perWriterMb = (maxMessageSize: number) => (maxMessageSize + 64 * 1024) / MiB;

describe('the local broker direct memory budget', () => {
  it('covers the writer threads of a POP broker, where a fixed 512 MiB ran out', () => {
    // A 2-core test broker after both POP test files had 78 threads in the pools that write (jstack):
    // 20 pull, 16 ack, 18 delay-level, 8 revive, 7 admin, 6 timer, 2 send, 1 timer enqueue.
    const writers = 78;
    const needed = writers * perWriterMb(Number(TEST_BROKER_DEFAULTS.maxMessageSize));
    expect(512).toBeLessThan(needed);
    expect(brokerDirectMemoryMb(TEST_BROKER_DEFAULTS, 2)).toBeGreaterThan(needed);
  });

  it('grows with the message size and the cores, RocketMQ 4 MiB messages when none is set', () => {
    const small = brokerDirectMemoryMb({}, 2);
    expect(small).toBe(brokerDirectMemoryMb({ maxMessageSize: 4 * MiB }, 2));
    expect(brokerDirectMemoryMb({ maxMessageSize: 10 * MiB }, 2)).toBeGreaterThan(small);
    expect(brokerDirectMemoryMb({}, 16)).toBeGreaterThan(small);
  });

  it('reaches the JVM as -XX:MaxDirectMemorySize, 512 MiB for a JVM that writes no messages', () => {
    const common = { heapMb: 256, logbackFile: 'l.xml', homeDir: '/h', classpath: 'cp', extraJvmOptions: [] };
    expect(localJvmArgs({ ...common, maxDirectMemoryMb: 1255 })).toContain('-XX:MaxDirectMemorySize=1255m');
    expect(localJvmArgs(common)).toContain('-XX:MaxDirectMemorySize=512m');
  });
});
