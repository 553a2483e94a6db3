/**
 * Keeps infra/cloudformation/rocketmq-poller.yml equal to what the compiler builds from
 * infra/cloudformation/rocketmq-poller.stack.yml (as `rocketmq-lambda template` would).
 * `npm run template:standalone` rewrites the template; a unit test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type CfnTemplateDocument,
  parseStackFileText,
  renderTemplate,
  standaloneTemplate,
} from '../../src/serverless/standalone-template.js';

/** The example stack file. */
export const STACK_FILE_PATH = fileURLToPath(
  new URL('../../infra/cloudformation/rocketmq-poller.stack.yml', import.meta.url),
);
/** The template generated from it. */
export const STANDALONE_TEMPLATE_PATH = fileURLToPath(
  new URL('../../infra/cloudformation/rocketmq-poller.yml', import.meta.url),
);

/** The comment on top of the generated template. */
const HEADER = [
  'Generated from rocketmq-poller.stack.yml by `npm run template:standalone` (the same as',
  '`rocketmq-lambda template --config rocketmq-poller.stack.yml`): edit the stack file, not this one.',
  'Deploy with:',
  '  aws cloudformation deploy --template-file rocketmq-poller.yml --stack-name rocketmq-poller \\',
  '    --capabilities CAPABILITY_IAM --parameter-overrides OrdersFunctionArn=... SubnetIds=... \\',
  '    SecurityGroupIds=... AclSecretArn=...',
  'See docs/deploying.md, "Without the Serverless Framework".',
];

/** The template built from the example stack file. */
export function generatedTemplate(): CfnTemplateDocument {
  const stack = parseStackFileText(readFileSync(STACK_FILE_PATH, 'utf8'), 'yaml', {
    source: STACK_FILE_PATH,
  });
  return standaloneTemplate(stack, { source: STACK_FILE_PATH }).template;
}

/** The text infra/cloudformation/rocketmq-poller.yml must have. */
export function generatedTemplateText(): string {
  return renderTemplate(generatedTemplate(), 'yaml', HEADER);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(STANDALONE_TEMPLATE_PATH, generatedTemplateText());
  process.stdout.write(`wrote ${STANDALONE_TEMPLATE_PATH}\n`);
}
