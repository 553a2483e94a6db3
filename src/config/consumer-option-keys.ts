/**
 * Config keys of consumer options, built from their one definition (`CONSUMER_OPTION_SPECS` of the
 * consumer layer): the range or allowed words, the default and the description all come from the spec, so
 * the run config, the Serverless event and the references generated from them cannot restate (and drift
 * from) what the consumer checks. A key may add a note of its own: a rule of the surface it belongs to, or
 * a default that surface computes.
 */
import { z } from 'zod';
import {
  CONSUMER_OPTION_SPECS,
  type ConsumerOptionName,
  type ConsumerOptionSpec,
  type ConsumerOptionSpecs,
} from '../consumer/consumer-option-specs.js';
import { info, type KeyInfo } from './schema-meta.js';

export { CONSUMER_DEFAULTS, CONSUMER_OPTION_SPECS } from '../consumer/consumer-option-specs.js';

/**
 * What a surface adds to an option's spec: a sentence after the spec's description, and the default in
 * words when the surface computes it (then no `default` value is published).
 */
export interface OptionKeyNotes {
  readonly note?: string | undefined;
  readonly defaultText?: string | undefined;
}

/** The options whose spec is of `Kind`. */
type OptionsOfKind<Kind extends ConsumerOptionSpec['kind']> = {
  [K in ConsumerOptionName]: ConsumerOptionSpecs[K]['kind'] extends Kind ? K : never;
}[ConsumerOptionName];

/**
 * An optional integer key with the option's range, default and description.
 */
export function integerOptionKey(option: OptionsOfKind<'integer'>, notes: OptionKeyNotes = {}) {
  const spec = CONSUMER_OPTION_SPECS[option];
  return z
    .number()
    .int()
    .min(spec.minimum)
    .max(spec.maximum)
    .optional()
    .meta(keyInfo(spec.description, spec.default, notes));
}

/**
 * An optional key of whole seconds for an option the consumer takes in milliseconds (AWS's event source
 * mappings count in seconds): the range in seconds, the default in seconds (in words when it is not whole).
 */
export function secondsOptionKey(option: OptionsOfKind<'integer'>, notes: OptionKeyNotes = {}) {
  const spec = CONSUMER_OPTION_SPECS[option];
  const seconds = spec.default / 1000;
  const defaultNotes: OptionKeyNotes = Number.isInteger(seconds)
    ? notes
    : { defaultText: `${seconds} s`, ...notes };
  return z
    .number()
    .int()
    .min(Math.ceil(spec.minimum / 1000))
    .max(Math.floor(spec.maximum / 1000))
    .optional()
    .meta(keyInfo(`In seconds. ${spec.description}`, seconds, defaultNotes));
}

/**
 * An optional key taking one of the option's words.
 */
export function enumOptionKey<K extends OptionsOfKind<'enum'>>(option: K, notes: OptionKeyNotes = {}) {
  const spec: ConsumerOptionSpecs[K] = CONSUMER_OPTION_SPECS[option];
  return z
    .enum(spec.values as ConsumerOptionSpecs[K]['values'])
    .optional()
    .meta(keyInfo(spec.description, spec.default, notes));
}

/**
 * An optional boolean key.
 */
export function booleanOptionKey(option: OptionsOfKind<'boolean'>, notes: OptionKeyNotes = {}) {
  const spec = CONSUMER_OPTION_SPECS[option];
  return z
    .boolean()
    .optional()
    .meta(keyInfo(spec.description, spec.default, notes));
}

function keyInfo(description: string, value: string | number | boolean, notes: OptionKeyNotes): KeyInfo {
  const text = notes.note === undefined ? description : `${description} ${notes.note}`;
  return info(
    notes.defaultText === undefined
      ? { description: text, default: value }
      : { description: text, defaultText: notes.defaultText },
  );
}
