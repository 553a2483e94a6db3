/**
 * Fault scenario "TLS: private CA, public CAs, plaintext, mTLS": a TLS-only RocketMQ (namesrv and
 * broker, `tls.server.mode=enforcing`) with a certificate from a private CA, and our poller with each
 * TLS setting an operator may get right or wrong:
 * - `tls: { caFile }` (the private CA) consumes every message and stops cleanly;
 * - `tls: true` (public CAs only) cannot trust the certificate: exit 1 at once, saying so;
 * - no TLS at all meets a server that drops it without a byte, twice in a row: exit 1 saying so, and
 *   never healthy meanwhile;
 * and, against a broker that requires client certificates, `certFile`/`keyFile` consume while their
 * absence stops the poller naming the client certificate, and an encrypted `keyFile` with a wrong
 * `keyPassphrase` stops it at start, before any connection, naming the settings (never the passphrase).
 * Each test has a broker of its own; both boot side by side at the file's start.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunConfigInput } from '../../../src/config/config-schema.js';
import type { LocalBroker, LocalBrokerTlsOptions } from '../../../src/local-broker/local-broker.js';
import { buildTlsConnectionOptions } from '../../../src/network/tls-options.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { encryptedKeyPem, type TlsTestCerts, tlsTestCerts } from '../../support/tls-certs.js';
import { readLedger } from '../cli/poller-process.js';
import { newProducer, produce } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import { ledgerMapping, scenarioDir, waitForLedgers } from './fault-scenario.js';
import { bootOwnBroker, createTopicOn, ownBrokerClient, stopBooted } from './own-broker.js';
import { exitWithin } from './poller-exit.js';
import { causeOf, lastLine, type PollerVariant, pollerVariant } from './poller-variant.js';

const TEST_TIMEOUT_MS = 180_000;
const SCENARIO = 'TLS: private CA, public CAs, plaintext, mTLS';
const QUEUES = 4;
const MESSAGES = 300;
/** A certificate we cannot trust fails the first connection: "quickly". */
const REFUSAL_WITHIN_MS = 30_000;
/**
 * How long the plaintext poller is watched: two heartbeat-file periods. Its health verdict only turns
 * on the thresholds of docs/operating.md (120 s), so this window shows whether it ever says healthy, not
 * when it would say unhealthy.
 */
const PLAINTEXT_WATCH_MS = 20_000;
const CATCH_UP_TIMEOUT_MS = 60_000;
/** A passphrase that does not decrypt the client key: it must appear in no output. */
const WRONG_KEY_PASSPHRASE = 'Wrong-Passphrase-8c3a';

