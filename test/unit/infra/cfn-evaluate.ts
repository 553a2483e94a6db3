/**
 * A small CloudFormation evaluator for tests of templates (the generated standalone template): parses YAML with the short-form
 * tags (`!Ref`, `!Sub`, `!If`, ...) and evaluates the parts a test asks for with given parameter values,
 * the way CloudFormation would at deploy time. It knows Parameters (Default, AllowedValues,
 * AllowedPattern, MinValue/MaxValue, MinLength/MaxLength), Rules, Conditions, `Ref`, `Fn::If`, `Fn::Sub`,
 * `Fn::Select`, `Fn::Split`, `Fn::Join`, `AWS::NoValue`, and `Fn::GetAtt` of the attributes a test gives
 * values for; anything else throws
 * {@link CfnEvaluationError} naming it, never passes silently.
 */
import { parse } from 'yaml';

/**
 * A JSON-like value of a parsed template.
 *
 * @example
 * ```ts
 * const value: CfnValue = { 'Fn::If': ['HasAcl', { Ref: 'AclSecretArn' }, { Ref: 'AWS::NoValue' }] };
 * ```
 */
export type CfnValue =
  | string
  | number
  | boolean
  | null
  | readonly CfnValue[]
  | { readonly [key: string]: CfnValue };

type CfnObject = { readonly [key: string]: CfnValue };

/**
 * The template sections the evaluator reads (absent ones are empty).
 *
 * @example
 * ```ts
 * Object.keys(parseCfnTemplate(text).Parameters); // => ['OrdersFunctionArn', 'SubnetIds', ...]
 * ```
 */
export interface CfnTemplate {
  readonly Parameters: CfnObject;
  readonly Rules: CfnObject;
  readonly Conditions: CfnObject;
  readonly Resources: CfnObject;
}

/**
 * The template uses something the evaluator does not support, or is itself inconsistent (a `Ref` to
 * nothing, a `Ref` to a resource whose condition is false).
 *
 * @example
 * ```ts
 * expect(() => evaluator.evaluate({ 'Fn::GetAZs': '' })).toThrow(CfnEvaluationError);
 * ```
 */
export class CfnEvaluationError extends Error {
  override readonly name = 'CfnEvaluationError';
}

/**
 * CloudFormation would refuse these parameter values at deploy time (a constraint or a Rule fails).
 *
 * @example
 * ```ts
 * expect(() => new CfnEvaluator(template, { parameters: { BatchSize: '0' } })).toThrow(CfnParameterError);
 * ```
 */
export class CfnParameterError extends Error {
  override readonly name = 'CfnParameterError';
}

/** Short-form tags and the long form each stands for; `GetAtt`'s scalar form splits at the first dot. */
const SHORT_FORMS = {
  '!Ref': 'Ref',
  '!Condition': 'Condition',
  '!Sub': 'Fn::Sub',
  '!If': 'Fn::If',
  '!Equals': 'Fn::Equals',
  '!Not': 'Fn::Not',
  '!And': 'Fn::And',
  '!Or': 'Fn::Or',
  '!GetAtt': 'Fn::GetAtt',
  '!Join': 'Fn::Join',
  '!Select': 'Fn::Select',
  '!Split': 'Fn::Split',
  '!FindInMap': 'Fn::FindInMap',
  '!GetAZs': 'Fn::GetAZs',
  '!ImportValue': 'Fn::ImportValue',
  '!Base64': 'Fn::Base64',
  '!Cidr': 'Fn::Cidr',
  '!Contains': 'Fn::Contains',
  '!EachMemberEquals': 'Fn::EachMemberEquals',
  '!EachMemberIn': 'Fn::EachMemberIn',
  '!ValueOf': 'Fn::ValueOf',
  '!Transform': 'Fn::Transform',
} as const;

/**
 * The test's values of the pseudo parameters.
 *
 * @example
 * ```ts
 * expect(env.AWS_REGION).toBe(TEST_PSEUDO_PARAMETERS['AWS::Region']);
 * ```
 */
export const TEST_PSEUDO_PARAMETERS: Readonly<Record<string, string>> = {
  'AWS::Region': 'eu-west-1',
  'AWS::AccountId': '123456789012',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'rocketmq-poller-test',
  'AWS::StackId': 'arn:aws:cloudformation:eu-west-1:123456789012:stack/rocketmq-poller-test/1',
};

const NO_VALUE: unique symbol = Symbol('AWS::NoValue');
type Evaluated = CfnValue | typeof NO_VALUE;

