/**
 * A validator of CloudWatch Embedded Metric Format documents, written from the specification's rules
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
 * the `_aws` metadata (Timestamp in ms, CloudWatchMetrics directives with a namespace, dimension sets of
 * at most 30 non-empty keys, at most 100 metric definitions with a known unit), and the references
 * (every dimension key names a top-level string member, every metric name a number or an array of at
 * most 100 numbers). The first part is a static JSON schema; the references are a schema built per
 * document from its directives. Both run through ajv.
 */
import { Ajv, type ErrorObject } from 'ajv';

const UNITS = [
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
];

/** The structure every EMF document must have. */
export const EMF_ROOT_SCHEMA = {
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      properties: {
        Timestamp: { type: 'integer', minimum: 0 },
        CloudWatchMetrics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            additionalProperties: false,
            properties: {
              Namespace: { type: 'string', minLength: 1, maxLength: 1024 },
              Dimensions: {
                type: 'array',
                items: {
                  type: 'array',
                  maxItems: 30,
                  uniqueItems: true,
                  items: { type: 'string', minLength: 1, maxLength: 250 },
                },
              },
              Metrics: {
                type: 'array',
                maxItems: 100,
                items: {
                  type: 'object',
                  required: ['Name'],
                  additionalProperties: false,
                  properties: {
                    Name: { type: 'string', minLength: 1, maxLength: 1024 },
                    Unit: { enum: UNITS },
                    StorageResolution: { enum: [1, 60] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: true });
const validateRoot = ajv.compile(EMF_ROOT_SCHEMA);

interface Directive {
  Dimensions: string[][];
  Metrics: { Name: string }[];
}

/** The schema of a document's referenced members, built from its directives. */
function referencesSchema(document: { _aws: { CloudWatchMetrics: Directive[] } }): object {
  const properties: Record<string, object> = {};
  for (const directive of document._aws.CloudWatchMetrics) {
    for (const key of directive.Dimensions.flat()) properties[key] = { type: 'string', maxLength: 1024 };
    for (const { Name } of directive.Metrics) {
      properties[Name] = {
        anyOf: [{ type: 'number' }, { type: 'array', maxItems: 100, items: { type: 'number' } }],
      };
    }
  }
  return { type: 'object', required: Object.keys(properties), properties };
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);
}

/**
 * The problems of one EMF line (empty when valid).
 *
 * @example
 * ```ts
 * expect(emfProblems(line)).toEqual([]);
 * ```
 */
export function emfProblems(line: string): string[] {
  if (line.includes('\n')) return ['the document spans several lines'];
  let document: unknown;
  try {
    document = JSON.parse(line);
  } catch (error) {
    return [`not JSON: ${String(error)}`];
  }
  if (!validateRoot(document)) return describe(validateRoot.errors);
  const validateReferences = ajv.compile(
    referencesSchema(document as unknown as { _aws: { CloudWatchMetrics: Directive[] } }),
  );
  return validateReferences(document) ? [] : describe(validateReferences.errors);
}
