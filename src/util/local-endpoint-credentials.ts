/**
 * The one rule for AWS clients pointed at a local endpoint (dynalite, DynamoDB Local, a local Lambda
 * Invoke API, an SQS/SNS/CloudWatch emulator): such a peer checks no signature, but the SDK refuses to
 * send a request it cannot sign ("Could not load credentials from any providers") or address ("Region is
 * missing"). So a client whose endpoint is on loopback (127.0.0.0/8, ::1, localhost) and that finds no
 * credentials in the standard chain signs with {@link PLACEHOLDER_CREDENTIALS}, and one given no region
 * gets `AWS_REGION` or {@link PLACEHOLDER_REGION}. Credentials the chain does find are used as they are
 * (DynamoDB Local keeps one database per access key and region unless started with -sharedDb). A client
 * of any other endpoint, AWS's included, is left to the standard chain: nothing is ever invented for a
 * request that leaves the machine.
 */
import { isIP } from 'node:net';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { componentLogger, type Logger } from './logger.js';

/** The region of a loopback endpoint's client given none, when `AWS_REGION` names none either. */
export const PLACEHOLDER_REGION = 'us-east-1';

/**
 * What a loopback endpoint's client signs with when the standard chain has nothing. `local`, as the
 * credentials `rocketmq-lambda dev` puts in its environment (src/serverless-service/serverless-print.ts),
 * so DynamoDB Local shows the poller and dev the same database.
 */
export const PLACEHOLDER_CREDENTIALS: Readonly<AwsCredentialIdentity> = Object.freeze({
  accessKeyId: 'local',
  secretAccessKey: 'local',
});

/** The credentials option of every AWS SDK v3 client. */
export type AwsClientCredentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

/** What {@link awsClientIdentity} needs to know about a client. */
export interface AwsClientIdentityOptions {
  /** The client's endpoint override (`undefined`: AWS's own endpoint, never loopback). */
  readonly endpoint?: string | undefined;
  /** The caller's region; kept whatever the endpoint. */
  readonly region?: string | undefined;
  /** The caller's credentials; kept whatever the endpoint (no fallback then). */
  readonly credentials?: AwsClientCredentials | undefined;
  /** Read for `AWS_REGION`. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The standard chain (tests pass another). @default the AWS SDK's default provider chain */
  readonly chain?: AwsCredentialIdentityProvider | undefined;
  /** Where the fallback to placeholders is told, at debug level. */
  readonly logger?: Logger | undefined;
}

/** The `region` and `credentials` options of an AWS SDK v3 client, each present only when set. */
export interface AwsClientIdentity {
  region?: string;
  credentials?: AwsClientCredentials;
}

/**
 * The `region` and `credentials` to spread into an AWS client's config: the caller's own, and for a
 * loopback endpoint the fallbacks of this file's rule.
 */
export function awsClientIdentity(options: AwsClientIdentityOptions): AwsClientIdentity {
  const identity: AwsClientIdentity = {};
  if (options.region !== undefined) identity.region = options.region;
  if (options.credentials !== undefined) identity.credentials = options.credentials;
  const host = loopbackHost(options.endpoint);
  if (host === undefined) return identity;
  if (identity.region === undefined) {
    const fromEnv = (options.env ?? process.env).AWS_REGION?.trim();
    identity.region = fromEnv === undefined || fromEnv === '' ? PLACEHOLDER_REGION : fromEnv;
  }
  identity.credentials ??= chainOrPlaceholders(
    options.chain ?? defaultProvider(),
    host,
    options.logger ?? componentLogger('aws.credentials'),
  );
  return identity;
}

/**
 * Whether `endpoint` (a URL, as the SDK's `endpoint` option takes it) names a loopback host: 127.0.0.0/8,
 * ::1 (also IPv4-mapped, `::ffff:127.x.y.z`) or `localhost`. False for anything unparseable.
 */
export function isLoopbackEndpoint(endpoint: string | undefined): boolean {
  return loopbackHost(endpoint) !== undefined;
}

/** The host of a loopback endpoint (for the debug line: never the URL, which may carry user info). */
function loopbackHost(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return isLoopbackHost(url.hostname) ? url.host : undefined;
}

/** Whether a host name or address (IPv6 bracketed or not) is loopback. */
export function isLoopbackHost(hostname: string): boolean {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === 'localhost') return true;
  switch (isIP(host)) {
    case 4:
      return host.split('.')[0] === '127';
    case 6:
      return isLoopbackIpv6(host);
    default:
      return false;
  }
}

/**
 * `::1` in any spelling, or an IPv4-mapped loopback address (`::ffff:127.0.0.1`): the WHATWG URL parser
 * writes every IPv6 address in its one canonical form (`::1`, `::ffff:7f00:1`).
 */
function isLoopbackIpv6(address: string): boolean {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return false; // a zone id (`fe80::1%eth0`): link-local, never loopback
  }
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/**
 * The standard chain, with "it found nothing" (the SDK's CredentialsProviderError) answered by the
 * placeholders. Any other failure of the chain is the caller's to see. The SDK memoizes the provider:
 * the chain is walked once per client, not per request.
 */
function chainOrPlaceholders(
  chain: AwsCredentialIdentityProvider,
  host: string,
  logger: Logger,
): AwsCredentialIdentityProvider {
  return async (properties) => {
    try {
      return await chain(properties);
    } catch (error) {
      if (!isNoCredentialsError(error)) throw error;
      logger.debug(
        { endpoint: host, reason: error instanceof Error ? error.message : String(error) },
        'no AWS credentials in the standard chain: placeholder credentials for a loopback endpoint',
      );
      return { ...PLACEHOLDER_CREDENTIALS };
    }
  };
}

/** The SDK's "no credentials from this chain" error (@smithy/property-provider's CredentialsProviderError). */
function isNoCredentialsError(error: unknown): boolean {
  return error instanceof Error && error.name === 'CredentialsProviderError';
}
