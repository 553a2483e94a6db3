/**
 * Which RocketMQ the local launcher runs: 5.3.3 (the default, what CI runs), 5.5.1 (the newest 5.x on
 * Maven Central), 4.9.7 (the last 4.x), or 5.3.3 behind the 5.x proxy in cluster mode speaking
 * remoting. Selected with `ROCKETMQ_LAMBDA_BROKER_VERSION`; each version knows its Maven coordinates,
 * the features our tests rely on, and what its namesrv and broker need beyond the 5.3.3 launch.
 */
import { LocalBrokerError } from './local-broker-error.js';

/**
 * The environment variable that selects the local broker version.
 */
export const BROKER_VERSION_ENV = 'ROCKETMQ_LAMBDA_BROKER_VERSION';

/**
 * Every version the launcher can start, the default first.
 */
export const BROKER_VERSIONS = ['5.3.3', '5.5.1', '4.9.7', '5.3.3-proxy'] as const;

/** One of {@link BROKER_VERSIONS}. */
export type BrokerVersionName = (typeof BROKER_VERSIONS)[number];

/**
 * The version started when `ROCKETMQ_LAMBDA_BROKER_VERSION` is unset or empty.
 */
export const DEFAULT_BROKER_VERSION: BrokerVersionName = '5.3.3';

/** Broker features some tests need and not every version has. */
export interface BrokerFeatures {
  /** ACL 2.0 (users and policies, `authenticationEnabled`): 5.3+. 4.x only has ACL 1 (`plain_acl.yml`). */
  acl2: boolean;
  /** POP consumption (POP_MESSAGE, ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME): 5.x. */
  pop: boolean;
  /** The timer wheel (arbitrary delivery times, `__STARTDELIVERTIME`): 5.x; 4.x has delay levels only. */
  timerWheel: boolean;
  /** Admin requests (create topic, subscription group, cluster info) answered at the address clients use. */
  adminAtClientAddress: boolean;
}

/** What differs per version: coordinates, features, and extra launch settings. */
export interface BrokerVersionProfile {
  name: BrokerVersionName;
  /** `-Drocketmq.version`: the broker's (and store's, common's, remoting's) Maven version. */
  rocketmqVersion: string;
  /**
   * `-Drocketmq.companion.version`: the namesrv, client, tools, srvutil, filter and auth modules. Equal
   * to `rocketmqVersion` unless Maven Central lacks those modules of the release.
   */
  companionVersion: string;
  major: 4 | 5;
  /** A 5.x proxy in cluster mode (remoting) stands in front of the broker. */
  proxy: boolean;
  features: BrokerFeatures;
  /** Why `features.acl2` is false: the launcher's refusal of `acl` says it. */
  aclUnavailableReason?: string | undefined;
  /** Broker properties applied over the test defaults (below the caller's overrides). */
  brokerConfig: Readonly<Record<string, string | number | boolean>>;
  /**
   * True when the namesrv and broker read logback from `$ROCKETMQ_HOME/conf/logback_{namesrv,broker}.xml`
   * (and exit when it is missing) instead of `-Drmq.logback.configurationFile`.
   */
  logbackInHomeConf: boolean;
  /**
   * True when a slave refuses topic and subscription-group changes and copies them from its master
   * instead (4.x, every 10 s): the local cluster then changes the masters and waits for the copy.
   */
  slavesRefuseAdmin: boolean;
  /** Why this version needs what it needs, for docs and error messages. */
  notes: readonly string[];
}

const FULL_5X_FEATURES: BrokerFeatures = {
  acl2: true,
  pop: true,
  timerWheel: true,
  adminAtClientAddress: true,
};

