/**
 * cdk-nag's AwsSolutions pack on the CDK example (infra/cdk). The poller's resources are CfnResources of
 * the compiler's output, which cdk-nag's rules (written against aws-cdk-lib's typed L1 classes) pass over
 * in the app itself; so the synthesized template is read back with cloudformation-include, which gives
 * every resource its typed L1, and checked there, as cdk-nag's README describes for templates. Every
 * finding must be one of ACCEPTED, each with the reason it stands; a new finding, or one that went away,
 * fails the test until this list says why.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, DefaultStackSynthesizer, Stack, Validations } from 'aws-cdk-lib';
import { CfnInclude } from 'aws-cdk-lib/cloudformation-include';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { synthesizeExample } from '../../support/cdk-example.js';

/** Findings that stand, by rule and resource (CDK's hash suffixes cut), with why. */
const ACCEPTED: Readonly<Record<string, string>> = {
  'AwsSolutions-ECS2 PollerRocketMQPollerTaskDefinition':
    'The environment holds the run config, which has no secret in it: the ACL keys and TLS material reach the container as ECS secrets (valueFrom), never as values.',
  'AwsSolutions-ECS4 PollerRocketMQPollerCluster':
    "The poller publishes what operators watch (lag, message age, invocations, dead letters, health) itself and the stack's dashboard and alarms use it; Container Insights would add per-task metrics at extra cost. Pass your own cluster (`cluster`) to have them.",
  'AwsSolutions-IAM5[Resource::["${Arn}:*",{"Arn":{"Fn::GetAtt":["Orders","Arn"]}}]] PollerRocketMQPollerTaskRole':
    "`<function ARN>:*` is the mapped function's versions and aliases (a qualified invoke), no other function.",
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole] OrdersServiceRole':
    "The example function's own role, as lambda.Function makes it: your function's role is yours.",
  'AwsSolutions-L1 Orders':
    'The example function runs on Node 22, the runtime the handler kit and the Serverless example target.',
};

/** `Checker/Template/PollerRocketMQPollerCluster1A2B3C4D` → `PollerRocketMQPollerCluster`. */
function withoutHashes(text: string): string {
  return text.replace(/(?<=[a-z])[0-9A-F]{8}(?![0-9A-Za-z])/g, '');
}

interface Report {
  readonly pluginReports: readonly {
    readonly violations: readonly {
      readonly ruleName: string;
      readonly violatingConstructs: readonly { readonly constructPath: string }[];
    }[];
  }[];
}

const workDir = mkdtempSync(path.join(tmpdir(), 'rocketmq-cdk-nag-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** One finding as cdk-nag reports it: the rule (with its finding id) and the resource's logical id. */
interface Finding {
  readonly rule: string;
  readonly logicalId: string;
}

/** `finding` as ACCEPTED names it. */
function named(finding: Finding): string {
  return `${withoutHashes(finding.rule)} ${withoutHashes(finding.logicalId)}`;
}

/** cdk-nag on the example's template, with `acknowledged` acknowledged (their reasons from ACCEPTED). */
function check(acknowledged: readonly Finding[] = []): Finding[] {
  const templateFile = path.join(workDir, 'example.template.json');
  writeFileSync(templateFile, JSON.stringify(synthesizeExample().template.toJSON()));
  const outdir = mkdtempSync(path.join(workDir, 'out-'));
  const app = new App({ outdir });
  // The template brings its own BootstrapVersion parameter: the checker's stack adds none.
  const stack = new Stack(app, 'Checker', {
    synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
  });
  const included = new CfnInclude(stack, 'Template', { templateFile });
  for (const finding of acknowledged) {
    const reason = ACCEPTED[named(finding)];
    if (reason === undefined) throw new Error(`no reason accepts ${named(finding)}`);
    Validations.of(included.getResource(finding.logicalId)).acknowledge({
      id: `AwsSolutions::${finding.rule}`,
      reason,
    });
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return [];
  } catch (error) {
    if (!String(error).includes('ValidationFailed')) throw error;
  }
  const report = JSON.parse(readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as Report;
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations.flatMap((violation) =>
      violation.violatingConstructs.map((construct) => ({
        rule: violation.ruleName,
        logicalId: construct.constructPath.split('/').at(-1) ?? construct.constructPath,
      })),
    ),
  );
}

describe('cdk-nag AwsSolutions on the CDK example', { timeout: 120_000 }, () => {
  it('finds exactly the accepted findings; acknowledged with their reasons, the app passes', () => {
    const findings = check();
    expect(findings.map(named).sort()).toEqual(Object.keys(ACCEPTED).sort());
    expect(check(findings)).toEqual([]);
  });
});