/**
 * Parses a template's YAML, short-form tags turned into their long forms (`!Ref X` → `{ Ref: 'X' }`).
 *
 * @example
 * ```ts
 * const template = parseCfnTemplate(readFileSync('infra/cloudformation/rocketmq-poller.yml', 'utf8'));
 * template.Parameters.SubnetIds; // => { Type: 'List<AWS::EC2::Subnet::Id>', Description: '...' }
 * ```
 */
export function parseCfnTemplate(text: string): CfnTemplate {
  const customTags = Object.entries(SHORT_FORMS).flatMap(([tag, longForm]) => [
    {
      tag,
      resolve: (value: string): CfnValue =>
        longForm === 'Fn::GetAtt' ? { [longForm]: splitGetAtt(value) } : { [longForm]: value },
    },
    ...(['seq', 'map'] as const).map((collection) => ({
      tag,
      collection,
      resolve: (node: { toJSON(): unknown }) => ({ [longForm]: node.toJSON() }),
    })),
  ]);
  const parsed = parse(text, { customTags, uniqueKeys: true }) as unknown;
  if (!isObject(parsed)) throw new CfnEvaluationError('the template is not a YAML mapping');
  const section = (name: string): CfnObject => {
    const value = parsed[name] ?? {};
    if (!isObject(value)) throw new CfnEvaluationError(`${name} is not a mapping`);
    return value;
  };
  return {
    Parameters: section('Parameters'),
    Rules: section('Rules'),
    Conditions: section('Conditions'),
    Resources: section('Resources'),
  };
}

function splitGetAtt(value: string): string[] {
  const dot = value.indexOf('.');
  return dot < 0 ? [value] : [value.slice(0, dot), value.slice(dot + 1)];
}

/**
 * Options of {@link CfnEvaluator}.
 *
 * @example
 * ```ts
 * const options: CfnEvaluatorOptions = { parameters: { Topic: 'Orders', SubnetIds: 'subnet-1,subnet-2' } };
 * ```
 */
export interface CfnEvaluatorOptions {
  /** Parameter values as CloudFormation receives them (strings; lists comma-separated). */
  readonly parameters: Readonly<Record<string, string>>;
  /** @default TEST_PSEUDO_PARAMETERS */
  readonly pseudoParameters?: Readonly<Record<string, string>> | undefined;
  /**
   * Values of `Fn::GetAtt` (`'Service.Name'` → a fake service name), as CloudFormation would know them
   * at deploy time; any other attribute is unsupported.
   */
  readonly attributes?: Readonly<Record<string, string>> | undefined;
}

/**
 * Evaluates a template's values for given parameters. The constructor checks the parameters as
 * CloudFormation does (throws {@link CfnParameterError}); `evaluate` resolves intrinsic functions. A
 * `Ref` to a resource gives a fake physical id: its logical id.
 *
 * @example
 * ```ts
 * const evaluator = new CfnEvaluator(template, { parameters: { Topic: 'Orders' } });
 * evaluator.evaluate({ 'Fn::Sub': 'topic ${Topic} in ${AWS::Region}' }); // => 'topic Orders in eu-west-1'
 * ```
 */
export class CfnEvaluator {
  private readonly parameters = new Map<string, string | readonly string[]>();
  private readonly pseudo: Readonly<Record<string, string>>;
  private readonly attributes: Readonly<Record<string, string>>;
  private readonly conditions = new Map<string, boolean>();
  private readonly evaluating = new Set<string>();

  constructor(
    private readonly template: CfnTemplate,
    options: CfnEvaluatorOptions,
  ) {
    this.pseudo = options.pseudoParameters ?? TEST_PSEUDO_PARAMETERS;
    this.attributes = options.attributes ?? {};
    for (const name of Object.keys(options.parameters)) {
      if (!(name in template.Parameters))
        throw new CfnParameterError(`parameter ${name} is not in the template`);
    }
    for (const [name, declaration] of Object.entries(template.Parameters)) {
      if (!isObject(declaration)) throw new CfnEvaluationError(`Parameters.${name} is not a mapping`);
      this.parameters.set(name, checkedParameter(name, declaration, options.parameters[name]));
    }
    this.checkRules();
  }

  /**
   * The value of a template fragment; `undefined` when it is `AWS::NoValue`.
   *
   * @example
   * ```ts
   * evaluator.evaluate(template.Resources.Service, 'Resources.Service');
   * ```
   */
  evaluate(value: CfnValue | undefined, path = '(value)'): CfnValue | undefined {
    if (value === undefined) throw new CfnEvaluationError(`${path}: not in the template`);
    const result = this.node(value, path);
    return result === NO_VALUE ? undefined : result;
  }