describe(SCENARIO, () => {
  // The TLS-only broker of the first test and the mTLS broker of the second boot side by side, and both
  // are up before the first test starts its pollers (a JVM booting meanwhile would slow their starts,
  // which count against the refusal windows): each test awaits its own (a failed boot fails that test)
  // and stops it when it ends.
  let brokers: { tls: Promise<LocalBroker>; mtls: Promise<LocalBroker> } | undefined;
  beforeAll(async () => {
    const certs = await tlsTestCerts();
    brokers = {
      tls: bootOwnBroker({ tls: serverTls(certs) }),
      mtls: bootOwnBroker({
        tls: {
          ...serverTls(certs),
          clientAuth: {
            caPath: certs.ca.certPath,
            certPath: certs.client.certPath,
            keyPath: certs.client.keyPath,
          },
        },
      }),
    };
    await Promise.allSettled([brokers.tls, brokers.mtls]);
  });
  afterAll(() => stopBooted(brokers?.tls, brokers?.mtls));
  /** The broker of test `which`, stopped when the test ends. */
  const brokerOf = async (which: 'tls' | 'mtls'): Promise<LocalBroker> => {
    const starting = brokers?.[which];
    if (starting === undefined) throw new Error('beforeAll booted no brokers');
    const broker = await starting;
    onTestFinished(() => broker.stop());
    return broker;
  };

  it(
    'TLS-only broker: the private CA consumes everything; public CAs exit 1 (untrusted); plaintext exits 1 (TLS-only server), never healthy',
    async () => {
      const startedAt = Date.now();
      const certs = await tlsTestCerts();
      const broker = await brokerOf('tls');
      const { sent, variant } = await prepare(
        broker,
        buildTlsConnectionOptions({ caPem: certs.ca.certPem }),
        'tls',
      );

      // The two refused settings at once: one exits at its first connection, the other is watched.
      const publicCas = await variant('public-cas', true);
      const plaintext = await variant('plaintext', undefined);
      const publicStartedAt = Date.now();
      const publicChild = publicCas.poller.start();
      publicCas.health.start();
      const plaintextChild = plaintext.poller.start();
      plaintext.health.start();
      const [publicExit, plaintextExit] = await Promise.all([
        exitWithin(publicCas.poller, REFUSAL_WITHIN_MS).then((exit) => ({
          exit,
          ms: Date.now() - publicStartedAt,
        })),
        exitWithin(plaintext.poller, PLAINTEXT_WATCH_MS),
      ]);
      await Promise.all([publicCas.health.stop(), plaintext.health.stop()]);
      if (publicExit.exit === undefined) await publicCas.poller.end('SIGKILL');
      const plaintextStop = plaintextExit === undefined ? await plaintext.poller.end('SIGTERM') : undefined;
      const plaintextFirstHealthy = plaintext.health.healthyVerdicts()[0];
      const plaintextLogs = plaintextChild.logs();
      const plaintextWarnings = [
        ...new Set(
          plaintextLogs
            .filter((line) => typeof line.level === 'number' && line.level >= 40)
            .map((line) => `${String(line.msg)}${describeErr(line.err)}`),
        ),
      ];

      const privateCa = await variant('private-ca', { caFile: certs.ca.certPath });
      privateCa.poller.start();
      await privateCa.poller.started();
      await waitForLedgers(sent, { ours: () => readLedger(privateCa.ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      const privateStop = await privateCa.poller.end('SIGTERM');

      const durationMs = Date.now() - startedAt;
      const publicLine = lastLine(publicChild.stderr());
      const plaintextLine = lastLine(plaintextChild.stderr());
      const summaries = {
        privateCa: summarizeLedger(sent, readLedger(privateCa.ledgerFile)),
        publicCas: summarizeLedger(sent, readLedger(publicCas.ledgerFile)),
        plaintext: summarizeLedger(sent, readLedger(plaintext.ledgerFile)),
      };
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (tls.caFile: private CA)',
        ...summaries.privateCa,
        processOutcomes: privateCa.poller.outcomes,
        notes:
          'TLS-only namesrv and broker (tls.server.mode=enforcing), certificate of a private CA; tls.caFile names that CA',
        durationMs,
      });
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (tls: true, public CAs)',
        ...summaries.publicCas,
        processOutcomes: publicCas.poller.outcomes,
        notes:
          `${publicExit.exit === undefined ? 'still running' : `exit ${String(publicExit.exit.code)}`} after ` +
          `${(publicExit.ms / 1000).toFixed(1)} s (process start included): "${causeOf(publicLine)}"; health ` +
          `${publicCas.health.verdicts.length} checks, ${publicCas.health.healthyVerdicts().length} healthy; ` +
          `lost = unconsumed by a refused poller (expected: a refusal, not a loss)`,
        durationMs,
      });
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (plaintext)',
        ...summaries.plaintext,
        processOutcomes: plaintext.poller.outcomes,
        notes:
          (plaintextExit === undefined
            ? `kept running (retrying) for the ${PLAINTEXT_WATCH_MS / 1000} s watched, then SIGTERM`
            : `exit ${String(plaintextExit.code)} by itself: "${causeOf(plaintextLine)}"`) +
          `; health ${plaintext.health.verdicts.length} checks, ${plaintext.health.healthyVerdicts().length} healthy` +
          (plaintextFirstHealthy === undefined
            ? ' '
            : `, the first ${((plaintextFirstHealthy.atMs - publicStartedAt) / 1000).toFixed(1)} s after its start `) +
          `(said: ${plaintext.health.distinctOutputs().join(' / ')}); warnings logged: ${plaintextWarnings.join(' / ')}; ` +
          `lost = unconsumed (expected: nothing can be consumed without TLS)`,
        durationMs,
      });

      expect(summaries.privateCa.lost, `lost e.g. ${summaries.privateCa.lostIds.join(', ')}`).toBe(0);
      expect(privateStop, privateCa.poller.output()).toEqual({ code: 0, signal: null });
      expect(publicExit.exit, publicCas.poller.output()).toEqual({ code: 1, signal: null });
      expect(publicLine).toMatch(/certificate is not signed by a CA we trust/);
      expect(publicCas.health.healthyVerdicts().length, publicCas.health.distinctOutputs().join(' | ')).toBe(
        0,
      );
      expect(summaries.publicCas.delivered).toBe(0);
      expect(
        plaintext.health.healthyVerdicts().length,
        `the plaintext poller reported healthy: ${plaintext.health.distinctOutputs().join(' | ')}`,
      ).toBe(0);
      expect(summaries.plaintext.delivered).toBe(0);
      expect(plaintextStop, 'the plaintext poller kept running instead of stopping').toBeUndefined();
      expect(plaintextExit, plaintext.poller.output()).toEqual({ code: 1, signal: null });
      expect(plaintextLine).toMatch(/TLS-only .*check the tls settings/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'mTLS broker: a client certificate consumes everything; without one, or with a wrong key passphrase, the poller exits 1 naming what is wrong',
    async () => {
      const startedAt = Date.now();
      const certs = await tlsTestCerts();
      const broker = await brokerOf('mtls');
      const { sent, variant } = await prepare(
        broker,
        buildTlsConnectionOptions({
          caPem: certs.ca.certPem,
          certPem: certs.client.certPem,
          keyPem: certs.client.keyPem,
        }),
        'mtls',
      );

      // The two refused settings at once (own directory, ledger and heartbeat file each), as in the
      // first test; the client certificate one after them.
      const without = await variant('no-client-cert', { caFile: certs.ca.certPath });
      // The client key encrypted, and a passphrase in the config that does not open it.
      const keyDir = await scenarioDir('mtls-key');
      const encryptedKey = path.join(keyDir, 'client-encrypted.key');
      await writeFile(encryptedKey, encryptedKeyPem(certs.client, 'Right-Passphrase-1f2e'));
      const wrongKey = await variant('wrong-key-passphrase', {
        caFile: certs.ca.certPath,
        certFile: certs.client.certPath,
        keyFile: encryptedKey,
        keyPassphrase: WRONG_KEY_PASSPHRASE,
      });
      const refusedStartedAt = Date.now();
      const withoutChild = without.poller.start();
      without.health.start();
      const wrongKeyChild = wrongKey.poller.start();
      const exitOf = async (poller: PollerVariant['poller']) => {
        const exit = await exitWithin(poller, REFUSAL_WITHIN_MS);
        return { exit, ms: Date.now() - refusedStartedAt };
      };
      const [{ exit: withoutExit, ms: withoutMs }, { exit: wrongKeyExit, ms: wrongKeyMs }] =
        await Promise.all([exitOf(without.poller), exitOf(wrongKey.poller)]);
      if (withoutExit === undefined) await without.poller.end('SIGKILL');
      await without.health.stop();
      if (wrongKeyExit === undefined) await wrongKey.poller.end('SIGKILL');

      const withCert = await variant('client-cert', {
        caFile: certs.ca.certPath,
        certFile: certs.client.certPath,
        keyFile: certs.client.keyPath,
      });
      withCert.poller.start();
      await withCert.poller.started();
      await waitForLedgers(sent, { ours: () => readLedger(withCert.ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      const withStop = await withCert.poller.end('SIGTERM');

      const durationMs = Date.now() - startedAt;
      const withoutLine = lastLine(withoutChild.stderr());
      const wrongKeyLine = lastLine(wrongKeyChild.stderr());
      const summaries = {
        withCert: summarizeLedger(sent, readLedger(withCert.ledgerFile)),
        without: summarizeLedger(sent, readLedger(without.ledgerFile)),
        wrongKey: summarizeLedger(sent, readLedger(wrongKey.ledgerFile)),
      };
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (mTLS: certFile + keyFile)',
        ...summaries.withCert,
        processOutcomes: withCert.poller.outcomes,
        notes:
          'broker and namesrv require client certificates signed by the private CA (tls.server.need.client.auth=require)',
        durationMs,
      });
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (mTLS: no client certificate)',
        ...summaries.without,
        processOutcomes: without.poller.outcomes,
        notes:
          `${withoutExit === undefined ? 'still running' : `exit ${String(withoutExit.code)}`} after ` +
          `${(withoutMs / 1000).toFixed(1)} s (process start included): "${causeOf(withoutLine)}"; health ` +
          `${without.health.verdicts.length} checks, ${without.health.healthyVerdicts().length} healthy; ` +
          `lost = unconsumed by a refused poller (expected: a refusal, not a loss)`,
        durationMs,
      });

      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (mTLS: wrong key passphrase)',
        ...summaries.wrongKey,
        processOutcomes: wrongKey.poller.outcomes,
        notes:
          `${wrongKeyExit === undefined ? 'still running' : `exit ${String(wrongKeyExit.code)}`} after ` +
          `${(wrongKeyMs / 1000).toFixed(1)} s (process start included): "${causeOf(wrongKeyLine)}"; ` +
          'lost = unconsumed by a refused poller (expected: a refusal, not a loss)',
        durationMs,
      });

      expect(summaries.withCert.lost, `lost e.g. ${summaries.withCert.lostIds.join(', ')}`).toBe(0);
      expect(withStop, withCert.poller.output()).toEqual({ code: 0, signal: null });
      expect(withoutExit, without.poller.output()).toEqual({ code: 1, signal: null });
      expect(withoutLine).toMatch(/client certificate/);
      expect(without.health.healthyVerdicts().length, without.health.distinctOutputs().join(' | ')).toBe(0);
      expect(summaries.without.delivered).toBe(0);
      expect(wrongKeyExit, wrongKey.poller.output()).toEqual({ code: 1, signal: null });
      expect(wrongKeyLine).toBe(
        'rocketmq-lambda run: tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE): does not decrypt tls.keyFile (wrong passphrase)',
      );
      expect(wrongKeyChild.stdout() + wrongKeyChild.stderr()).not.toContain(WRONG_KEY_PASSPHRASE);
      expect(summaries.wrongKey.delivered).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});

