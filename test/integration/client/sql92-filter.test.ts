import { describe, expect, it, onTestFinished } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { selectedBrokerVersion } from '../../../src/local-broker/broker-version.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { checkSql92Filter, MAX_SQL92_NESTING } from '../../../src/protocol/sql92-filter.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { newClient } from './helpers.js';

type Verdict = 'accept' | 'reject';

const nested = (depth: number) => `${'('.repeat(depth)}a > 1${')'.repeat(depth)}`;

/** Expressions and the verdict both the broker and checkSql92Filter give, one group per grammar rule. */
const CORPUS: Record<string, [string, Verdict][]> = {
  strings: [
    ["a = 'x'", 'accept'],
    ["a = ''", 'accept'],
    ["a = 'it''s'", 'accept'],
    ["a = ''''", 'accept'],
    ["a = '中文 é 😀 \u00a0'", 'accept'],
    ["a = 'line\nbreak'", 'accept'],
    ["a = '-- not a comment' AND b = '/* nor this */'", 'accept'],
    ["a = 'open", 'reject'],
    ["a = 'x''", 'reject'],
    ['a = "x"', 'reject'],
  ],
  integers: [
    ['a = 0', 'accept'],
    ['a = 42', 'accept'],
    ['a = 42L', 'accept'],
    ['a = 42l', 'accept'],
    ['a = 9223372036854775807', 'accept'],
    ['a = 9223372036854775807L', 'accept'],
    ['a = 9223372036854775808', 'reject'],
    ['a = -9223372036854775808', 'reject'],
    ['a = 10000000000000000000', 'reject'],
  ],
  floats: [
    ['a > 1.5', 'accept'],
    ['a > 1.', 'accept'],
    ['a > .5', 'accept'],
    ['a > 1e3', 'accept'],
    ['a > 1.5E-3', 'accept'],
    ['a > 5.e+3', 'accept'],
    ['a > 9223372036854775808.0', 'accept'],
    ['a > 4.9e-324', 'accept'],
    ['a > 1.7976931348623157e308', 'accept'],
    ['a > 1.7976931348623159e308', 'reject'],
    ['a > 1e400', 'reject'],
    ['a > 0.0', 'reject'],
    ['a > 0e5', 'reject'],
    ['a > 1e-400', 'reject'],
    ['a > .', 'reject'],
  ],
  'TRUE, FALSE, NULL': [
    ['TRUE', 'accept'],
    ['true OR False', 'accept'],
    ['NULL', 'accept'],
    ['NOT NULL', 'accept'],
    ['a = TRUE', 'accept'],
    ['1 = TRUE', 'accept'],
    ['TRUE = FALSE', 'accept'],
    ['TRUE = 1', 'reject'],
    ["FALSE <> 'x'", 'reject'],
    ['a = NULL', 'reject'],
    ['NULL = a', 'reject'],
    ['a <> NULL', 'reject'],
  ],
  identifiers: [
    ['a', 'accept'],
    ['$x_1 > 1', 'accept'],
    ['_ > 1', 'accept'],
    ["TAGS = 'TagA'", 'accept'],
    ['nul = 1 AND nulls IS NULL AND notx > 1 AND INx = 2 AND now > 3', 'accept'],
    ["like = 'x'", 'accept'],
    ['é > 1', 'reject'],
    ['and > 1', 'reject'],
    ["in = 'x'", 'reject'],
    ['is = 1', 'reject'],
    ['1a > 1', 'reject'],
  ],
  comparisons: [
    ['a > 1 AND a >= 1 AND a < 1 AND a <= 1 AND a <> 1 AND a = b', 'accept'],
    ['1 > 2', 'accept'],
    ["a > -'x'", 'accept'],
    ['a >= -b', 'accept'],
    ['a = b = c', 'accept'],
    ['a > 1 = TRUE', 'accept'],
    ['(a > 1) = (b > 1)', 'accept'],
    ["a > 'x'", 'reject'],
    ["'a' < 'b'", 'reject'],
    ['a > TRUE', 'reject'],
    ['a > NULL', 'reject'],
    ['a > 1 > 2', 'reject'],
    ['a > (b > 1)', 'reject'],
    ['a => 1', 'reject'],
    ['a =< 1', 'reject'],
    ['a == 1', 'reject'],
    ['a != 1', 'reject'],
  ],
  'IS NULL': [
    ['a IS NULL', 'accept'],
    ['a is not null', 'accept'],
    ["5 IS NULL AND 'x' IS NOT NULL", 'accept'],
    ['a IS NULL IS NULL', 'accept'],
    ['a IS', 'reject'],
    ['a IS NOT', 'reject'],
    ['a IS TRUE', 'reject'],
  ],
  BETWEEN: [
    ['a BETWEEN 1 AND 2', 'accept'],
    ['a between 1 and 1', 'accept'],
    ['a BETWEEN 1.5 AND 2', 'accept'],
    ['a BETWEEN -5 AND -1', 'accept'],
    ['a BETWEEN -1 AND -5', 'accept'],
    ['a BETWEEN b AND 1', 'accept'],
    ['a NOT BETWEEN 2 AND 1', 'accept'],
    ['a BETWEEN 1 AND 2 AND b', 'accept'],
    ['a BETWEEN 9007199254740993 AND 9007199254740992.0', 'accept'],
    ['a BETWEEN 2 AND 1', 'reject'],
    ['a BETWEEN 1 AND 0.5', 'reject'],
    ['a BETWEEN (2) AND 1', 'reject'],
    ['a BETWEEN 9223372036854775807 AND 9223372036854775806', 'reject'],
    ['a BETWEEN NULL AND 1', 'reject'],
    ["a BETWEEN 'a' AND 'b'", 'reject'],
    ['TRUE BETWEEN 1 AND 2', 'reject'],
    ['a BETWEEN 1', 'reject'],
    ['a BETWEEN 1 OR 2', 'reject'],
  ],
  IN: [
    ["a IN ('x')", 'accept'],
    ["a IN ('x', 'y', 'z', 'w', 'v', 'u')", 'accept'],
    ["a not in ('it''s')", 'accept'],
    ["(a) IN ('x') AND +b IN ('y')", 'accept'],
    ['a IN ()', 'reject'],
    ["a IN ('x',)", 'reject'],
    ['a IN (1)', 'reject'],
    ["a IN 'x'", 'reject'],
    ["a IN ('x'", 'reject'],
    ["1 IN ('x')", 'reject'],
    ["-a IN ('x')", 'reject'],
    ["a IN ('x') IN ('y')", 'reject'],
  ],
  'CONTAINS, STARTSWITH, ENDSWITH': [
    ["a CONTAINS 'x' AND a NOT CONTAINS 'y'", 'accept'],
    ["a STARTSWITH 'x' AND a NOT STARTSWITH 'y'", 'accept'],
    ["a endswith 'x' AND a not EndsWith 'y'", 'accept'],
    ["1 CONTAINS 'x'", 'accept'],
    ["a CONTAINS ''", 'accept'],
    ['a CONTAINS b', 'reject'],
    ['a STARTSWITH 1', 'reject'],
    ['a NOT', 'reject'],
    ["a NOT LIKE 'x'", 'reject'],
    ['a NOT = 1', 'reject'],
  ],
  'AND, OR, NOT': [
    ['a AND b', 'accept'],
    ["a > 1 AND b < 2 OR c = 'x'", 'accept'],
    ['NOT a', 'accept'],
    ['NOT NOT a', 'accept'],
    ['NOT (a > 1)', 'accept'],
    ['NOT a = 1', 'accept'],
    ['NOT a > 1', 'reject'],
    ['a AND 1', 'reject'],
    ["a OR 'x'", 'reject'],
    ['a AND -b', 'reject'],
    ['NOT 1', 'reject'],
    ['a AND', 'reject'],
    ['AND a', 'reject'],
    ['a OR OR b', 'reject'],
    ['a && b', 'reject'],
    ['a || b', 'reject'],
  ],
  'unary + and -': [
    ['+a', 'accept'],
    ['+ + a', 'accept'],
    ['- - a > 1', 'accept'],
    ["+'x' = a", 'accept'],
    ['a > --1', 'accept'],
    ['-a', 'reject'],
    ["a > +'x'", 'reject'],
    ['-(a > 1)', 'reject'],
    ['a > -', 'reject'],
    ['a * 2 > 1', 'reject'],
    ['a / 2 > 1', 'reject'],
    ['a % 2 = 0', 'reject'],
  ],
  parentheses: [
    ['(a > 1)', 'accept'],
    ['((a > 1) AND (b < 2 OR (c = 3)))', 'accept'],
    ['a > (1)', 'accept'],
    [nested(MAX_SQL92_NESTING), 'accept'],
    [`${'NOT '.repeat(MAX_SQL92_NESTING)}a`, 'accept'],
    ['(a > 1', 'reject'],
    ['()', 'reject'],
    // The broker overflows its stack here (StackOverflowError, answered as a parse failure).
    [nested(5000), 'reject'],
  ],
  'whitespace and comments': [
    [' \t\r\n\f a > 1 \n', 'accept'],
    ['/* c */ a > /**/ 1 /* c */', 'accept'],
    ['-- c\na > 1', 'accept'],
    ['a > 1 -- c\n', 'accept'],
    ['a > -- c\r\n1', 'accept'],
    [[...Array(300).keys()].map((i) => `p${i} > ${i}`).join(' AND\n'), 'accept'],
    ['a\u00a0> 1', 'reject'],
    ['a\u000b> 1', 'reject'],
    ['a\u2003> 1', 'reject'],
    ['a > 1 /* c', 'reject'],
    ['/*/ a > 1', 'reject'],
    ['-- only a comment\n', 'reject'],
    ['/* only a comment */', 'reject'],
    ['', 'reject'],
    ['   ', 'reject'],
  ],
};