  /**
   * The value of the template fragment at a key path; `undefined` when it is `AWS::NoValue`.
   *
   * @example
   * ```ts
   * evaluator.evaluateAt('Resources', 'TaskDefinition', 'Properties', 'ContainerDefinitions');
   * ```
   */
  evaluateAt(...keys: readonly (string | number)[]): CfnValue | undefined {
    let value: CfnValue = { ...this.template };
    for (const [index, key] of keys.entries()) {
      const next: CfnValue | undefined =
        typeof key === 'number'
          ? Array.isArray(value)
            ? (value as readonly CfnValue[])[key]
            : undefined
          : isObject(value)
            ? value[key]
            : undefined;
      if (next === undefined) {
        throw new CfnEvaluationError(`${keys.slice(0, index + 1).join('.')}: not in the template`);
      }
      value = next;
    }
    return this.evaluate(value, keys.join('.'));
  }

  /**
   * The value of a named condition.
   *
   * @example
   * ```ts
   * evaluator.condition('HasAcl'); // => false
   * ```
   */
  condition(name: string): boolean {
    const known = this.conditions.get(name);
    if (known !== undefined) return known;
    const definition = this.template.Conditions[name];
    if (definition === undefined) throw new CfnEvaluationError(`no condition named ${name}`);
    if (this.evaluating.has(name)) throw new CfnEvaluationError(`condition ${name} depends on itself`);
    this.evaluating.add(name);
    const result = this.booleanOf(definition, `Conditions.${name}`);
    this.evaluating.delete(name);
    this.conditions.set(name, result);
    return result;
  }

  private checkRules(): void {
    for (const [name, rule] of Object.entries(this.template.Rules)) {
      const path = `Rules.${name}`;
      if (!isObject(rule)) throw new CfnEvaluationError(`${path} is not a mapping`);
      const applies =
        rule.RuleCondition === undefined || this.booleanOf(rule.RuleCondition, `${path}.RuleCondition`);
      if (!applies) continue;
      const assertions = rule.Assertions;
      if (!Array.isArray(assertions)) throw new CfnEvaluationError(`${path}.Assertions is not a list`);
      (assertions as readonly CfnValue[]).forEach((assertion, index) => {
        const at = `${path}.Assertions[${index}]`;
        if (!isObject(assertion) || assertion.Assert === undefined)
          throw new CfnEvaluationError(`${at} has no Assert`);
        if (!this.booleanOf(assertion.Assert, `${at}.Assert`)) {
          const description =
            typeof assertion.AssertDescription === 'string' ? `: ${assertion.AssertDescription}` : '';
          throw new CfnParameterError(`rule ${name} fails${description}`);
        }
      });
    }
  }

  /** Conditions and rule assertions: Fn::Equals/Not/And/Or/Contains and `{ Condition: name }`. */
  private booleanOf(value: CfnValue, path: string): boolean {
    const [fn, args] = intrinsicOf(value, path);
    switch (fn) {
      case 'Condition':
        if (typeof args !== 'string') throw new CfnEvaluationError(`${path}: Condition takes a name`);
        return this.condition(args);
      case 'Fn::Equals': {
        const [a = null, b = null] = listOf(args, 2, 2, `${path}.Fn::Equals`);
        return this.scalarText(a, path) === this.scalarText(b, path);
      }
      case 'Fn::Not':
        return !this.booleanOf(listOf(args, 1, 1, `${path}.Fn::Not`)[0] ?? null, `${path}.Fn::Not`);
      case 'Fn::And':
        return listOf(args, 2, 10, `${path}.Fn::And`).every((item) =>
          this.booleanOf(item, `${path}.Fn::And`),
        );
      case 'Fn::Or':
        return listOf(args, 2, 10, `${path}.Fn::Or`).some((item) => this.booleanOf(item, `${path}.Fn::Or`));
      case 'Fn::Contains': {
        const [list = null, item = null] = listOf(args, 2, 2, `${path}.Fn::Contains`);
        const values = this.node(list, path);
        if (!Array.isArray(values)) throw new CfnEvaluationError(`${path}: Fn::Contains needs a list`);
        const wanted = this.scalarText(item, path);
        return (values as readonly CfnValue[]).some((candidate) => String(candidate) === wanted);
      }
      default:
        throw new CfnEvaluationError(`${path}: ${fn} is not supported as a condition`);
    }
  }

