/**
 * IAM roles of a deployed stack and their inline policies, as IAM gives them back (with what moto does
 * differently from IAM read back as IAM would answer), and IAM's resource pattern matching.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetRoleCommand, GetRolePolicyCommand } from '@aws-sdk/client-iam';
import { z } from 'zod';
import { ensureMotoServer } from '../../support/moto-server.js';
import type { AwsClients } from './aws-clients.js';

const run = promisify(execFile);

/** An IAM policy statement, as the plugin and the template write them. */
const statementSchema = z.looseObject({
  Sid: z.string().optional(),
  Effect: z.string(),
  Action: z.union([z.string(), z.array(z.string())]),
  Resource: z.union([z.string(), z.array(z.string())]),
  Condition: z.unknown().optional(),
});
/**
 * One statement of a role's inline policy.
 *
 * @example
 * ```ts
 * const statement: PolicyStatement = { Sid: 'Offsets', Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: 'arn:...' };
 * ```
 */
export type PolicyStatement = z.infer<typeof statementSchema>;
const policySchema = z.object({ Version: z.string(), Statement: z.array(statementSchema.nullable()) });

/**
 * The ARN of role `roleName`, from IAM.
 *
 * @example
 * ```ts
 * await roleArn(aws, stack.resource('RocketMQPollerTaskRole').physicalId); // => 'arn:aws:iam::123456789012:role/...'
 * ```
 */
export async function roleArn(aws: AwsClients, roleName: string): Promise<string> {
  const { Role } = await aws.iam.send(new GetRoleCommand({ RoleName: roleName }));
  if (Role?.Arn === undefined) throw new Error(`IAM has no role ${roleName}`);
  return Role.Arn;
}

/**
 * A role and its inline policy `policyName`, as IAM gives them back. `nullStatements` counts statements
 * that are null: moto 5.2.5 leaves a list element that an `Fn::If` turned into `AWS::NoValue` in the list
 * as null, where CloudFormation removes it (`statements` holds the others).
 *
 * @example
 * ```ts
 * const { arn, statements } = await roleWithPolicy(aws, roleName, 'rocketmq-poller');
 * ```
 */
export async function roleWithPolicy(
  aws: AwsClients,
  roleName: string,
  policyName: string,
): Promise<{ arn: string; statements: PolicyStatement[]; nullStatements: number }> {
  const arn = await roleArn(aws, roleName);
  const { PolicyDocument } = await aws.iam.send(
    new GetRolePolicyCommand({ RoleName: roleName, PolicyName: policyName }),
  );
  if (PolicyDocument === undefined) throw new Error(`role ${roleName} has no policy ${policyName}`);
  const document = policySchema.parse(await readPolicyDocument(decodeURIComponent(PolicyDocument)));
  const statements = document.Statement.filter((entry) => entry !== null);
  return { arn, statements, nullStatements: document.Statement.length - statements.length };
}

/**
 * A policy document as IAM returned it: JSON, as AWS answers. moto 5.2.5 answers the inline policies of
 * a role it created from a template with Python's repr of the document (`{'Version': '2012-10-17', ...}`:
 * its CloudFormation model stores the dict unserialised), so that form is read back with Python's own
 * `ast.literal_eval`, in the Python that runs moto.
 */
async function readPolicyDocument(text: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError) || !text.startsWith("{'")) throw error;
  }
  const python = path.join(path.dirname(await ensureMotoServer()), 'python');
  const { stdout } = await run(python, [
    '-c',
    'import ast, json, sys; print(json.dumps(ast.literal_eval(sys.argv[1])))',
    text,
  ]);
  return JSON.parse(stdout);
}

/**
 * The statement `sid` of `statements`; throws when absent.
 *
 * @example
 * ```ts
 * statement(role.statements, 'ReadAclSecret').Resource; // => ['arn:...:secret:rocketmq/acl-??????']
 * ```
 */
export function statement(statements: readonly PolicyStatement[], sid: string): PolicyStatement {
  const found = statements.find((s) => s.Sid === sid);
  if (found === undefined) throw new Error(`no statement ${sid} in ${JSON.stringify(statements)}`);
  return found;
}

/**
 * Whether an IAM resource pattern (`*` any run, `?` one character) matches `arn`.
 *
 * @example
 * ```ts
 * iamResourceMatches('arn:aws:secretsmanager:us-east-1:123456789012:secret:acl-??????', realArn); // => true
 * ```
 */
export function iamResourceMatches(pattern: string, arn: string): boolean {
  const source = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(arn);
}
