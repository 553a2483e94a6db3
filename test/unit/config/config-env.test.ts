import { describe, expect, it } from 'vitest';
import { applyEnvironment } from '../../../src/config/config-env.js';
import { parseConfig } from '../../../src/config/load-config.js';

const MAPPINGS = [{ topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs' }];

describe('applyEnvironment', () => {
  it('fills nameServer from ROCKETMQ_NAME_SERVER before NAMESRV_ADDR', () => {
    const raw = { offsets: { store: 'memory' }, mappings: MAPPINGS };
    const env = { ROCKETMQ_NAME_SERVER: 'a:9876;b:9876', NAMESRV_ADDR: 'c:9876' };
    expect(parseConfig(raw, { env }).nameServerAddresses).toEqual(['a:9876', 'b:9876']);
    expect(parseConfig(raw, { env: { NAMESRV_ADDR: 'c:9876' } }).nameServerAddresses).toEqual(['c:9876']);
  });

  it('never overrides the file, and blank variables count as unset', () => {
    const raw = { nameServer: 'file:9876', offsets: { store: 'memory' }, mappings: MAPPINGS };
    expect(parseConfig(raw, { env: { NAMESRV_ADDR: 'env:9876' } }).nameServerAddresses).toEqual([
      'file:9876',
    ]);
    expect(applyEnvironment({}, { ROCKETMQ_NAME_SERVER: '  ', NAMESRV_ADDR: 'c:1' })).toEqual({
      nameServer: 'c:1',
    });
  });

  it('fills the DynamoDB endpoint (ours first, then the AWS standard one) and the region', () => {
    const raw = { nameServer: 'a:1', offsets: { store: 'dynamodb', table: 'offs' }, mappings: MAPPINGS };
    const ours = parseConfig(raw, {
      env: {
        ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT: 'http://ours:8000',
        AWS_ENDPOINT_URL_DYNAMODB: 'http://aws:8000',
        AWS_REGION: 'eu-central-1',
      },
    });
    expect(ours.offsets).toMatchObject({ endpoint: 'http://ours:8000', region: 'eu-central-1' });
    const aws = parseConfig(raw, { env: { AWS_ENDPOINT_URL_DYNAMODB: 'http://aws:8000' } });
    expect(aws.offsets).toMatchObject({ endpoint: 'http://aws:8000', region: 'us-east-1' });
  });

  it('leaves the offsets of other stores alone (no "only used with dynamodb" from the environment)', () => {
    const raw = { nameServer: 'a:1', offsets: { store: 'memory' }, mappings: MAPPINGS };
    const config = parseConfig(raw, {
      env: { AWS_ENDPOINT_URL_DYNAMODB: 'http://aws:8000', AWS_REGION: 'x' },
    });
    expect(config.offsets).toEqual({ store: 'memory', path: expect.any(String), persistIntervalMs: 5000 });
  });

  it('fills acl only when both keys are set', () => {
    expect(applyEnvironment({}, { ROCKETMQ_ACCESS_KEY: 'ak' })).toEqual({});
    expect(
      applyEnvironment(
        {},
        { ROCKETMQ_ACCESS_KEY: 'ak', ROCKETMQ_SECRET_KEY: 'sk', ROCKETMQ_SECURITY_TOKEN: 't' },
      ),
    ).toEqual({ acl: { accessKey: 'ak', secretKey: 'sk', securityToken: 't' } });
    expect(
      applyEnvironment(
        { acl: { accessKey: 'f', secretKey: 'f' } },
        { ROCKETMQ_ACCESS_KEY: 'ak', ROCKETMQ_SECRET_KEY: 'sk' },
      ),
    ).toEqual({
      acl: { accessKey: 'f', secretKey: 'f' },
    });
  });

  it('an env value is validated like a file value, under its key', () => {
    const raw = { offsets: { store: 'memory' }, mappings: MAPPINGS };
    expect(() => parseConfig(raw, { env: { NAMESRV_ADDR: 'nohost' } })).toThrow(
      'nameServer: "nohost" is not host:port',
    );
  });

  it('returns non-objects unchanged, and does not mutate its input', () => {
    expect(applyEnvironment(null, { NAMESRV_ADDR: 'a:1' })).toBeNull();
    expect(applyEnvironment([1], { NAMESRV_ADDR: 'a:1' })).toEqual([1]);
    const raw = { offsets: { store: 'dynamodb' } };
    applyEnvironment(raw, { NAMESRV_ADDR: 'a:1', AWS_REGION: 'r' });
    expect(raw).toEqual({ offsets: { store: 'dynamodb' } });
  });
});

describe('applyEnvironment: metrics.cloudwatch', () => {
  const ENV = { AWS_ENDPOINT_URL_CLOUDWATCH: 'http://cw:4566', AWS_REGION: 'us-west-2' };

  it('fills endpoint and region when metrics.cloudwatch is present', () => {
    expect(applyEnvironment({ metrics: { cloudwatch: { intervalSeconds: 30 } } }, ENV)).toEqual({
      metrics: { cloudwatch: { intervalSeconds: 30, endpoint: 'http://cw:4566', region: 'us-west-2' } },
    });
  });

  it('adds nothing when metrics or metrics.cloudwatch is absent, or not an object', () => {
    expect(applyEnvironment({}, ENV)).toEqual({});
    expect(applyEnvironment({ metrics: {} }, ENV)).toEqual({ metrics: {} });
    expect(applyEnvironment({ metrics: { cloudwatch: true } }, ENV)).toEqual({
      metrics: { cloudwatch: true },
    });
    expect(applyEnvironment({ metrics: 'on' }, ENV)).toEqual({ metrics: 'on' });
  });

  it('never overrides the file; blank variables count as unset', () => {
    const file = { metrics: { cloudwatch: { endpoint: 'http://file:1', region: 'eu-west-1' } } };
    expect(applyEnvironment(file, ENV)).toEqual(file);
    expect(
      applyEnvironment({ metrics: { cloudwatch: {} } }, { AWS_ENDPOINT_URL_CLOUDWATCH: ' ', AWS_REGION: '' }),
    ).toEqual({ metrics: { cloudwatch: {} } });
  });

  it('does not mutate its input', () => {
    const raw = { metrics: { cloudwatch: {} } };
    applyEnvironment(raw, ENV);
    expect(raw).toEqual({ metrics: { cloudwatch: {} } });
  });
});