  private scalarText(value: CfnValue, path: string): string {
    const result = this.node(value, path);
    if (typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean')
      return String(result);
    throw new CfnEvaluationError(`${path}: expected a string, got ${describe(result)}`);
  }

  private node(value: CfnValue, path: string): Evaluated {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      return (value as readonly CfnValue[])
        .map((item, index) => this.node(item, `${path}[${index}]`))
        .filter((item): item is CfnValue => item !== NO_VALUE);
    }
    const object = value as CfnObject;
    const keys = Object.keys(object);
    const only = keys.length === 1 ? keys[0] : undefined;
    if (only !== undefined && (only === 'Ref' || only.startsWith('Fn::'))) {
      return this.intrinsic(only, object[only] ?? null, `${path}.${only}`);
    }
    const result: Record<string, CfnValue> = {};
    for (const key of keys) {
      const item = this.node(object[key] ?? null, `${path}.${key}`);
      if (item !== NO_VALUE) result[key] = item;
    }
    return result;
  }

  private intrinsic(fn: string, args: CfnValue, path: string): Evaluated {
    switch (fn) {
      case 'Ref':
        if (typeof args !== 'string') throw new CfnEvaluationError(`${path}: Ref takes a name`);
        return this.ref(args, path);
      case 'Fn::If': {
        const [name, whenTrue = null, whenFalse = null] = listOf(args, 3, 3, path);
        if (typeof name !== 'string') throw new CfnEvaluationError(`${path}: the condition must be a name`);
        return this.node(this.condition(name) ? whenTrue : whenFalse, path);
      }
      case 'Fn::Sub':
        return this.sub(args, path);
      case 'Fn::GetAtt':
        return this.getAtt(args, path);
      case 'Fn::Select':
        return this.select(args, path);
      case 'Fn::Split':
        return this.split(args, path);
      case 'Fn::Join':
        return this.join(args, path);
      default:
        throw new CfnEvaluationError(`${path}: ${fn} is not supported by this evaluator`);
    }
  }

  /** CloudFormation fails the stack on an index outside the list: so does this. */
  private select(args: CfnValue, path: string): CfnValue {
    const [index = null, list = null] = listOf(args, 2, 2, path);
    const at = Number(this.scalarText(index, `${path}[0]`));
    const items = this.node(list, `${path}[1]`);
    if (!Array.isArray(items)) throw new CfnEvaluationError(`${path}: Fn::Select needs a list`);
    const values = items as readonly CfnValue[];
    if (!Number.isInteger(at) || at < 0 || at >= values.length) {
      throw new CfnEvaluationError(`${path}: Fn::Select index ${at} is outside ${describe(values)}`);
    }
    return values[at] ?? null;
  }

  /** The delimiter must be a literal string, as CloudFormation requires. */
  private split(args: CfnValue, path: string): string[] {
    const [delimiter = null, source = null] = listOf(args, 2, 2, path);
    if (typeof delimiter !== 'string' || delimiter === '')
      throw new CfnEvaluationError(`${path}: the Fn::Split delimiter must be a literal string`);
    return this.scalarText(source, `${path}[1]`).split(delimiter);
  }

  private join(args: CfnValue, path: string): string {
    const [delimiter = null, list = null] = listOf(args, 2, 2, path);
    if (typeof delimiter !== 'string')
      throw new CfnEvaluationError(`${path}: the Fn::Join delimiter must be a literal string`);
    const items = this.node(list, `${path}[1]`);
    if (!Array.isArray(items)) throw new CfnEvaluationError(`${path}: Fn::Join needs a list`);
    return (items as readonly CfnValue[])
      .map((item, index) => this.scalarText(item, `${path}[1][${index}]`))
      .join(delimiter);
  }

  private getAtt(args: CfnValue, path: string): string {
    const [resource, attribute] = Array.isArray(args) ? (args as readonly CfnValue[]) : [];
    if (typeof resource !== 'string' || typeof attribute !== 'string')
      throw new CfnEvaluationError(`${path}: Fn::GetAtt takes [resource, attribute]`);
    const value = this.attributes[`${resource}.${attribute}`];
    if (value === undefined) {
      throw new CfnEvaluationError(
        `${path}: Fn::GetAtt is not supported by this evaluator (no value given for ${resource}.${attribute})`,
      );
    }
    this.ref(resource, path);
    return value;
  }