/**
 * The broker compiles only the first complete expression and ignores the rest, so it accepts these;
 * checkSql92Filter rejects them on purpose (each means something else than it says).
 */
const BROKER_IGNORES_THE_REST = [
  "a LIKE 'x%'",
  'a > 1 b < 2',
  'a + 1 > 2',
  'a - 1 > 0',
  'a > 1)',
  'a > 1 (',
  "a > 1 'x'",
  'a > 1 TRUE',
  'a = 0L',
  'a = 007',
  'a = 1a',
  'a > 0x1F',
  'a > 1.2.3',
  'a > 5e',
  'a ISNULL',
  'a > 1 -- a comment without a line break',
];

/**
 * Where a 4.x broker's grammar differs from 5.x's, its verdicts (checkSql92Filter follows 5.x: a filter
 * that only 4.x accepts is refused at config time; one that only 4.x refuses is refused by the broker's
 * CHECK_CLIENT_CONFIG when the poller starts the mapping). docs/broker-versions.md lists them.
 */
const BROKER_4X_VERDICTS: Readonly<Record<string, Verdict>> = {
  "1 CONTAINS 'x'": 'reject',
  'a CONTAINS b': 'accept',
  'a STARTSWITH 1': 'accept',
};

/** What the running broker should answer: the corpus verdict, or a 4.x broker's own where it differs. */
function expectedBrokerVerdict(expression: string, expected: Verdict): Verdict {
  return selectedBrokerVersion().major === 4 ? (BROKER_4X_VERDICTS[expression] ?? expected) : expected;
}

