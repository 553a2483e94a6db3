/**
 * The variables dev resolves without the Framework (src/serverless-service/simple-variables.ts): what each
 * accepted form resolves to, and every form it leaves to the Framework. That the values are the Framework's
 * is checked against the real osls by test/integration/dev/simple-variables-framework.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseSimpleString,
  resolveSimpleVariables,
  type SimpleResolution,
} from '../../../src/serverless-service/simple-variables.js';

const ENV = { SET: 'value', EMPTY: '', NUM: '42' };

/** The resolved document, failing the test with the reason when the resolver deferred. */
function resolved(outcome: SimpleResolution): unknown {
  if (!outcome.resolved) throw new Error(`deferred: ${outcome.reason}`);
  return outcome.document;
}

function resolveCustom(
  custom: Record<string, unknown>,
  inputs: { stage?: string; region?: string; env?: Record<string, string> } = {},
): unknown {
  const document = resolved(resolveSimpleVariables({ service: 's', custom }, { env: ENV, ...inputs }));
  return (document as { custom: unknown }).custom;
}

function reasonFor(document: unknown, inputs: { stage?: string; env?: Record<string, string> } = {}): string {
  const outcome = resolveSimpleVariables(document, { env: ENV, ...inputs });
  if (outcome.resolved) throw new Error('resolved, but should have been left to the Framework');
  return outcome.reason;
}

describe('parseSimpleString', () => {
  it('splits a string into its text and its variables, each with its sources in order', () => {
    expect(parseSimpleString(`a\${env:A, self:custom.b, 'c'}-\${sls:stage}`)).toEqual([
      'a',
      {
        variable: `\${env:A, self:custom.b, 'c'}`,
        sources: [
          { kind: 'env', name: 'A' },
          { kind: 'self', path: ['custom', 'b'] },
          { kind: 'literal', value: 'c' },
        ],
      },
      '-',
      { variable: `\${sls:stage}`, sources: [{ kind: 'sls' }] },
    ]);
  });
});

describe('resolveSimpleVariables: what it resolves', () => {
  it('reads env: a set variable, an empty one (a value), an unset one through its fallbacks', () => {
    expect(
      resolveCustom({
        set: `\${env:SET}`,
        empty: `\${env:EMPTY, 'fallback'}`,
        unset: `\${env:UNSET, 'single, with comma'}`,
        double: `\${env:UNSET, "double"}`,
        chain: `\${env:UNSET, env:ALSO_UNSET, env:SET, 'never'}`,
        spaces: `\${env: SET , 'x'   }`,
      }),
    ).toEqual({
      set: 'value',
      empty: '',
      unset: 'single, with comma',
      double: 'double',
      chain: 'value',
      spaces: 'value',
    });
  });

  it('keeps a whole-string variable typed and turns an embedded one into text', () => {
    expect(
      resolveCustom({
        n: `\${env:UNSET, 42}`,
        neg: `\${env:UNSET, -7}`,
        dec: `\${env:UNSET, 2.50}`,
        t: `\${env:UNSET, true}`,
        f: `\${env:UNSET, false}`,
        inside: `b\${env:UNSET, 2.50}-\${env:UNSET, false}-\${env:NUM}`,
        envNumber: `\${env:NUM}`,
      }),
    ).toEqual({ n: 42, neg: -7, dec: 2.5, t: true, f: false, inside: 'b2.5-false-42', envNumber: '42' });
  });

  it('reads self: plain, resolved, nested, list and missing values, and through a resolved mapping', () => {
    expect(
      resolveCustom({
        obj: { a: 1, b: `\${env:SET}`, list: ['first', `\${env:UNSET, 'second'}`] },
        plain: `\${self:custom.obj.a}`,
        resolvedValue: `\${self:custom.obj.b}`,
        object: `\${self:custom.obj}`,
        item: `\${self:custom.obj.list.1}`,
        through: `\${self:custom.object.b}`,
        chain: `\${self:custom.through}`,
        missing: `\${self:custom.nothing.deeper, 'gone'}`,
        nullValue: null,
        fromNull: `\${self:custom.nullValue, 'was null'}`,
        inside: `n\${self:custom.obj.a}`,
      }),
    ).toEqual({
      obj: { a: 1, b: 'value', list: ['first', 'second'] },
      plain: 1,
      resolvedValue: 'value',
      object: { a: 1, b: 'value', list: ['first', 'second'] },
      item: 'second',
      through: 'value',
      chain: 'value',
      missing: 'gone',
      nullValue: null,
      fromNull: 'was null',
      inside: 'n1',
    });
  });

  it('takes sls:stage from --stage, else provider.stage, else dev; opt: from --stage and --region', () => {
    const service = (provider: Record<string, unknown>) => ({
      service: 's',
      provider,
      custom: { sls: `\${sls:stage}`, stage: `\${opt:stage, 'none'}`, region: `\${opt:region, 'none'}` },
    });
    const custom = (document: unknown, inputs: { stage?: string; region?: string }) =>
      (resolved(resolveSimpleVariables(document, { env: ENV, ...inputs })) as { custom: unknown }).custom;
    expect(custom(service({}), {})).toEqual({ sls: 'dev', stage: 'none', region: 'none' });
    expect(custom(service({ stage: `\${env:STAGE, 'qa'}` }), {})).toEqual({
      sls: 'qa',
      stage: 'none',
      region: 'none',
    });
    expect(custom(service({ stage: 'qa' }), { stage: 'it', region: 'eu-west-1' })).toEqual({
      sls: 'it',
      stage: 'it',
      region: 'eu-west-1',
    });
  });

  it('names the sources it read', () => {
    const outcome = resolveSimpleVariables(
      { service: 's', custom: { a: `\${env:SET}`, b: `\${self:custom.a}`, c: 'x' } },
      { env: ENV },
    );
    expect(outcome).toMatchObject({ resolved: true, sources: ['env', 'self'] });
  });

  it("leaves keys, and what is not a variable ('$', '{', a '}' alone) as they are", () => {
    const key = `k\${env:SET}`;
    expect(resolveCustom({ [key]: 'a $ b { c } d', price: '$5' })).toEqual({
      [key]: 'a $ b { c } d',
      price: '$5',
    });
  });
});

