/**
 * The schemas the record helpers accept: anything that implements the Standard Schema interface
 * (`~standard.validate`), which zod (3.24+ and 4), valibot and arktype schemas all do. Accepting the
 * interface rather than zod's classes keeps the kit independent of the zod version a function bundles.
 */
import { formatPath, type PathSegment, type RocketMQParseIssue } from './errors.js';

/**
 * A problem a schema reports.
 *
 * @example
 * ```ts
 * const issue: BodySchemaIssue = { message: 'Expected number', path: ['items', 0, 'price'] };
 * ```
 */
export interface BodySchemaIssue {
  readonly message: string;
  readonly path?: readonly PathSegment[] | undefined;
}

/**
 * What a schema's `validate` returns: the output value, or issues.
 *
 * @example
 * ```ts
 * const result: BodySchemaResult<number> = { value: 42 };
 * ```
 */
export type BodySchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly BodySchemaIssue[] };

/**
 * A schema for record bodies: any Standard Schema, e.g. a zod schema. Only synchronous schemas can be
 * used (a zod schema with an async refinement is rejected when it is applied).
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 *
 * const OrderSchema: BodySchema<{ id: string }> = z.object({ id: z.string() });
 * ```
 */
export interface BodySchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => BodySchemaResult<Output> | Promise<BodySchemaResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/**
 * The output type of a {@link BodySchema} (for a zod schema, its `z.output`).
 *
 * @example
 * ```ts
 * type Order = BodySchemaOutput<typeof OrderSchema>;
 * ```
 */
export type BodySchemaOutput<S extends BodySchema> = S extends BodySchema<infer Output> ? Output : never;

/**
 * Validates `value` with a synchronous schema: the output, or the issues with their paths under `prefix`.
 * Throws a TypeError for an asynchronous schema (a programming error, not a bad message).
 */
export function validateSync<Output>(
  schema: BodySchema<Output>,
  value: unknown,
  prefix: string,
): { ok: true; value: Output } | { ok: false; issues: RocketMQParseIssue[] } {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    // Nobody waits for it; its rejection is not ours to report.
    result.catch(() => undefined);
    throw new TypeError(
      `rocketmq-lambda-handler: the ${schema['~standard'].vendor} schema is asynchronous; record helpers ` +
        'need a synchronous schema (parse with schema.parseAsync yourself instead)',
    );
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => ({ path: formatPath(prefix, issue.path), message: issue.message })),
  };
}
