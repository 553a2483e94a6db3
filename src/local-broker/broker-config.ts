/**
 * The files a local namesrv and broker read: their properties and a small logback configuration.
 * Pure functions from options to file text.
 */

/** Broker config values: keys of BrokerConfig, NettyServerConfig, MessageStoreConfig (one file). */
export type BrokerConfigValues = Record<string, string | number | boolean>;

/** Inputs of {@link brokerConfig}. */
export interface BrokerConfigInput {
  clusterName: string;
  brokerName: string;
  brokerPort: number;
  namesrvAddr: string;
  storeDir: string;
  /** Applied last: they win over every default. */
  overrides?: BrokerConfigValues | undefined;
}

/** RocketMQ 5.x's own `timerFlushIntervalMs`: the timer wheel flushed every second, as deployed brokers do. */
export const ROCKETMQ_TIMER_FLUSH_INTERVAL_MS = 1000;

/**
 * How often a test broker flushes its timer wheel (`timerFlushIntervalMs`). At every flush 5.x's
 * `TimerFlushService` compares the whole wheel (7 days of 1 s slots, 37 MiB whatever the load) byte by
 * byte with its mapped file and forces it to disk: an idle 5.3.3 broker spent 12 s of CPU per 30 s with
 * the default 1 s, 2-2.7 s with a minute (measured side by side on the shared 2-core machine). Only a
 * broker's restart reads what was flushed, and it rebuilds the wheel from the timer log anyway; what
 * a SIGKILL can cost is the checkpoint's read time, up to a minute old, so timer messages that fell due
 * in the minute before the kill are delivered again (and a slave learns its master's timer progress
 * only once a minute). No test kills a broker holding timer messages
 * (send-back's delay levels are the schedule topic's, not the timer's). 4.x has no timer and ignores
 * the key.
 */
export const TEST_TIMER_FLUSH_INTERVAL_MS = 60_000;

/**
 * Defaults for a small, fast, loopback-only test broker. The disk ratios go as high as RocketMQ
 * allows (`diskMaxUsedSpaceRatio` is capped at 95, `diskSpaceCleanForciblyRatio` at 85 and
 * `diskSpaceWarningLevelRatio` at 90 by `DefaultMessageStore`): a store partition above 90 % used
 * still makes the broker refuse sends, nothing can change that. The timer wheel is flushed once a
 * minute ({@link TEST_TIMER_FLUSH_INTERVAL_MS}): the default second costs an idle broker 0.4 of a core.
 */
export const TEST_BROKER_DEFAULTS: Readonly<BrokerConfigValues> = {
  brokerId: 0,
  brokerRole: 'ASYNC_MASTER',
  flushDiskType: 'ASYNC_FLUSH',
  bindAddress: '127.0.0.1',
  brokerIP1: '127.0.0.1',
  brokerIP2: '127.0.0.1',
  autoCreateTopicEnable: true,
  autoCreateSubscriptionGroup: true,
  enablePropertyFilter: true,
  maxMessageSize: 10_485_760,
  mappedFileSizeCommitLog: 64 * 1024 * 1024,
  mappedFileSizeConsumeQueue: 60_000,
  diskMaxUsedSpaceRatio: 95,
  diskSpaceCleanForciblyRatio: 85,
  diskSpaceWarningLevelRatio: 90,
  registerNameServerPeriod: 10_000,
  timerFlushIntervalMs: TEST_TIMER_FLUSH_INTERVAL_MS,
};

/** RocketMQ's own `maxMessageSize` (4 MiB), used when the config does not set one. */
const ROCKETMQ_DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** What a 5.3.3 commit-log writer thread adds to `maxMessageSize` for its encoder buffer. */
const ENCODER_EXTRA_BYTES = 64 * 1024;

/** Netty's and the store's other direct buffers, beyond the writers' encoder buffers. */
const OTHER_DIRECT_MB = 128;

/**
 * The broker JVM's `-XX:MaxDirectMemorySize` in MiB. Every 5.3.3 thread that writes to the commit log
 * keeps a direct buffer of `maxMessageSize` + 64 KiB for its life (`CommitLog`'s thread-local
 * `MessageExtEncoder`; the timer's get threads keep one of `maxMessageSize` each), and POP writes from
 * many pools: checkpoints from every pull thread (16 + 2 per core), acks from 16 ack threads, revives
 * from 8, the timer's 7, delay levels' 18, admin 16, send and end-transaction threads. With 10 MiB
 * messages a fixed 512 MiB ran out once about 50 of them had written: the broker then left POP
 * requests unanswered and its timer stopped delivering checkpoints, so nothing was revived. This
 * budgets `104 + 4 * cpus` writers; the limit is a cap, only what threads allocate is used.
 */
export function brokerDirectMemoryMb(config: Readonly<BrokerConfigValues>, cpus: number): number {
  const maxMessageBytes = Number(config.maxMessageSize ?? ROCKETMQ_DEFAULT_MAX_MESSAGE_BYTES);
  const writerThreads = 104 + 4 * cpus;
  const writerBuffersMb = (writerThreads * (maxMessageBytes + ENCODER_EXTRA_BYTES)) / (1024 * 1024);
  return OTHER_DIRECT_MB + Math.ceil(writerBuffersMb);
}

/**
 * The broker's properties: our defaults, the addresses and paths of this start, then `overrides`.
 */
export function brokerConfig(input: BrokerConfigInput): BrokerConfigValues {
  return {
    ...TEST_BROKER_DEFAULTS,
    brokerClusterName: input.clusterName,
    brokerName: input.brokerName,
    listenPort: input.brokerPort,
    namesrvAddr: input.namesrvAddr,
    storePathRootDir: input.storeDir,
    storePathCommitLog: `${input.storeDir}/commitlog`,
    ...input.overrides,
  };
}

/**
 * The namesrv's properties: its port, loopback only, KV config under `homeDir`. The namesrv's own
 * remoting client would otherwise probe itself every few seconds at the host's first non-loopback
 * address (`NetworkUtil.getLocalAddress()`), where nothing listens since we bind to loopback.
 */
export function namesrvConfig(port: number, homeDir: string): BrokerConfigValues {
  return {
    listenPort: port,
    bindAddress: '127.0.0.1',
    rocketmqHome: homeDir,
    kvConfigPath: `${homeDir}/namesrv/kvConfig.json`,
    scanAvailableNameSrv: false,
  };
}

/**
 * Renders values as a Java properties file (`key=value` lines; backslashes, newlines and leading
 * spaces escaped).
 */
export function toPropertiesText(values: BrokerConfigValues): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}=${escapePropertyValue(String(value))}\n`)
    .join('');
}

function escapePropertyValue(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/^\s/, (space) => `\\${space}`);
}

/**
 * A logback configuration (for RocketMQ's shaded logback, `-Drmq.logback.configurationFile`) that
 * sends every logger to one file, INFO and above, instead of RocketMQ's dozen rolling files under
 * `~/logs`.
 */
export function logbackConfig(logFile: string, level: 'INFO' | 'WARN' = 'INFO'): string {
  const file = escapeXml(logFile);
  return `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${file}</file>
    <append>true</append>
    <encoder>
      <pattern>%d{HH:mm:ss.SSS} %-5p [%t] %c{0} - %m%n</pattern>
    </encoder>
  </appender>
  <root level="${level}">
    <appender-ref ref="FILE"/>
  </root>
</configuration>
`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
