/**
 * `messageTrace` against the real broker (started with `traceTopicEnable=true`, test/setup/global-setup.ts):
 * Apache's Java producer with message trace on writes each message's Pub record, our poller consumes the
 * messages and writes its SubBefore/SubAfter records, and Apache's own `mqadmin queryMsgTraceById` shows
 * both, with our group's success (or failure) and cost. A poller whose trace topic does not exist still
 * consumes every message (ledger).
 */
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { javaProduce } from '../../support/java-interop.js';
import { JAVA_FAILURE, runMqadmin } from '../../support/mqadmin.js';
import { parseExposition } from '../../support/prometheus-exposition.js';
import { startTestPoller } from '../../support/test-poller.js';
import { testTopic } from '../../support/test-topic.js';
import { newProducer, produce, waitFor } from './helpers.js';

const HANDLERS_DIR = fileURLToPath(new URL('../../fixtures/config/handlers/', import.meta.url));

/** Counts every message id the function received; fails the ids in `failing`. */
class LedgerInvoker implements Invoker {
  readonly counts = new Map<string, number>();
  constructor(private readonly failing: ReadonlySet<string> = new Set()) {}

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const event = JSON.parse(request.payload.toString('utf8')) as { Records: { messageId: string }[] };
    const failures = [];
    for (const { messageId } of event.Records) {
      this.counts.set(messageId, (this.counts.get(messageId) ?? 0) + 1);
      if (this.failing.has(messageId)) failures.push({ itemIdentifier: messageId });
    }
    return { ok: true, payload: Buffer.from(JSON.stringify({ batchItemFailures: failures })) };
  }

  async close(): Promise<void> {
    // Nothing to release.
  }
}

/** A logger that keeps the poller's lines, and a scrape of the poller's /metrics (served on port 0). */
function observedPoller() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const scrape = async () => {
    const serving = lines.find((line) => line.msg === 'serving /metrics, /healthz and /readyz');
    const url = `http://127.0.0.1:${String(serving?.port)}/metrics`;
    return parseExposition(await (await fetch(url)).text());
  };
  return { lines, logger, scrape };
}

/** The `message_trace_records_total` series of a mapping, by result. */
function traceSeries(mapping: string, group: string, result: string): string {
  return `rocketmq_lambda_message_trace_records_total{mapping="${mapping}",consumer_group="${group}",result="${result}"}`;
}

/** One row of `queryMsgTraceById`'s tables: `Pub` or `Sub`, group, client host, time, cost, status. */
interface TraceRow {
  type: string;
  group: string;
  clientHost: string;
  costMs: number;
  status: string;
}

/** The Pub and Sub rows mqadmin printed (`Sub 'group' host yyyy-MM-dd HH:mm:ss 3ms success`). */
function traceRows(output: string): TraceRow[] {
  const rows: TraceRow[] = [];
  for (const line of output.split('\n')) {
    const tokens = line.trim().split(/\s+/);
    if ((tokens[0] !== 'Pub' && tokens[0] !== 'Sub') || tokens.length !== 7) continue;
    const [type, group, clientHost, , , cost, status] = tokens as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    rows.push({ type, group, clientHost, costMs: Number.parseInt(cost, 10), status });
  }
  return rows;
}

/** mqadmin's rows for `msgId` once they hold a Pub row and a Sub row of `group` (polls; each run is a JVM). */
async function traceOf(msgId: string, group: string, withPub = true): Promise<TraceRow[]> {
  const { namesrvAddr } = testBroker();
  return waitFor(
    `${withPub ? 'the Pub and ' : 'the '}${group} Sub rows of ${msgId} in mqadmin queryMsgTraceById`,
    90_000,
    async () => {
      const { output } = await runMqadmin(namesrvAddr, 'queryMsgTraceById', ['-i', msgId]);
      expect(output).not.toMatch(JAVA_FAILURE);
      const rows = traceRows(output);
      const published = !withPub || rows.some((row) => row.type === 'Pub');
      const consumed = rows.some((row) => row.type === 'Sub' && row.group === group);
      // Not yet: the error (the last one is the timeout's cause) shows what mqadmin printed.
      if (!published || !consumed) throw new Error(`mqadmin printed:\n${output.slice(0, 2000)}`);
      return rows;
    },
    { intervalMs: 2_000 },
  );
}

