/**
 * Fault scenario "ACL: wrong secret, unknown access key": a broker with ACL 2.0 and our poller signing
 * with the right access key and a wrong secret, then with an access key the broker does not know. Both
 * are refusals no retry cures: the poller must exit 1 within ~30 s with a last stderr line naming
 * NO_PERMISSION, `rocketmq-lambda health` must never say healthy meanwhile, and nothing may be consumed.
 * Then the same mapping with the right keys consumes every message.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AclCredentials } from '../../../src/protocol/acl-signer.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { readLedger } from '../cli/poller-process.js';
import { newProducer, produce } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import { ledgerMapping, scenarioDir, waitForLedgers } from './fault-scenario.js';
import { createTopicOn, ownBrokerClient, startOwnBroker } from './own-broker.js';
import { exitWithin } from './poller-exit.js';
import { causeOf, lastLine, pollerVariant } from './poller-variant.js';

const TEST_TIMEOUT_MS = 240_000;
const SCENARIO = 'ACL: wrong secret, unknown access key';
const ADMIN: AclCredentials = { accessKey: 'fault-admin', secretKey: 'fault-acl-secret-5d1e' };
const QUEUES = 4;
const MESSAGES = 400;
/** Every broker refusing the first heartbeat stops the start (docs/operating.md); 30 s covers start-up. */
const REFUSAL_WITHIN_MS = 30_000;
const CATCH_UP_TIMEOUT_MS = 60_000;

describe(SCENARIO, () => {
  it(
    'exits 1 naming NO_PERMISSION and never reports healthy with a wrong secret or an unknown key; consumes everything with the right keys',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('acl');
      const broker = await startOwnBroker({ acl: { ...ADMIN } });
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const admin = ownBrokerClient(broker, { credentials: ADMIN });
      const topic = uniqueTopic('fault_acl');
      const group = uniqueGroup('fault_acl');
      await createTopicOn(admin, broker, topic, QUEUES);
      const sent = await produce(await newProducer(admin), topic, MESSAGES, { queues: QUEUES, batch: 50 });
      const brokerReadyMs = Date.now() - startedAt;

      const runWith = (name: string, acl: AclCredentials) =>
        pollerVariant(dir, name, (at) => ({
          nameServer: broker.namesrvAddr,
          acl,
          offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
          mappings: [ledgerMapping(at, { topic, consumerGroup: group })],
        }));

      const refusals = [];
      for (const [name, acl] of [
        ['wrong-secret', { accessKey: ADMIN.accessKey, secretKey: 'not-the-secret-0000' }],
        ['unknown-key', { accessKey: 'nobody-here', secretKey: ADMIN.secretKey }],
      ] as const) {
        const { poller, ledgerFile, health } = await runWith(name, acl);
        const runStartedAt = Date.now();
        const child = poller.start();
        health.start();
        const exit = await exitWithin(poller, REFUSAL_WITHIN_MS);
        const exitMs = Date.now() - runStartedAt;
        if (exit === undefined) await poller.end('SIGKILL');
        await health.stop();
        // Once more after the exit: a stale heartbeat of a healthy past must not linger either.
        await health.check();
        refusals.push({
          name,
          exit,
          exitMs,
          lastLine: lastLine(child.stderr()),
          secretShown: `${child.stdout()}${child.stderr()}`.includes(acl.secretKey),
          output: poller.output(),
          outcomes: poller.outcomes,
          health,
          summary: summarizeLedger(sent, readLedger(ledgerFile)),
        });
      }

      const good = await runWith('right-keys', ADMIN);
      good.poller.start();
      good.health.start();
      await good.poller.started();
      await waitForLedgers(sent, { ours: () => readLedger(good.ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      await good.health.stop();
      const healthyWithRightKeys = (await good.health.check()).exitCode === 0;
      const goodStop = await good.poller.end('SIGTERM');
      const goodOutput = good.poller.output();
      const goodSummary = summarizeLedger(sent, readLedger(good.ledgerFile));

      const durationMs = Date.now() - startedAt;
      for (const refusal of refusals) {
        await recordFaultOutcome({
          scenario: SCENARIO,
          consumer: `rocketmq-lambda (${refusal.name})`,
          ...refusal.summary,
          processOutcomes: refusal.outcomes,
          notes:
            `ACL 2.0 broker; ${refusal.exit === undefined ? 'still running' : `exit ${String(refusal.exit.code)}`} ` +
            `after ${(refusal.exitMs / 1000).toFixed(1)} s (process start included): ` +
            `"${causeOf(refusal.lastLine)}"; health: ${refusal.health.verdicts.length} checks, ` +
            `${refusal.health.healthyVerdicts().length} healthy; lost = the ${MESSAGES} messages left ` +
            `unconsumed by the refused poller: the expected outcome, a refusal, not a loss (the right keys consumed all)`,
          durationMs,
        });
      }
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (right keys)',
        ...goodSummary,
        processOutcomes: good.poller.outcomes,
        notes: `same mapping and group after both refusals; ACL broker started and topic filled in ${Math.round(brokerReadyMs / 1000)} s; health healthy at the end: ${healthyWithRightKeys}`,
        durationMs,
      });

      for (const refusal of refusals) {
        expect(refusal.exit, `${refusal.name}: ${refusal.output}`).toEqual({ code: 1, signal: null });
        expect(refusal.lastLine, refusal.name).toContain('NO_PERMISSION');
        expect(
          refusal.health.healthyVerdicts().length,
          `${refusal.name}: health said ${refusal.health.distinctOutputs().join(' | ')}`,
        ).toBe(0);
        expect(refusal.summary.delivered, refusal.name).toBe(0);
        expect(refusal.secretShown, `${refusal.name}: the secret key appears in the poller's output`).toBe(
          false,
        );
      }
      expect(goodSummary.lost, `lost e.g. ${goodSummary.lostIds.join(', ')}`).toBe(0);
      expect(goodStop, goodOutput).toEqual({ code: 0, signal: null });
      expect(goodOutput.includes(ADMIN.secretKey), "the secret key appears in the poller's output").toBe(
        false,
      );
    },
    TEST_TIMEOUT_MS,
  );
});