  private ref(name: string, path: string): Evaluated {
    if (name === 'AWS::NoValue') return NO_VALUE;
    const parameter = this.parameters.get(name);
    if (parameter !== undefined) return parameter;
    const pseudo = this.pseudo[name];
    if (pseudo !== undefined) return pseudo;
    const resource = this.template.Resources[name];
    if (resource === undefined)
      throw new CfnEvaluationError(`${path}: Ref to ${name}, which the template lacks`);
    const condition = isObject(resource) ? resource.Condition : undefined;
    if (typeof condition === 'string' && !this.condition(condition)) {
      throw new CfnEvaluationError(`${path}: Ref to ${name}, whose condition ${condition} is false`);
    }
    return name;
  }

  private sub(args: CfnValue, path: string): string {
    let text: CfnValue;
    let variables: CfnObject = {};
    if (Array.isArray(args)) {
      const [first = null, second] = listOf(args, 2, 2, path);
      if (!isObject(second)) throw new CfnEvaluationError(`${path}: the variables must be a mapping`);
      text = first;
      variables = second;
    } else {
      text = args;
    }
    if (typeof text !== 'string') throw new CfnEvaluationError(`${path}: the text must be a string`);
    return text.replace(/\$\{([^}]*)\}/g, (_match, inner: string) => {
      if (inner.startsWith('!')) return `\${${inner.slice(1)}}`;
      const variable = variables[inner];
      const value =
        variable !== undefined
          ? this.node(variable, `${path}.${inner}`)
          : inner.includes('.')
            ? this.intrinsic('Fn::GetAtt', splitGetAtt(inner), `${path}.\${${inner}}`)
            : this.ref(inner, `${path}.\${${inner}}`);
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        return String(value);
      throw new CfnEvaluationError(`${path}: \${${inner}} is ${describe(value)}, not a string`);
    });
  }
}

function checkedParameter(
  name: string,
  declaration: CfnObject,
  given: string | undefined,
): string | readonly string[] {
  const type = declaration.Type;
  const fallback = declaration.Default;
  const value = given ?? (fallback === undefined || fallback === null ? undefined : String(fallback));
  if (value === undefined)
    throw new CfnParameterError(`parameter ${name} has no Default and no value was given`);
  const fail = (why: string): never => {
    throw new CfnParameterError(`parameter ${name}=${JSON.stringify(value)}: ${why}`);
  };
  if (typeof type !== 'string') throw new CfnEvaluationError(`Parameters.${name} has no Type`);
  const isList = type === 'CommaDelimitedList' || type.startsWith('List<');
  if (type === 'Number') {
    if (value.trim() === '' || !Number.isFinite(Number(value))) fail('not a number');
    const number = Number(value);
    if (typeof declaration.MinValue === 'number' && number < declaration.MinValue)
      fail(`below MinValue ${declaration.MinValue}`);
    if (typeof declaration.MaxValue === 'number' && number > declaration.MaxValue)
      fail(`above MaxValue ${declaration.MaxValue}`);
  } else if (type !== 'String' && !isList && !type.startsWith('AWS::EC2::')) {
    throw new CfnEvaluationError(`Parameters.${name}: type ${type} is not supported by this evaluator`);
  }
  const allowed = declaration.AllowedValues;
  if (
    Array.isArray(allowed) &&
    !(allowed as readonly CfnValue[]).some((option) => String(option) === value)
  ) {
    fail(`not one of AllowedValues ${JSON.stringify(allowed)}`);
  }
  const pattern = declaration.AllowedPattern;
  if (typeof pattern === 'string' && !new RegExp(`^(?:${pattern})$`, 'u').test(value))
    fail(`does not match AllowedPattern ${pattern}`);
  if (typeof declaration.MinLength === 'number' && value.length < declaration.MinLength)
    fail('shorter than MinLength');
  if (typeof declaration.MaxLength === 'number' && value.length > declaration.MaxLength)
    fail('longer than MaxLength');
  return isList ? value.split(',') : value;
}

function intrinsicOf(value: CfnValue, path: string): [string, CfnValue] {
  if (isObject(value)) {
    const keys = Object.keys(value);
    const only = keys[0];
    if (keys.length === 1 && only !== undefined) return [only, value[only] ?? null];
  }
  throw new CfnEvaluationError(`${path}: expected a condition function, got ${describe(value)}`);
}

function listOf(args: CfnValue, min: number, max: number, path: string): CfnValue[] {
  if (!Array.isArray(args) || args.length < min || args.length > max) {
    const count = min === max ? `${min}` : `${min} to ${max}`;
    throw new CfnEvaluationError(`${path}: expected a list of ${count} arguments, got ${describe(args)}`);
  }
  return [...(args as readonly CfnValue[])];
}

function isObject(value: unknown): value is CfnObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: Evaluated): string {
  if (value === NO_VALUE) return 'AWS::NoValue';
  return JSON.stringify(value);
}