describe('messageTrace', () => {
  it("mqadmin queryMsgTraceById shows the Java producer's Pub record and our group's consume records", {
    timeout: 300_000,
  }, async () => {
    const { namesrvAddr } = testBroker();
    const { topic, group } = await testTopic('Trace', 2);
    const sent = await javaProduce(
      namesrvAddr,
      [
        { topic, keys: ['order-1'], body: 'ok' },
        { topic, keys: ['order-2'], body: 'fails' },
        { topic, body: 'ok too' },
      ],
      { messageTrace: true },
    );
    expect(sent.map((result) => result.status)).toEqual(['SEND_OK', 'SEND_OK', 'SEND_OK']);
    const [ok, failing, okNoKeys] = sent.map((result) => result.msgId) as [string, string, string];
    const config = parseConfig(
      {
        nameServer: namesrvAddr,
        shutdownTimeoutMs: 5000,
        offsets: { store: 'memory' },
        metrics: { prometheus: { port: 0, host: '127.0.0.1' } },
        mappings: [
          {
            name: 'traced',
            topic,
            consumerGroup: group,
            function: 'local:./noop.mjs#handler',
            startingPosition: 'TRIM_HORIZON',
            // A failure goes straight to the DLQ: one consume, one SubAfter record with success false.
            maxReconsumeTimes: 0,
            messageTrace: true,
          },
        ],
      },
      { baseDir: HANDLERS_DIR },
    );
    const ledger = new LedgerInvoker(new Set([failing]));
    const observed = observedPoller();
    const poller = await startTestPoller(config, { invoker: ledger, logger: observed.logger });
    await waitFor('3 messages delivered', 60_000, async () =>
      [ok, failing, okNoKeys].every((id) => ledger.counts.has(id)) ? true : undefined,
    );
    // SubBefore and SubAfter of each of the 3 messages, sent within the writer's flush interval.
    const written = await waitFor('6 trace records written', 30_000, async () => {
      const samples = await observed.scrape();
      return samples.get(traceSeries('traced', group, 'written')) === 6 ? samples : undefined;
    });
    expect(written.get(traceSeries('traced', group, 'topic_unavailable'))).toBeUndefined();
    const exit = await poller.stop();
    expect(exit.failures).toEqual([]);

    // Each traceOf runs mqadmin JVMs: two messages' at once (two cores), then the third's. Only the first
    // message's Pub row is checked, so only its query waits for one.
    const [okRows, failingRows] = await Promise.all([traceOf(ok, group), traceOf(failing, group, false)]);
    const noKeysRows = await traceOf(okNoKeys, group, false);
    console.info(`[message trace] queryMsgTraceById -i ${ok}: ${JSON.stringify(okRows)}`);
    const pub = okRows.find((row) => row.type === 'Pub');
    expect(pub?.group).toMatch(/^interop_producer_/);
    expect(pub?.status).toBe('success');
    const okSub = okRows.filter((row) => row.type === 'Sub' && row.group === group);
    expect(okSub).toHaveLength(1);
    expect(okSub[0]?.status).toBe('success');
    expect(okSub[0]?.costMs).toBeGreaterThanOrEqual(0);
    // The client host is the trace message's born host: this process's address.
    expect(okSub[0]?.clientHost).toMatch(/^\d+\.\d+\.\d+\.\d+(:\d+)?$/);

    const failedSub = failingRows.filter((row) => row.type === 'Sub' && row.group === group);
    expect(failedSub.map((row) => row.status)).toEqual(['failed']);

    const noKeysSub = noKeysRows.filter((row) => row.type === 'Sub');
    expect(noKeysSub.map((row) => row.status)).toEqual(['success']);
  });

  it('traces a POP mapping the same way (the listener is wrapped, whatever the consume mode)', {
    timeout: 180_000,
  }, async () => {
    const { namesrvAddr } = testBroker();
    const { client, topic, group } = await testTopic('TracePop', 2);
    const config = parseConfig(
      {
        nameServer: namesrvAddr,
        shutdownTimeoutMs: 5000,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'traced-pop',
            topic,
            consumerGroup: group,
            function: 'local:./noop.mjs#handler',
            consumeMode: 'POP',
            startingPosition: 'TRIM_HORIZON',
            messageTrace: true,
          },
        ],
      },
      { baseDir: HANDLERS_DIR },
    );
    const ledger = new LedgerInvoker();
    const poller = await startTestPoller(config, { invoker: ledger });
    // Our producer writes no Pub record: the trace holds only our group's consume rows.
    const [msgId] = await produce(await newProducer(client), topic, 1, { queues: 2 });
    if (msgId === undefined) throw new Error('nothing was sent');
    await waitFor('the message delivered', 60_000, async () => (ledger.counts.has(msgId) ? true : undefined));
    await poller.stop();
    const rows = (await traceOf(msgId, group, false)).filter((row) => row.type === 'Sub');
    expect(rows.map((row) => [row.group, row.status])).toEqual([[group, 'success']]);
  });

  it('a poller whose trace topic does not exist consumes every message and never creates the topic', {
    timeout: 180_000,
  }, async () => {
    const { namesrvAddr } = testBroker();
    const { client, topic, group } = await testTopic('TraceMissing', 4);
    const traceTopic = uniqueTopic('NoSuchTrace');
    const config = parseConfig(
      {
        nameServer: namesrvAddr,
        shutdownTimeoutMs: 5000,
        offsets: { store: 'memory' },
        metrics: { prometheus: { port: 0, host: '127.0.0.1' } },
        mappings: [
          {
            name: 'untraceable',
            topic,
            consumerGroup: group,
            function: 'local:./noop.mjs#handler',
            startingPosition: 'TRIM_HORIZON',
            batchSize: 10,
            messageTrace: { topic: traceTopic },
          },
        ],
      },
      { baseDir: HANDLERS_DIR },
    );
    const ledger = new LedgerInvoker();
    const observed = observedPoller();
    const poller = await startTestPoller(config, { invoker: ledger, logger: observed.logger });
    const sent = await produce(await newProducer(client), topic, 500, { queues: 4, batch: 50 });
    await waitFor('500 messages delivered', 60_000, async () =>
      sent.every((id) => ledger.counts.has(id)) ? true : undefined,
    );
    expect(sent.filter((id) => !ledger.counts.has(id))).toEqual([]);
    // Every record (2 per delivery) dropped as topic_unavailable, none written.
    const deliveries = [...ledger.counts.values()].reduce((sum, n) => sum + n, 0);
    const dropped = await waitFor('every trace record counted as dropped', 30_000, async () => {
      const samples = await observed.scrape();
      const value = samples.get(traceSeries('untraceable', group, 'topic_unavailable'));
      return value === 2 * deliveries ? samples : undefined;
    });
    expect(dropped.get(traceSeries('untraceable', group, 'written'))).toBeUndefined();
    const warnings = observed.lines.filter((line) =>
      String(line.msg).startsWith('message trace topic does not exist'),
    );
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0]).toMatchObject({ topic: traceTopic, level: 40 });
    const exit = await poller.stop();
    expect(exit.failures).toEqual([]);
    // The writer looked the topic up and sent nothing: the broker still has no such topic.
    const lookup = client.nameServer.getRoute(traceTopic, { refresh: true });
    await expect(lookup).rejects.toBeInstanceOf(BrokerError);
    await expect(lookup).rejects.toMatchObject({ code: ResponseCode.TOPIC_NOT_EXIST });
  });
});
