/**
 * `custom.rocketmq.tls` `*Secret` keys: compiled into the task definition's ECS secrets (the variables
 * the run config reads) and the execution role's read rights, shaped as the ACL secrets are; kept out of
 * the run config; refused when malformed or doubled, without echoing PEM text.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { configTlsConnectionOptions } from '../../../src/poller/rocketmq-client-of-config.js';
import {
  type CfnResource,
  type CompileRocketMQInput,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
  RocketMQPluginError,
  renderPollerConfig,
} from '../../../src/serverless/index.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';
import { deployValues } from './config-check.js';

const CUSTOM = {
  nameServers: '10.0.0.10:9876',
  image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0',
  vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] },
};

const input = (custom: Record<string, unknown>): CompileRocketMQInput => ({
  custom: { ...CUSTOM, ...custom },
  stage: 'prod',
  functions: [
    {
      key: 'orders',
      logicalId: 'OrdersLambdaFunction',
      events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }],
    },
  ],
});

const problemsOf = (custom: Record<string, unknown>): readonly string[] =>
  problemsThrownBy(() => compileRocketMQResources(input(custom)), RocketMQPluginError);

type Statement = { Sid: string; Action: unknown; Resource: unknown };

function statement(role: CfnResource | undefined, sid: string): Statement | undefined {
  const policies = role?.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement).find((s) => s.Sid === sid);
}

function containerSecrets(resources: Readonly<Record<string, CfnResource>>): unknown {
  const definitions = (resources[Ids.taskDefinition]?.Properties.ContainerDefinitions ?? []) as {
    Secrets?: unknown;
  }[];
  return definitions[0]?.Secrets;
}

const ACL_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf';
const CA_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-ca-Zz9Yx8';
/** A partial ARN (no random suffix): one JSON secret holding the certificate and the key. */
const CLIENT_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq/mtls';

