/**
 * Scaling of the poller service: on by default from 1 task to the largest topic's queue count (POP: to
 * what Lambda's default concurrency allows),
 * and then no DesiredCount on the service (a deploy would reset the scaling's count); `scaling: false`
 * runs a fixed count; BROADCASTING turns it off.
 */
import { describe, expect, it } from 'vitest';
import {
  type CompileRocketMQInput,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
  RocketMQPluginError,
} from '../../../src/serverless/index.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';
import { fixtureInput } from './fixture-input.js';

const CUSTOM = { nameServers: '10.0.0.10:9876', vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] } };

function input(
  events: readonly Record<string, unknown>[],
  custom: Record<string, unknown> = {},
): CompileRocketMQInput {
  return {
    custom: { ...CUSTOM, ...custom },
    stage: 'prod',
    functions: events.map((event, index) => ({
      key: `fn${index}`,
      logicalId: `Fn${index}LambdaFunction`,
      events: [{ rocketmq: event }],
    })),
  };
}

const ORDERS = { topic: 'Orders', consumerGroup: 'orders-fn' };
const LEDGER = { topic: 'Ledger', consumerGroup: 'ledger-fn' };

function counts(compiled: ReturnType<typeof compileRocketMQResources>) {
  return {
    desiredCount: compiled.resources[Ids.service]?.Properties.DesiredCount,
    min: compiled.resources[Ids.scalableTarget]?.Properties.MinCapacity,
    max: compiled.resources[Ids.scalableTarget]?.Properties.MaxCapacity,
    policy: compiled.resources[Ids.scalingPolicy] !== undefined,
  };
}

const problemsOf = (compile: () => unknown): readonly string[] =>
  problemsThrownBy(compile, RocketMQPluginError);

describe('scaling of the poller service', () => {
  it('is on by default: 1 task up to 8 (a topic of the default queue count), no DesiredCount', () => {
    expect(counts(compileRocketMQResources(input([ORDERS])))).toEqual({
      desiredCount: undefined,
      min: 1,
      max: 8,
      policy: true,
    });
  });

  it("sizes maxCount by the largest topic's queues hint: every task runs every mapping", () => {
    const compiled = compileRocketMQResources(
      input([
        { ...ORDERS, queues: 16 },
        { ...LEDGER, queues: 4 },
      ]),
    );
    expect(counts(compiled)).toMatchObject({ min: 1, max: 16, desiredCount: undefined });
  });

  it('takes minCount, maxCount and targetLagPerTask as given', () => {
    const compiled = compileRocketMQResources(
      input([ORDERS], { minCount: 2, maxCount: 6, targetLagPerTask: 500 }),
    );
    expect(counts(compiled)).toEqual({ desiredCount: undefined, min: 2, max: 6, policy: true });
    expect(
      compiled.resources[Ids.scalingPolicy]?.Properties.TargetTrackingScalingPolicyConfiguration,
    ).toMatchObject({ TargetValue: 500 });
    expect(compiled.warnings).toEqual([]);
  });

  it('warns when maxCount exceeds the largest queue count (idle tasks)', () => {
    const compiled = compileRocketMQResources(input([{ ...ORDERS, queues: 4 }], { maxCount: 10 }));
    expect(counts(compiled).max).toBe(10);
    expect(compiled.warnings).toEqual([
      "custom.rocketmq.maxCount: 10 is above the largest mapped topic's queue count, 4 (the events' queues): tasks beyond it hold no queue",
    ]);
  });

  it('scales a POP mapping past its queue count: up to the invokes 1,000 concurrent executions allow', () => {
    const pop = { ...ORDERS, queues: 2, consumeMode: 'POP' };
    expect(counts(compileRocketMQResources(input([pop])))).toMatchObject({ min: 1, max: 100, policy: true });
    expect(counts(compileRocketMQResources(input([{ ...pop, maxConcurrency: 40 }]))).max).toBe(25);
    // With a PUSH mapping beside it, the larger bound wins (the PUSH group's extra tasks just hold no queue).
    expect(
      counts(
        compileRocketMQResources(
          input([
            { ...pop, maxConcurrency: 500 },
            { ...LEDGER, queues: 16 },
          ]),
        ),
      ).max,
    ).toBe(16);
    const above = compileRocketMQResources(input([pop], { maxCount: 40 }));
    expect(counts(above).max).toBe(40);
    expect(above.warnings).toEqual([]);
  });

  it('a one-queue topic leaves nothing to scale: a fixed count of minCount', () => {
    expect(counts(compileRocketMQResources(input([{ ...ORDERS, queues: 1 }])))).toEqual({
      desiredCount: 1,
      min: undefined,
      max: undefined,
      policy: false,
    });
  });

  it('scaling: false runs a fixed desiredCount (default 1)', () => {
    expect(counts(compileRocketMQResources(input([ORDERS], { scaling: false, desiredCount: 3 })))).toEqual({
      desiredCount: 3,
      min: undefined,
      max: undefined,
      policy: false,
    });
    expect(counts(compileRocketMQResources(input([ORDERS], { scaling: false }))).desiredCount).toBe(1);
  });

  it('refuses keys that the chosen mode does not use, naming them', () => {
    expect(problemsOf(() => compileRocketMQResources(input([ORDERS], { desiredCount: 2 })))).toEqual([
      'custom.rocketmq.desiredCount: only used with scaling: false (scaling sets the task count, between minCount and maxCount)',
    ]);
    expect(
      problemsOf(() =>
        compileRocketMQResources(input([ORDERS], { scaling: false, maxCount: 4, minCount: 2 })),
      ),
    ).toEqual([
      'custom.rocketmq.minCount: only used with scaling (scaling is false)',
      'custom.rocketmq.maxCount: only used with scaling (scaling is false)',
    ]);
    expect(problemsOf(() => compileRocketMQResources(input([ORDERS], { minCount: 3, maxCount: 2 })))).toEqual(
      ['custom.rocketmq.minCount: must be ≤ maxCount (2), got 3'],
    );
  });

  it('is off with a BROADCASTING mapping (a warning), and refused if asked for', () => {
    const broadcast = { ...LEDGER, messageModel: 'BROADCASTING' };
    const compiled = compileRocketMQResources(input([ORDERS, broadcast]));
    expect(counts(compiled)).toEqual({ desiredCount: 1, min: undefined, max: undefined, policy: false });
    expect(compiled.warnings).toEqual([
      'custom.rocketmq.scaling: off: functions.fn1.events[0].rocketmq is BROADCASTING (every task gets every message, so more tasks multiply the invokes); set scaling: false to say so',
    ]);
    expect(problemsOf(() => compileRocketMQResources(input([broadcast], { maxCount: 4 })))).toEqual([
      'custom.rocketmq.maxCount: no scaling when functions.fn0.events[0].rocketmq is BROADCASTING (every task gets every message, so more tasks multiply the invokes); set scaling: false',
    ]);
    expect(compileRocketMQResources(input([broadcast], { scaling: false })).warnings).toEqual([]);
  });

  it('on the fixtures: all-options scales 1–6 without a DesiredCount; built-image 1–16 from its queues hint', () => {
    expect(counts(compileRocketMQResources(fixtureInput('all-options')))).toEqual({
      desiredCount: undefined,
      min: 1,
      max: 6,
      policy: true,
    });
    expect(counts(compileRocketMQResources(fixtureInput('built-image')))).toEqual({
      desiredCount: undefined,
      min: 1,
      max: 16,
      policy: true,
    });
  });
});