/** The broker's verdict, from CHECK_CLIENT_CONFIG: a parse failure is the only refusal expected. */
async function brokerVerdict(client: RocketMQClient, group: string, expression: string): Promise<Verdict> {
  // buildSubscriptionData refuses blank SQL92 expressions; the broker must see them as they are.
  const subscriptionData = {
    ...buildSubscriptionData(uniqueTopic('sql'), 'TRUE', 'SQL92'),
    subString: expression,
  };
  try {
    await client.broker.checkClientConfig(testBroker().brokerAddr, {
      clientId: client.clientId,
      group,
      subscriptionData,
    });
    return 'accept';
  } catch (error) {
    if (error instanceof BrokerError && error.code === ResponseCode.SUBSCRIPTION_PARSE_FAILED)
      return 'reject';
    throw error;
  }
}

function setup() {
  const client = newClient();
  onTestFinished(() => client.close());
  return { client, group: uniqueGroup('sql92') };
}

describe('checkSql92Filter agrees with the broker (CHECK_CLIENT_CONFIG)', () => {
  it('the corpus covers every rule, with more than 80 expressions, both verdicts', () => {
    const all = Object.values(CORPUS).flat();
    expect(all.length).toBeGreaterThanOrEqual(80);
    expect(all.filter(([, verdict]) => verdict === 'accept').length).toBeGreaterThan(40);
    expect(all.filter(([, verdict]) => verdict === 'reject').length).toBeGreaterThan(40);
  });

  it.each(Object.entries(CORPUS))('%s', async (_rule, cases) => {
    const { client, group } = setup();
    const disagreements: string[] = [];
    for (const [expression, expected] of cases) {
      const check = checkSql92Filter(expression);
      const ours: Verdict = check.ok ? 'accept' : 'reject';
      const broker = await brokerVerdict(client, group, expression);
      const brokerExpected = expectedBrokerVerdict(expression, expected);
      if (ours !== expected || broker !== brokerExpected) {
        disagreements.push(
          `${JSON.stringify(expression)}: expected ${expected} (broker ${brokerExpected}), broker ${broker}, ours ${ours}${check.ok ? '' : ` (${check.message})`}`,
        );
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('input after a complete filter: the broker accepts it (ignoring it), checkSql92Filter rejects it', async () => {
    const { client, group } = setup();
    const unexpected: string[] = [];
    for (const expression of [...BROKER_IGNORES_THE_REST, nested(MAX_SQL92_NESTING + 1)]) {
      const broker = await brokerVerdict(client, group, expression);
      const ours = checkSql92Filter(expression);
      if (broker !== 'accept' || ours.ok) {
        unexpected.push(
          `${JSON.stringify(expression)}: broker ${broker}, ours ${ours.ok ? 'accept' : 'reject'}`,
        );
      }
    }
    expect(unexpected).toEqual([]);
  });

  it('a refused filter is a non-retriable SUBSCRIPTION_PARSE_FAILED with the compiler message; TAG is not compiled', async () => {
    const { client, group } = setup();
    const { brokerAddr } = testBroker();
    const topic = uniqueTopic('sql');
    const refusal = await client.broker
      .checkClientConfig(brokerAddr, {
        clientId: client.clientId,
        group,
        subscriptionData: buildSubscriptionData(topic, 'a > ', 'SQL92'),
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(BrokerError);
    expect(refusal).toMatchObject({ code: ResponseCode.SUBSCRIPTION_PARSE_FAILED, retriable: false });
    expect((refusal as BrokerError).remark).toMatch(
      /ParseException: Encountered "<EOF>" at line 1, column 4/,
    );
    // The same text as a TAG expression is a tag name: the broker answers SUCCESS without compiling.
    await client.broker.checkClientConfig(brokerAddr, {
      clientId: client.clientId,
      group,
      subscriptionData: buildSubscriptionData(topic, 'a > ', 'TAG'),
    });
  });
});
