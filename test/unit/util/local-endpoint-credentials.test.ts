/**
 * The rule of src/util/local-endpoint-credentials.ts: a client of a loopback endpoint that finds no
 * credentials in the standard chain signs with placeholders (and gets a region); any other client is left
 * to the standard chain, so a request that leaves the machine is never signed with invented credentials.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AwsClientIdentity,
  awsClientIdentity,
  isLoopbackEndpoint,
  PLACEHOLDER_CREDENTIALS,
  PLACEHOLDER_REGION,
} from '../../../src/util/local-endpoint-credentials.js';

/** The environment variables of the standard chain, cleared (and restored) around each test. */
const CHAIN_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_EC2_METADATA_DISABLED',
];
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(CHAIN_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of CHAIN_VARIABLES) delete process.env[name];
  // No credentials anywhere in the chain, whatever the machine running the tests has.
  process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/rocketmq-lambda-test/credentials';
  process.env.AWS_CONFIG_FILE = '/nonexistent/rocketmq-lambda-test/config';
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** The SDK's "found nothing" error, as @smithy/property-provider names it. */
function noCredentials(): Error {
  const error = new Error('Could not load credentials from any providers');
  error.name = 'CredentialsProviderError';
  return error;
}

const emptyChain: AwsCredentialIdentityProvider = () => Promise.reject(noCredentials());

/** The credentials a client with `identity` signs with. */
async function resolved(identity: AwsClientIdentity) {
  const credentials = identity.credentials;
  if (credentials === undefined) throw new Error('no credentials option');
  return typeof credentials === 'function' ? credentials() : credentials;
}

describe('isLoopbackEndpoint', () => {
  it.each([
    'http://127.0.0.1:8000',
    'http://127.45.6.7',
    'https://127.255.255.254:4566/',
    'http://localhost:4566',
    'http://LocalHost.:8000',
    'http://[::1]:8000',
    'http://[0:0:0:0:0:0:0:1]',
    'http://[::ffff:127.0.0.1]:9000',
  ])('%s is loopback', (endpoint) => {
    expect(isLoopbackEndpoint(endpoint)).toBe(true);
  });

  it.each([
    'https://dynamodb.eu-west-1.amazonaws.com',
    'http://10.0.0.5:8000',
    'http://128.0.0.1',
    'http://0.0.0.0:8000',
    'http://[::2]',
    'http://[::ffff:10.0.0.1]',
    'http://[fe80::1]',
    'http://localhost.example.com',
    'http://127.0.0.1.nip.io',
    'http://example.com/127.0.0.1',
    'ftp://127.0.0.1',
    '127.0.0.1:8000',
    'not a url',
  ])('%s is not loopback', (endpoint) => {
    expect(isLoopbackEndpoint(endpoint)).toBe(false);
  });

  it('is false without an endpoint (AWS itself)', () => {
    expect(isLoopbackEndpoint(undefined)).toBe(false);
  });
});

describe('awsClientIdentity', () => {
  it('adds nothing for AWS itself or a remote endpoint, with or without credentials in the environment', () => {
    for (const endpoint of [undefined, 'https://dynamodb.eu-west-1.amazonaws.com', 'http://10.1.2.3:8000']) {
      expect(awsClientIdentity({ endpoint, chain: emptyChain })).toEqual({});
      expect(awsClientIdentity({ endpoint, region: 'eu-west-1', chain: emptyChain })).toEqual({
        region: 'eu-west-1',
      });
    }
    process.env.AWS_ACCESS_KEY_ID = 'AKIDENV';
    process.env.AWS_SECRET_ACCESS_KEY = 'env-secret';
    expect(awsClientIdentity({ endpoint: 'https://sqs.us-east-1.amazonaws.com' })).toEqual({});
  });

  it("keeps the caller's credentials and region, loopback or not", async () => {
    const credentials = { accessKeyId: 'AKIDCALLER', secretAccessKey: 'caller-secret' };
    const identity = awsClientIdentity({
      endpoint: 'http://127.0.0.1:8000',
      region: 'eu-central-1',
      credentials,
      chain: emptyChain,
    });
    expect(identity).toEqual({ region: 'eu-central-1', credentials });
  });

  it('signs a loopback request with placeholders when the chain finds nothing, in the placeholder region', async () => {
    const identity = awsClientIdentity({ endpoint: 'http://localhost:8000', chain: emptyChain });
    expect(identity.region).toBe(PLACEHOLDER_REGION);
    expect(await resolved(identity)).toEqual(PLACEHOLDER_CREDENTIALS);
  });

  it('uses what the chain finds for a loopback endpoint, and AWS_REGION', async () => {
    const found = { accessKeyId: 'AKIDCHAIN', secretAccessKey: 'chain-secret' };
    const identity = awsClientIdentity({
      endpoint: 'http://[::1]:8000',
      env: { AWS_REGION: 'ap-south-1' },
      chain: () => Promise.resolve(found),
    });
    expect(identity.region).toBe('ap-south-1');
    expect(await resolved(identity)).toEqual(found);
  });

  it('passes on a failure of the chain that is not "no credentials"', async () => {
    const broken = new Error('the SSO session has expired');
    const identity = awsClientIdentity({
      endpoint: 'http://127.0.0.1:1',
      chain: () => Promise.reject(broken),
    });
    await expect(resolved(identity)).rejects.toBe(broken);
  });

  it('with the standard chain: environment credentials when set, placeholders when not', async () => {
    const endpoint = 'http://127.0.0.1:8000';
    expect(await resolved(awsClientIdentity({ endpoint }))).toEqual(PLACEHOLDER_CREDENTIALS);

    process.env.AWS_ACCESS_KEY_ID = 'AKIDENV';
    process.env.AWS_SECRET_ACCESS_KEY = 'env-secret';
    expect(await resolved(awsClientIdentity({ endpoint }))).toMatchObject({
      accessKeyId: 'AKIDENV',
      secretAccessKey: 'env-secret',
    });
  });
});

describe('an SDK client built with awsClientIdentity', () => {
  /** The client's signing credentials, as the SDK resolves them for a request. */
  async function signingCredentials(endpoint: string) {
    const client = new DynamoDBClient({ endpoint, maxAttempts: 1, ...awsClientIdentity({ endpoint }) });
    try {
      const provider = client.config.credentials as AwsCredentialIdentityProvider;
      return await provider();
    } finally {
      client.destroy();
    }
  }

  it('needs no credentials or region for a loopback endpoint', async () => {
    expect(await signingCredentials('http://127.0.0.1:8000')).toMatchObject(PLACEHOLDER_CREDENTIALS);
  });

  it("sends nothing to a remote endpoint without credentials: the standard chain's error", async () => {
    const endpoint = 'http://192.0.2.10:8000'; // TEST-NET-1: never reached, signing fails first
    await expect(signingCredentials(endpoint)).rejects.toThrow(/Could not load credentials/);
    const client = new DynamoDBClient({
      endpoint,
      region: 'eu-west-1',
      maxAttempts: 1,
      ...awsClientIdentity({ endpoint, region: 'eu-west-1' }),
    });
    try {
      await expect(client.send(new DescribeTableCommand({ TableName: 't' }))).rejects.toMatchObject({
        name: 'CredentialsProviderError',
      });
    } finally {
      client.destroy();
    }
  });
});