describe('resolveSimpleVariables: what it leaves to the Framework', () => {
  const cases: [string, unknown][] = [
    ['a file variable', `\${file(./x.yml):a}`],
    ['an ssm variable', `\${ssm:/a/b}`],
    ['a param variable', `\${param:a}`],
    ['a strToBool variable', `\${strToBool(true)}`],
    ['a cf variable', `\${cf:stack.output}`],
    ['a plugin source', `\${vault:secret}`],
    ['sls:instanceId', `\${sls:instanceId}`],
    ['an opt other than stage and region', `\${opt:foo}`],
    ['the whole options', `\${opt:}`],
    ['the whole document', `\${self:}`],
    // osls 4 refuses a variable as a fallback (a syntax error): the Framework says so.
    ['a variable as a fallback', `\${env:UNSET, \${env:SET, 'x'}}`],
    ['a variable in an address', `\${self:custom.\${sls:stage}}`],
    ['an escaped variable', `\\\${env:SET}`],
    ['a doubled dollar', `$\${env:SET}`],
    ["Fn::Sub's own syntax", `arn:\${AWS::Region}`],
    ['a leading space', `\${ env:SET}`],
    ['an unclosed variable', `\${env:SET`],
    ['a null fallback', `\${env:UNSET, null}`],
    ['a literal fallback before another source', `\${env:UNSET, 'a', env:SET}`],
    ['a fallback that is a bare word', `\${env:UNSET, word}`],
    ['a hexadecimal fallback', `\${env:UNSET, 0x10}`],
    ['a quoted fallback holding a backslash', `\${env:UNSET, 'a\\b'}`],
    ['a quoted fallback holding a brace', `\${env:UNSET, 'a}b'}`],
    ['an env variable without value or fallback', `\${env:UNSET}`],
    ['an env variable whose value holds a variable', `\${env:NESTED}`],
    ["dev's placeholder credentials (not given to the Framework)", `\${env:AWS_ACCESS_KEY_ID}`],
    ['a mapping inside a string', `x\${self:custom.obj}`],
    ['a self path into a string', `\${self:custom.text.length}`],
    ['a self path into a list by name', `\${self:custom.list.length}`],
    ['a self reference to itself', `\${self:custom.value}`],
    ['a self reference to its own parent', `\${self:custom}`],
  ];
  for (const [name, value] of cases) {
    it(name, () => {
      const reason = reasonFor(
        { service: 's', custom: { obj: { a: 1 }, text: 'abc', list: [1], value } },
        { env: { ...ENV, NESTED: `\${env:SET}`, AWS_ACCESS_KEY_ID: 'local' } },
      );
      expect(reason).toMatch(/^custom\.value: /);
    });
  }

  it('a circular reference between two keys', () => {
    expect(reasonFor({ custom: { a: `\${self:custom.b}`, b: `\${self:custom.a}` } })).toMatch(/circular/);
  });

  it('an invalid stage, from --stage or provider.stage', () => {
    expect(reasonFor({ custom: { s: `\${sls:stage}` } }, { stage: 'no_underscores' })).toMatch(/stage/);
    expect(reasonFor({ provider: { stage: 5 }, custom: { s: `\${sls:stage}` } })).toMatch(/stage/);
    expect(reasonFor({ custom: { s: `\${opt:stage, 'x'}` } }, { stage: 'a b' })).toMatch(/stage/);
  });

  it('a service with useDotenv (its .env files are env too)', () => {
    expect(reasonFor({ useDotenv: true, custom: { a: `\${env:SET}` } })).toMatch(/useDotenv/);
  });

  it('says why without quoting a value or a fallback (they can be secrets)', () => {
    const reason = reasonFor({ custom: { password: `\${ssm:/db/pw, 'hunter2'}` } });
    expect(reason).toMatch(/^custom\.password: a ssm: variable/);
    expect(reason).not.toContain('hunter2');
  });
});

