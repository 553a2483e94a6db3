/**
 * TLS material from secrets, end to end: a TLS-only RocketMQ that requires client certificates (mutual
 * TLS), and a poller given no PEM file at all. The CA, the client certificate and its encrypted key live
 * in one Secrets Manager secret (JSON keys) and the passphrase in an SSM SecureString parameter, both in
 * moto; the plugin compiles `custom.rocketmq.tls` `*Secret` keys into the task definition's `Secrets`,
 * and each `ValueFrom` is resolved against moto the way ECS does at task start, into the environment the
 * poller is started with. It consumes every message; its output holds no PEM line and no passphrase.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildTlsConnectionOptions } from '../../../src/network/tls-options.js';
import {
  type CfnResource,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
} from '../../../src/serverless/index.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { MOTO_CLIENT_CONFIG, startMotoServer } from '../../support/moto-server.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';
import { readLedger } from '../cli/poller-process.js';
import { newProducer, produce } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import {
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { createTopicOn, ownBrokerClient, startOwnBroker } from './own-broker.js';

const TEST_TIMEOUT_MS = 180_000;
const QUEUES = 2;
const MESSAGES = 100;
const CATCH_UP_TIMEOUT_MS = 60_000;
const PASSPHRASE = 'Secret-Passphrase-5ec2e7';
const REGION = MOTO_CLIENT_CONFIG.region;

describe('TLS material from Secrets Manager and SSM (moto), as ECS injects it', () => {
  it(
    'an mTLS broker: CA, client certificate, encrypted key and passphrase from secrets only; every message consumed; nothing of them printed',
    async () => {
      const certs = await tlsTestCerts();
      const encryptedKey = encryptedKeyPem(certs.client, PASSPHRASE);
      const moto = await startMotoServer();
      onTestFinished(() => moto.close());
      const aws = awsJson(moto.endpoint);
      const { ARN: secretArn } = (await aws('secretsmanager', 'CreateSecret', {
        Name: 'rocketmq/mtls',
        SecretString: JSON.stringify({ ca: certs.ca.certPem, cert: certs.client.certPem, key: encryptedKey }),
      })) as { ARN: string };
      await aws('ssm', 'PutParameter', {
        Name: '/rocketmq/tls/key-passphrase',
        Value: PASSPHRASE,
        Type: 'SecureString',
      });

      // What the plugin puts in the task definition.
      const { resources } = compileRocketMQResources({
        custom: {
          nameServers: '10.0.0.10:9876',
          image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0',
          vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] },
          tls: {
            caSecret: `${secretArn}:ca`,
            certSecret: `${secretArn}:cert`,
            keySecret: `${secretArn}:key`,
            keyPassphraseSecret: '/rocketmq/tls/key-passphrase',
          },
        },
        stage: 'test',
        functions: [
          {
            key: 'f',
            logicalId: 'FLambdaFunction',
            events: [{ rocketmq: { topic: 'T', consumerGroup: 'g' } }],
          },
        ],
      });
      const env = await resolveEcsSecrets(containerSecrets(resources), aws);
      expect(Object.keys(env).sort()).toEqual([
        'ROCKETMQ_TLS_CA',
        'ROCKETMQ_TLS_CERT',
        'ROCKETMQ_TLS_KEY',
        'ROCKETMQ_TLS_KEY_PASSPHRASE',
      ]);

      const broker = await startOwnBroker({
        tls: {
          certPath: certs.server.certPath,
          keyPath: certs.server.keyPath,
          caPath: certs.ca.certPath,
          clientAuth: {
            caPath: certs.ca.certPath,
            certPath: certs.client.certPath,
            keyPath: certs.client.keyPath,
          },
        },
      });
      const client = ownBrokerClient(broker, {
        tls: buildTlsConnectionOptions({
          caPem: certs.ca.certPem,
          certPem: certs.client.certPem,
          keyPem: certs.client.keyPem,
        }),
      });
      const topic = uniqueTopic('fault_tls_secrets');
      const group = uniqueGroup('fault_tls_secrets');
      await createTopicOn(client, broker, topic, QUEUES);
      const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES, batch: 50 });

      // The run config names no TLS file: `tls: true` (as the plugin writes it when only secrets are
      // set), the material comes from the environment.
      const dir = await scenarioDir('tls-secrets');
      const ledgerFile = `${dir}/ledger`;
      const configFile = await writePollerConfig(dir, {
        nameServer: broker.namesrvAddr,
        tls: true,
        offsets: { store: 'memory' },
        mappings: [ledgerMapping(dir, { topic, consumerGroup: group })],
      });
      const poller = new PollerSeries(configFile, { ...env, LEDGER_FILE: ledgerFile });
      const child = poller.start();
      await poller.started();
      await waitForLedgers(sent, { ours: () => readLedger(ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      const stop = await poller.end('SIGTERM');

      const summary = summarizeLedger(sent, readLedger(ledgerFile));
      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(stop, poller.output()).toEqual({ code: 0, signal: null });
      const output = child.stdout() + child.stderr();
      expect(output).not.toContain(PASSPHRASE);
      expect(output).not.toMatch(/-----BEGIN/);
      for (const pem of [certs.ca.certPem, certs.client.certPem, encryptedKey]) {
        for (const line of pem.split('\n').filter((l) => l.length > 16 && !l.startsWith('-----')))
          expect(output).not.toContain(line);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

type AwsJson = (service: 'secretsmanager' | 'ssm', action: string, body: unknown) => Promise<unknown>;

/**
 * A caller of moto's JSON APIs (Secrets Manager, SSM): moto checks no signature, and routes by the
 * service in the credential scope.
 */
