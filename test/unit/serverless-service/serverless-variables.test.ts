import { describe, expect, it } from 'vitest';
import {
  findVariables,
  keyText,
  pathOfFrameworkKey,
  readsAws,
  resolutionProblems,
  variablesIn,
} from '../../../src/serverless-service/serverless-variables.js';

/** What osls 4.3.1 `print` says (stdout after its `Error:` line) when variables cannot be resolved. */
const OSLS_RESOLUTION_ERROR = [
  'Cannot resolve serverless.yml: Variables resolution errored with:',
  '  - Cannot resolve variable at "custom.ns": Value not found at "self" source,',
  '  - Cannot resolve variable at "custom.dotted.key": Value not found at "env" source,',
  '  - Cannot resolve variable at "functions.f.events.0.rocketmq.topic": Value not found at "opt" source',
].join('\n');

describe('variablesIn', () => {
  it('finds the variables the Framework parses, nested ones whole, with their source', () => {
    expect(variablesIn(`orders-\${self:custom.\${sls:stage}.suffix}-\${env:X, 'y'}`)).toEqual([
      { text: `\${self:custom.\${sls:stage}.suffix}`, source: 'self' },
      { text: `\${env:X, 'y'}`, source: 'env' },
    ]);
    expect(variablesIn(`\${file(./settings.yml):batchSize}`)).toEqual([
      { text: `\${file(./settings.yml):batchSize}`, source: 'file' },
    ]);
    expect(variablesIn(`\${ssm(raw):/a/b}`)[0]?.source).toBe('ssm');
  });

  it('leaves out what the Framework leaves alone: Fn::Sub references, escaped variables, plain text', () => {
    expect(variablesIn(`arn:aws:sqs:\${AWS::Region}:\${AWS::AccountId}:q`)).toEqual([]);
    expect(variablesIn(`\\\${self:custom.x}`)).toEqual([]);
    expect(variablesIn('no variables, a $ and {braces}')).toEqual([]);
  });

  it('takes an unclosed variable to the end of the string', () => {
    expect(variablesIn(`a \${self:custom.b`)).toEqual([{ text: `\${self:custom.b`, source: 'self' }]);
  });
});

describe('findVariables and keyText', () => {
  it('names each variable by its key path, list indexes in brackets', () => {
    const document = {
      service: 'plain',
      custom: { ns: `\${env:NS}` },
      functions: { f: { events: [{ http: {} }, { rocketmq: { topic: `T-\${sls:stage}`, batchSize: 5 } }] } },
    };
    expect(findVariables(document).map((use) => [use.key, use.variable, use.source])).toEqual([
      ['custom.ns', `\${env:NS}`, 'env'],
      ['functions.f.events[1].rocketmq.topic', `\${sls:stage}`, 'sls'],
    ]);
    expect(findVariables(`\${opt:stage}`, ['provider', 'stage'])[0]?.key).toBe('provider.stage');
    expect(keyText(['a', 0, 'b', 1])).toBe('a[0].b[1]');
  });

  it('tells the AWS sources apart', () => {
    expect(['ssm', 'cf', 's3', 'aws', 'self', 'env', 'file'].map(readsAws)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('pathOfFrameworkKey', () => {
  it('follows list indexes and keys that contain dots', () => {
    const document = { custom: { 'dotted.key': { x: 1 }, list: ['a', 'b'] } };
    expect(pathOfFrameworkKey(document, 'custom.dotted.key.x')).toEqual(['custom', 'dotted.key', 'x']);
    expect(pathOfFrameworkKey(document, 'custom.list.1')).toEqual(['custom', 'list', 1]);
    expect(pathOfFrameworkKey(document, 'custom.nothing')).toBeUndefined();
    expect(pathOfFrameworkKey(document, 'custom.list.7')).toBeUndefined();
  });
});

describe('resolutionProblems', () => {
  const document = {
    custom: {
      ns: `\${self:custom.nameServer}`,
      'dotted.key': `\${env:MISSING}`,
      rocketmq: { nameServers: `\${self:custom.ns}` },
    },
    functions: { f: { events: [{ rocketmq: { topic: `orders-\${opt:suffix}`, consumerGroup: 'g' } }] } },
  };

  it("names the key, the variable written there, the Framework's reason and the keys that use the value", () => {
    expect(resolutionProblems(OSLS_RESOLUTION_ERROR, document)).toEqual([
      `custom.ns: \${self:custom.nameServer}: Value not found at "self" source (used by custom.rocketmq.nameServers)`,
      `custom.dotted.key: \${env:MISSING}: Value not found at "env" source`,
      `functions.f.events[0].rocketmq.topic: \${opt:suffix}: Value not found at "opt" source`,
    ]);
  });

  it('names the keys of an unknown source, and says what an AWS source needs', () => {
    expect(
      resolutionProblems('Unrecognized configuration variable sources: "vault", "foo"', {
        custom: { a: `\${vault:db/password}`, b: 'x' },
      }),
    ).toEqual([
      `custom.a: \${vault:db/password}: unknown variable source "vault" (neither the Framework nor a plugin of the service provides it)`,
    ]);
    const [ssm] = resolutionProblems(
      'Cannot resolve serverless.yml: Variables resolution errored with:\n' +
        '  - Cannot resolve variable at "custom.ns": AWS provider credentials not found. Learn how to set up AWS provider credentials in our docs here: <https://github.com/oss-serverless/osls/blob/4.x/docs/guides/credentials.md>.',
      { custom: { ns: `\${ssm:/rocketmq/ns}` } },
    );
    expect(ssm).toMatch(/^custom\.ns: \$\{ssm:\/rocketmq\/ns\}: AWS provider credentials not found\./);
    expect(ssm).toContain('ssm: reads AWS');
    expect(ssm).toContain('--region');
  });

  it('reports syntax errors by key, keeps multi-line reasons whole, and gives nothing for other failures', () => {
    expect(
      resolutionProblems(
        'Cannot resolve serverless.yml: Variables resolution errored with:\n' +
          `  - Variable syntax error at "custom.a": Missing variable closing bracket in \${self:custom.b`,
        { custom: { a: `\${self:custom.b` } },
      ),
    ).toEqual([
      `custom.a: \${self:custom.b: syntax error: Missing variable closing bracket in \${self:custom.b`,
    ]);
    expect(
      resolutionProblems(
        'Cannot resolve serverless.yml: Variables resolution errored with:\n' +
          '  - Cannot resolve variable at "custom.c": Cannot parse "values.yml": bad indentation\n  at line 2',
        { custom: { c: `\${file(./values.yml)}` } },
      ),
    ).toEqual([`custom.c: \${file(./values.yml)}: Cannot parse "values.yml": bad indentation\n  at line 2`]);
    expect(resolutionProblems('osls plugin "x" not found.', document)).toEqual([]);
  });
});
