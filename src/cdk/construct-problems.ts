/**
 * The compiler's problems in CDK words. The compiler (src/serverless/compile-rocketmq-resources.ts)
 * names keys as a serverless.yml has them (`custom.rocketmq.vpc.subnetIds`,
 * `functions.orders.events[0].rocketmq.maximumBatchingWindow`); a CDK user wrote props of a construct
 * (`RocketMQPoller(Stack/Poller).vpcSubnets`, `RocketMQEventSource(Stack/Orders).maxBatchingWindow`).
 */

/** A function's compiler key and the label of its event source. */
export interface MappingLabel {
  readonly key: string;
  readonly label: string;
}

/** `custom.rocketmq` keys whose prop has another name or shape (the rest keep theirs). */
const POLLER_PROPS: readonly (readonly [string, string])[] = [
  ['vpc.subnetIds', 'vpcSubnets'],
  ['vpc.securityGroupIds', 'securityGroups'],
  ['vpc.assignPublicIp', 'assignPublicIp'],
  ['acl.secretArn', 'acl.secret'],
  ['acl.kmsKeyArn', 'acl.kmsKey'],
  ['alarms.topicArn', 'alarms.topics'],
  ['alarms.messageAgeSeconds', 'alarms.messageAge'],
];

/** Event keys whose prop has another name (CDK's own names for the same settings). */
const EVENT_PROPS: readonly (readonly [string, string])[] = [['maximumBatchingWindow', 'maxBatchingWindow']];

/**
 * Each problem line with its key path rewritten: `custom.rocketmq` → `pollerLabel`, a function's
 * `functions.<key>.events[<i>].rocketmq` → its event source's label.
 */
export function cdkProblems(
  problems: readonly string[],
  pollerLabel: string,
  mappings: readonly MappingLabel[],
): string[] {
  return problems.map((line) => {
    const rewritten = rewriteHead(line, pollerLabel, mappings);
    // Another mapping named inside the message ("already the group of functions.x.events[0].rocketmq").
    return mappings.reduce(
      (text, { key, label }) => text.replaceAll(`functions.${key}.events[0].rocketmq`, label),
      rewritten,
    );
  });
}

function rewriteHead(line: string, pollerLabel: string, mappings: readonly MappingLabel[]): string {
  const custom = rewrite(line, 'custom.rocketmq', pollerLabel, POLLER_PROPS);
  if (custom !== undefined) return custom;
  for (const { key, label } of mappings) {
    const event = rewrite(line, `functions.${key}.events[0].rocketmq`, label, EVENT_PROPS);
    if (event !== undefined) return event;
    const fn = rewrite(line, `functions.${key}`, label, []);
    if (fn !== undefined) return fn;
  }
  return line;
}

function rewrite(
  line: string,
  prefix: string,
  label: string,
  renames: readonly (readonly [string, string])[],
): string | undefined {
  if (!line.startsWith(prefix)) return undefined;
  let rest = line.slice(prefix.length);
  if (rest !== '' && !/^[.:[]/.test(rest)) return undefined;
  for (const [from, to] of renames) {
    const key = `.${from}`;
    if (rest.startsWith(key) && /^[.:[]/.test(rest.slice(key.length))) {
      rest = `.${to}${rest.slice(key.length)}`;
      break;
    }
  }
  return `${label}${rest}`;
}