describe('custom.rocketmq.tls secrets', () => {
  it('become ECS secrets in the variables the poller reads, readable by the execution role only', async () => {
    const { resources, pollerConfig } = compileRocketMQResources(
      input({
        acl: { secretArn: ACL_SECRET },
        tls: {
          caSecret: CA_SECRET,
          certSecret: `${CLIENT_SECRET}:cert`,
          keySecret: `${CLIENT_SECRET}:key`,
          keyPassphraseSecret: '/rocketmq/tls/key-passphrase',
          serverName: 'localhost',
        },
      }),
    );

    expect(containerSecrets(resources)).toEqual([
      { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: `${ACL_SECRET}:accessKey::` },
      { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: `${ACL_SECRET}:secretKey::` },
      { Name: 'ROCKETMQ_TLS_CA', ValueFrom: CA_SECRET },
      { Name: 'ROCKETMQ_TLS_CERT', ValueFrom: `${CLIENT_SECRET}:cert::` },
      { Name: 'ROCKETMQ_TLS_KEY', ValueFrom: `${CLIENT_SECRET}:key::` },
      { Name: 'ROCKETMQ_TLS_KEY_PASSPHRASE', ValueFrom: '/rocketmq/tls/key-passphrase' },
    ]);
    const execution = resources[Ids.executionRole];
    expect(statement(execution, 'ReadAclSecret')).toMatchObject({
      Action: 'secretsmanager:GetSecretValue',
      // The partial ARN once, with the wildcard of its random suffix.
      Resource: [ACL_SECRET, CA_SECRET, `${CLIENT_SECRET}-??????`],
    });
    expect(statement(execution, 'ReadAclParameters')).toMatchObject({
      Action: 'ssm:GetParameters',
      Resource: [
        {
          'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/rocketmq/tls/key-passphrase`,
        },
      ],
    });
    // The task role reads no secret.
    expect(JSON.stringify(resources[Ids.taskRole])).not.toContain('secretsmanager');

    // The run config keeps the other settings and none of the secret keys; with the variables ECS
    // fills, it loads and its key decrypts.
    if (pollerConfig === undefined) throw new Error('no poller config');
    const raw = JSON.parse(renderPollerConfig(pollerConfig, deployValues(pollerConfig))) as {
      tls: unknown;
    };
    expect(raw.tls).toEqual({ serverName: 'localhost' });
    const certs = await tlsTestCerts();
    const passphrase = 'From-Ssm-77aa';
    const config = parseConfig(raw, {
      baseDir: '/app',
      env: {
        ROCKETMQ_TLS_CA: certs.ca.certPem,
        ROCKETMQ_TLS_CERT: certs.client.certPem,
        ROCKETMQ_TLS_KEY: encryptedKeyPem(certs.client, passphrase),
        ROCKETMQ_TLS_KEY_PASSPHRASE: passphrase,
      },
    });
    expect(config.tls).toMatchObject({ serverName: 'localhost', keyPassphrase: passphrase });
    expect(configTlsConnectionOptions(config.tls ?? {})).toHaveProperty('secureContext');
  });

  it('takes an intrinsic as a secret ARN, and a parameter ARN as is', () => {
    const parameterArn = 'arn:aws:ssm:eu-west-1:123456789012:parameter/rocketmq/ca';
    const { resources } = compileRocketMQResources(
      input({
        tls: { caSecret: parameterArn, certSecret: { Ref: 'ClientCert' }, keyFile: '/app/client.key' },
      }),
    );
    expect(containerSecrets(resources)).toEqual([
      { Name: 'ROCKETMQ_TLS_CA', ValueFrom: parameterArn },
      { Name: 'ROCKETMQ_TLS_CERT', ValueFrom: { Ref: 'ClientCert' } },
    ]);
    const execution = resources[Ids.executionRole];
    expect(statement(execution, 'ReadAclSecret')?.Resource).toEqual([
      { Ref: 'ClientCert' },
      { 'Fn::Join': ['', [{ Ref: 'ClientCert' }, '-??????']] },
    ]);
    expect(statement(execution, 'ReadAclParameters')?.Resource).toEqual([parameterArn]);
  });

  it('refuses doubled sources, half pairs and malformed references, never echoing PEM text', async () => {
    const certs = await tlsTestCerts();
    const said = problemsOf({
      tls: {
        certSecret: `${CLIENT_SECRET}:cert:AWSCURRENT`,
        keyPassphraseSecret: 'arn:aws:s3:::bucket/passphrase',
      },
    });
    expect(said).toEqual([
      `custom.rocketmq.tls.certSecret: takes <secret ARN> or <secret ARN>:<jsonKey> (no version stage or id), got "${CLIENT_SECRET}:cert:AWSCURRENT"`,
      'custom.rocketmq.tls.keyPassphraseSecret: must be a Secrets Manager secret ARN (optionally :<jsonKey>), an SSM parameter ARN or an SSM parameter name, got "arn:aws:s3:::bucket/passphrase"',
    ]);
    expect(
      problemsOf({
        tls: {
          caFile: '/app/ca.pem',
          caSecret: CA_SECRET,
          certSecret: CLIENT_SECRET,
          keyPassphraseSecret: 'p',
        },
      }),
    ).toEqual([
      'custom.rocketmq.tls.caSecret: set together with caFile: give the CA certificates one way',
      'custom.rocketmq.tls.keySecret: required with certSecret',
      'custom.rocketmq.tls.keyPassphraseSecret: set without a key to decrypt',
    ]);

    const pasted = problemsOf({ tls: { certFile: '/app/client.pem', keySecret: certs.client.keyPem } });
    expect(pasted).toEqual([
      'custom.rocketmq.tls.keySecret: must be a Secrets Manager secret ARN (optionally :<jsonKey>), an SSM parameter ARN or an SSM parameter name; this looks like PEM text (not shown): store it in a secret and name that',
    ]);
    for (const line of certs.client.keyPem.split('\n').filter((l) => l.length > 8 && !l.startsWith('-----')))
      expect(pasted.join('\n')).not.toContain(line);

    // A passphrase written into serverless.yml would land in the template: only its secret is taken.
    expect(problemsOf({ tls: { keyFile: '/app/k', certFile: '/app/c', keyPassphrase: 'x' } })).toEqual([
      'custom.rocketmq.tls.keyPassphrase: unknown key',
    ]);
  });
});