function awsJson(endpoint: string): AwsJson {
  const targets = { secretsmanager: 'secretsmanager', ssm: 'AmazonSSM' } as const;
  return async (service, action, body) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': `${targets[service]}.${action}`,
        Authorization: `AWS4-HMAC-SHA256 Credential=test/20250101/${REGION}/${service}/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${service} ${action}: HTTP ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as unknown;
  };
}

function containerSecrets(
  resources: Readonly<Record<string, CfnResource>>,
): { Name: string; ValueFrom: unknown }[] {
  const definitions = (resources[Ids.taskDefinition]?.Properties.ContainerDefinitions ?? []) as {
    Secrets?: { Name: string; ValueFrom: unknown }[];
  }[];
  return definitions[0]?.Secrets ?? [];
}

/**
 * What ECS does with a container's `Secrets` at task start: a Secrets Manager `ValueFrom`
 * (`<arn>[:<json-key>:<stage>:<id>]`) is read with GetSecretValue (one JSON key of it when named), any
 * other with SSM GetParameters, decrypted.
 */
async function resolveEcsSecrets(
  secrets: readonly { Name: string; ValueFrom: unknown }[],
  aws: AwsJson,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const { Name, ValueFrom } of secrets) {
    if (typeof ValueFrom !== 'string') throw new Error(`${Name}: ValueFrom is not literal`);
    const secret = /^(arn:[^:]+:secretsmanager:[^:]+:[^:]+:secret:[^:]+)(?::([^:]*):[^:]*:[^:]*)?$/.exec(
      ValueFrom,
    );
    if (secret !== null) {
      const { SecretString } = (await aws('secretsmanager', 'GetSecretValue', { SecretId: secret[1] })) as {
        SecretString: string;
      };
      const jsonKey = secret[2];
      env[Name] =
        jsonKey === undefined || jsonKey === ''
          ? SecretString
          : String((JSON.parse(SecretString) as Record<string, unknown>)[jsonKey]);
    } else {
      const { Parameters } = (await aws('ssm', 'GetParameters', {
        Names: [ValueFrom],
        WithDecryption: true,
      })) as {
        Parameters: { Value: string }[];
      };
      const value = Parameters[0]?.Value;
      if (value === undefined) throw new Error(`${Name}: no parameter ${ValueFrom}`);
      env[Name] = value;
    }
  }
  return env;
}
