/**
 * The few Serverless Framework variables `rocketmq-lambda dev` resolves in the parts of serverless.yml it
 * reads: `${env:NAME}` / `${env:NAME, 'default'}`, `${opt:stage, 'dev'}` and `${sls:stage}`. Anything else
 * (`${self:...}`, `${ssm:...}`, `${file(...)}`, ...) is an error that names the variable and where it is.
 */
import { RocketMQError } from '../protocol/errors.js';

/**
 * What variables resolve against.
 *
 * @example
 * ```ts
 * const context: VariableContext = { env: process.env, stage: 'dev' };
 * ```
 */
export interface VariableContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The stage (`--stage`, default `dev`): `${opt:stage}` and `${sls:stage}`. */
  readonly stage: string;
}

/**
 * A variable that dev cannot resolve (an unsupported source, or an env variable without a default that
 * is unset).
 *
 * @example
 * ```ts
 * try { resolveVariables('${ssm:/x}', ctx, 'custom.x'); } catch (e) { if (e instanceof VariableError) console.error(e.message); }
 * ```
 */
export class VariableError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause, retriable: false });
    this.name = 'VariableError';
  }
}

const VARIABLE = /\$\{([^{}]*)\}/g;
const QUOTED = /^(['"])(.*)\1$/s;

/**
 * A copy of `value` with every `${...}` in its strings resolved. `where` (a key path such as
 * `functions.orders.handler`) is named in errors.
 *
 * @example
 * ```ts
 * resolveVariables("${env:NS, '127.0.0.1:9876'}", { env: {}, stage: 'dev' }, 'custom.rocketmq.nameServers');
 * // => '127.0.0.1:9876'
 * ```
 */
export function resolveVariables(value: unknown, context: VariableContext, where: string): unknown {
  if (typeof value === 'string') return resolveString(value, context, where);
  if (Array.isArray(value))
    return value.map((item, index) => resolveVariables(item, context, `${where}[${index}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveVariables(item, context, `${where}.${key}`)]),
    );
  }
  return value;
}

function resolveString(text: string, context: VariableContext, where: string): string {
  return text.replace(VARIABLE, (whole, inner: string) => resolveOne(whole, inner, context, where));
}

function resolveOne(whole: string, inner: string, context: VariableContext, where: string): string {
  const comma = inner.indexOf(',');
  const reference = (comma === -1 ? inner : inner.slice(0, comma)).trim();
  const fallback = comma === -1 ? undefined : literal(inner.slice(comma + 1).trim(), whole, where);
  if (reference.startsWith('env:')) {
    const name = reference.slice('env:'.length).trim();
    const value = context.env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new VariableError(`${where}: ${whole}: environment variable ${name} is not set and has no default`);
  }
  if (reference === 'opt:stage' || reference === 'sls:stage') {
    return context.stage;
  }
  throw new VariableError(
    `${where}: ${whole}: rocketmq-lambda dev resolves only \${env:NAME, 'default'}, \${opt:stage} and \${sls:stage}`,
  );
}

/** The default of a variable: a quoted string or a plain number/word. */
function literal(text: string, whole: string, where: string): string {
  const quoted = QUOTED.exec(text);
  if (quoted !== null) return quoted[2] ?? '';
  if (/^[\w.:/-]+$/.test(text)) return text;
  throw new VariableError(`${where}: ${whole}: the default must be a quoted string or a plain value`);
}