const PROFILES: Readonly<Record<BrokerVersionName, BrokerVersionProfile>> = {
  '5.3.3': {
    name: '5.3.3',
    rocketmqVersion: '5.3.3',
    companionVersion: '5.3.3',
    major: 5,
    proxy: false,
    features: FULL_5X_FEATURES,
    brokerConfig: {},
    logbackInHomeConf: false,
    slavesRefuseAdmin: false,
    notes: ['the default: the version docs/protocol.md describes, and the one CI runs'],
  },
  '5.5.1': {
    name: '5.5.1',
    rocketmqVersion: '5.5.1',
    // Maven Central's 5.5.1 has rocketmq-broker, -store, -common, -remoting, -tiered-store and
    // -controller only; the broker's pom names client, srvutil, filter and auth 5.5.1, which are not
    // there (nor namesrv or tools), so those come from 5.5.0, the newest complete release.
    companionVersion: '5.5.0',
    major: 5,
    proxy: false,
    features: { ...FULL_5X_FEATURES, acl2: false },
    aclUnavailableReason:
      'the 5.5.1 broker calls AuthorizationEvaluator.evaluate(RemotingCommand, List), which rocketmq-auth 5.5.0 ' +
      'lacks (NoSuchMethodError on every request), and rocketmq-auth 5.5.1 is not on Maven Central',
    brokerConfig: {},
    logbackInHomeConf: false,
    slavesRefuseAdmin: false,
    notes: [
      'Maven Central holds only part of 5.5.1 (broker, store, common, remoting, tiered-store, controller); ' +
        'the namesrv, client, tools, srvutil, filter and auth modules are 5.5.0',
      'so no ACL 2.0: the 5.5.1 broker with rocketmq-auth 5.5.0 fails every authorized request with a NoSuchMethodError',
    ],
  },
  '4.9.7': {
    name: '4.9.7',
    rocketmqVersion: '4.9.7',
    companionVersion: '4.9.7',
    major: 4,
    proxy: false,
    features: { acl2: false, pop: false, timerWheel: false, adminAtClientAddress: true },
    aclUnavailableReason:
      'RocketMQ 4.x has no ACL 2.0 (users and signatures checked by AuthConfig), only ACL 1 (plain_acl.yml)',
    // 4.x has no timer wheel, POP or ACL 2.0 properties to switch off: it ignores keys it does not know
    // (MixAll.properties2Object sets only existing fields), so the 5.x test defaults pass through.
    brokerConfig: {},
    // 4.9.7's NamesrvStartup and BrokerStartup configure logback from $ROCKETMQ_HOME/conf by hand.
    logbackInHomeConf: true,
    // AdminBrokerProcessor.validateSlave; SlaveSynchronize copies the master's configs every 10 s.
    slavesRefuseAdmin: true,
    notes: [
      'runs on Java 17 with the same --add-opens/--add-exports as 5.x (its store unmaps buffers through JDK internals)',
      'logback is read from $ROCKETMQ_HOME/conf/logback_namesrv.xml and logback_broker.xml; the JVMs exit without them',
      'no ACL 2.0 (only ACL 1, plain_acl.yml), no POP, no timer wheel',
    ],
  },
  '5.3.3-proxy': {
    name: '5.3.3-proxy',
    rocketmqVersion: '5.3.3',
    companionVersion: '5.3.3',
    major: 5,
    proxy: true,
    // The proxy's remoting server serves the data path only (send, pull, heartbeat, offsets, locks,
    // route, POP): admin codes (create topic, subscription group, cluster info) go to the broker.
    features: { acl2: true, pop: true, timerWheel: true, adminAtClientAddress: false },
    brokerConfig: {},
    logbackInHomeConf: false,
    slavesRefuseAdmin: false,
    notes: [
      'namesrv + broker 5.3.3 and rocketmq-proxy 5.3.3 in cluster mode; clients use the proxy remoting port as their name server',
      'the proxy answers GET_ROUTEINFO_BY_TOPIC with itself as every broker address, so the data path goes through it',
      'admin requests (UPDATE_AND_CREATE_TOPIC, subscription groups, cluster info) are not served by the proxy: they go to the broker',
    ],
  },
};

/**
 * The profile of `name`.
 */
export function brokerVersionProfile(name: BrokerVersionName): BrokerVersionProfile {
  return PROFILES[name];
}

/**
 * True when `value` names a version the launcher can start.
 */
export function isBrokerVersionName(value: string): value is BrokerVersionName {
  return (BROKER_VERSIONS as readonly string[]).includes(value);
}

/**
 * The version `ROCKETMQ_LAMBDA_BROKER_VERSION` selects ({@link DEFAULT_BROKER_VERSION} when unset or
 * empty). Throws {@link LocalBrokerError} naming the allowed values for anything else.
 */
export function selectedBrokerVersion(env: NodeJS.ProcessEnv = process.env): BrokerVersionProfile {
  const raw = env[BROKER_VERSION_ENV]?.trim() ?? '';
  if (raw === '') return PROFILES[DEFAULT_BROKER_VERSION];
  if (!isBrokerVersionName(raw)) {
    throw new LocalBrokerError(
      `${BROKER_VERSION_ENV}=${JSON.stringify(raw)} is not a broker version the local launcher knows; ` +
        `allowed: ${BROKER_VERSIONS.join(', ')} (unset: ${DEFAULT_BROKER_VERSION})`,
    );
  }
  return PROFILES[raw];
}