describe('resolveSimpleVariables: properties', () => {
  const envName = fc
    .stringMatching(/^[A-Z][A-Z0-9_]{0,11}$/)
    .filter((n) => !/^(SLS|SERVERLESS|AWS_SDK)_/.test(n));
  const text = fc.string({ maxLength: 20 }).filter((s) => !s.includes('$') && !s.includes('\\'));
  const quotable = fc.stringMatching(/^[a-zA-Z0-9 ,.:/_-]{0,16}$/);

  it('returns any document without variables as it is', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(envName, text), (custom, env) => {
        const document = { service: 's', custom: JSON.parse(JSON.stringify(custom).replaceAll('$', '')) };
        expect(resolved(resolveSimpleVariables(document, { env }))).toEqual(document);
      }),
    );
  });

  it('reads an env variable when set (even to empty), else its quoted fallback, whole or embedded', () => {
    fc.assert(
      fc.property(envName, fc.option(text), quotable, text, text, (name, value, fallback, before, after) => {
        const env = value === null ? {} : { [name]: value };
        const variable = `\${env:${name}, '${fallback}'}`;
        const expected = value ?? fallback;
        const custom = { whole: variable, embedded: `${before}${variable}${after}` };
        expect(resolveCustom(custom, { env })).toEqual({
          whole: expected,
          embedded: `${before}${expected}${after}`,
        });
      }),
    );
  });

  it('types a number fallback whole and writes it as JavaScript does when embedded', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.nat(999), (whole, fraction) => {
        const literal = fraction === 0 ? String(whole) : `${whole}.${fraction}`;
        const custom = resolveCustom(
          { n: `\${env:UNSET, ${literal}}`, s: `<\${env:UNSET, ${literal}}>` },
          { env: {} },
        );
        expect(custom).toEqual({ n: Number(literal), s: `<${String(Number(literal))}>` });
      }),
    );
  });

  it('follows a chain of self references of any length to its end', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null),
        (length, end) => {
          const value = JSON.parse(JSON.stringify(end).replaceAll('$', '')) as unknown;
          const custom: Record<string, unknown> = { k0: value };
          for (let i = 1; i <= length; i++) custom[`k${i}`] = `\${self:custom.k${i - 1}}`;
          const out = resolveCustom(custom) as Record<string, unknown>;
          expect(out[`k${length}`]).toEqual(value);
        },
      ),
    );
  });

  it('never throws: any string resolves or is left to the Framework, and a resolved one holds no variable', () => {
    const piece = fc.constantFrom(
      `\${`,
      '}',
      '$',
      '\\',
      ',',
      "'",
      '"',
      ' ',
      'env:',
      'self:',
      'SET',
      'custom.a',
      '1',
      ':',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const outcome = resolveSimpleVariables({ custom: { a: 'x', b: pieces.join('') } }, { env: ENV });
        if (outcome.resolved) {
          const b = (outcome.document as { custom: { b: unknown } }).custom.b;
          if (typeof b === 'string') expect(b).not.toContain('$' + '{');
        } else {
          expect(outcome.reason).toMatch(/^custom\.b: /);
        }
      }),
    );
  });
});
