import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BROKER_VERSION_ENV,
  BROKER_VERSIONS,
  brokerVersionProfile,
  DEFAULT_BROKER_VERSION,
  selectedBrokerVersion,
} from '../../../src/local-broker/broker-version.js';
import { LocalBrokerError } from '../../../src/local-broker/local-broker-error.js';
import {
  defaultRocketMQCacheDir,
  mavenVersionArgs,
  rocketmqCacheDir,
} from '../../../src/local-broker/rocketmq-jars.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('selecting the local broker version', () => {
  it('is 5.3.3 when ROCKETMQ_LAMBDA_BROKER_VERSION is unset or blank', () => {
    expect(DEFAULT_BROKER_VERSION).toBe('5.3.3');
    expect(selectedBrokerVersion({}).name).toBe('5.3.3');
    expect(selectedBrokerVersion({ [BROKER_VERSION_ENV]: '  ' }).name).toBe('5.3.3');
  });

  it('accepts every listed version, surrounding spaces trimmed', () => {
    for (const version of BROKER_VERSIONS) {
      expect(selectedBrokerVersion({ [BROKER_VERSION_ENV]: ` ${version} ` }).name).toBe(version);
    }
    expect([...BROKER_VERSIONS]).toEqual(['5.3.3', '5.5.1', '4.9.7', '5.3.3-proxy']);
  });

  it('refuses anything else with a LocalBrokerError naming the variable and the allowed values', () => {
    for (const bad of ['5.4.0', '4.9', 'latest', '5.3.3 proxy']) {
      let error: unknown;
      try {
        selectedBrokerVersion({ [BROKER_VERSION_ENV]: bad });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(LocalBrokerError);
      const message = (error as Error).message;
      expect(message).toContain(BROKER_VERSION_ENV);
      expect(message).toContain(JSON.stringify(bad));
      expect(message).toContain('allowed: 5.3.3, 5.5.1, 4.9.7, 5.3.3-proxy');
    }
  });

  it('reads process.env by default', () => {
    vi.stubEnv(BROKER_VERSION_ENV, '4.9.7');
    expect(selectedBrokerVersion().name).toBe('4.9.7');
  });
});

describe('per-version profiles', () => {
  it('leaves the default as it was: 5.3.3 everywhere, every feature, no extra broker properties', () => {
    const profile = brokerVersionProfile('5.3.3');
    expect(profile).toMatchObject({
      rocketmqVersion: '5.3.3',
      companionVersion: '5.3.3',
      major: 5,
      proxy: false,
    });
    expect(profile.features).toEqual({ acl2: true, pop: true, timerWheel: true, adminAtClientAddress: true });
    expect(profile.brokerConfig).toEqual({});
    expect(profile.logbackInHomeConf).toBe(false);
  });

  it('takes the 5.5.1 broker with the modules Maven Central lacks at 5.5.1 from 5.5.0', () => {
    const profile = brokerVersionProfile('5.5.1');
    expect(profile).toMatchObject({ rocketmqVersion: '5.5.1', companionVersion: '5.5.0' });
    // ... at the cost of ACL 2.0: the 5.5.1 broker needs auth 5.5.1.
    expect(profile.features).toMatchObject({ acl2: false, pop: true, timerWheel: true });
    expect(profile.aclUnavailableReason).toMatch(/rocketmq-auth 5\.5\.1 is not on Maven Central/);
  });

  it('runs 4.9.7 without ACL 2.0, POP or timer wheel, with logback in $ROCKETMQ_HOME/conf', () => {
    const profile = brokerVersionProfile('4.9.7');
    expect(profile.major).toBe(4);
    expect(profile.features).toMatchObject({ acl2: false, pop: false, timerWheel: false });
    expect(profile.logbackInHomeConf).toBe(true);
  });

  it('puts the 5.3.3 proxy in front of a 5.3.3 broker, admin requests not served at the proxy', () => {
    const profile = brokerVersionProfile('5.3.3-proxy');
    expect(profile).toMatchObject({ rocketmqVersion: '5.3.3', proxy: true });
    expect(profile.features.adminAtClientAddress).toBe(false);
  });
});

describe('jars per version', () => {
  it('passes the versions to Maven, the proxy profile only for the proxy version', () => {
    expect(mavenVersionArgs(brokerVersionProfile('5.3.3'))).toEqual([
      '-Drocketmq.version=5.3.3',
      '-Drocketmq.companion.version=5.3.3',
    ]);
    expect(mavenVersionArgs(brokerVersionProfile('5.5.1'))).toEqual([
      '-Drocketmq.version=5.5.1',
      '-Drocketmq.companion.version=5.5.0',
    ]);
    expect(mavenVersionArgs(brokerVersionProfile('5.3.3-proxy'))).toContain('-Drocketmq.proxy=true');
  });

  it('keeps the default cache directory and gives every other version a sibling of its own', () => {
    vi.stubEnv('ROCKETMQ_LAMBDA_CACHE', '');
    const base = join(homedir(), '.cache', 'rocketmq-lambda');
    expect(defaultRocketMQCacheDir()).toBe(join(base, 'rocketmq-5.3.3'));
    expect(rocketmqCacheDir(brokerVersionProfile('5.3.3'))).toBe(join(base, 'rocketmq-5.3.3'));
    expect(rocketmqCacheDir(brokerVersionProfile('4.9.7'))).toBe(join(base, 'rocketmq-4.9.7'));
    expect(rocketmqCacheDir(brokerVersionProfile('5.3.3-proxy'))).toBe(join(base, 'rocketmq-5.3.3-proxy'));
  });

  it('derives the per-version directories from $ROCKETMQ_LAMBDA_CACHE when it is set', () => {
    vi.stubEnv('ROCKETMQ_LAMBDA_CACHE', '/ci/cache/rmq');
    expect(rocketmqCacheDir(brokerVersionProfile('5.3.3'))).toBe('/ci/cache/rmq');
    expect(rocketmqCacheDir(brokerVersionProfile('5.5.1'))).toBe('/ci/cache/rmq-5.5.1');
  });

  it('follows ROCKETMQ_LAMBDA_BROKER_VERSION when no version is given', () => {
    vi.stubEnv('ROCKETMQ_LAMBDA_CACHE', '');
    vi.stubEnv(BROKER_VERSION_ENV, '5.5.1');
    expect(rocketmqCacheDir()).toBe(join(homedir(), '.cache', 'rocketmq-lambda', 'rocketmq-5.5.1'));
  });
});