/** The broker side: the server certificate of the private CA. */
function serverTls(certs: TlsTestCerts): LocalBrokerTlsOptions {
  return { certPath: certs.server.certPath, keyPath: certs.server.keyPath, caPath: certs.ca.certPath };
}

/**
 * A topic with {@link MESSAGES} messages on `broker` (produced over `clientTls`), and a maker of
 * poller variants that differ in their `tls` setting only (same mapping and group, offsets in a file).
 */
async function prepare(
  broker: LocalBroker,
  clientTls: ReturnType<typeof buildTlsConnectionOptions>,
  prefix: string,
): Promise<{
  sent: string[];
  variant: (name: string, tls: RunConfigInput['tls']) => Promise<PollerVariant>;
}> {
  const dir = await scenarioDir(prefix);
  const client = ownBrokerClient(broker, { tls: clientTls });
  const topic = uniqueTopic(`fault_${prefix}`);
  const group = uniqueGroup(`fault_${prefix}`);
  await createTopicOn(client, broker, topic, QUEUES);
  const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES, batch: 50 });
  return {
    sent,
    variant: (name, tls) =>
      pollerVariant(dir, name, (at) => ({
        nameServer: broker.namesrvAddr,
        ...(tls === undefined ? {} : { tls }),
        offsets: { store: 'file', path: 'offsets' },
        mappings: [ledgerMapping(at, { topic, consumerGroup: group })],
      })),
  };
}

function describeErr(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' ? ` (${message})` : '';
}
