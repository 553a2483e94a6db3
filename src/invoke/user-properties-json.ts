/**
 * The `properties` field of an event record: a message's user properties as a JSON object. A decoded
 * message that never built its properties object hands them over from its one pass over the properties
 * text (src/protocol/properties-head.ts), which also reads its id, tags and keys; the object would only
 * be made to be written out.
 */

import { propertiesHeadOf } from '../protocol/decoded-message.js';
import { isSystemProperty, type MessageExt } from '../protocol/message.js';
import type { PropertiesHead } from '../protocol/properties-head.js';
import { jsonString } from './json-string.js';

/**
 * The user keys of the last head written, and each key's JSON with its colon: texts of one layout
 * share their key array, so a stream of one producer writes its keys' JSON once.
 */
let lastUserKeys: readonly string[] | undefined;
let lastKeyJson: readonly string[] = [];

/**
 * `message`'s user properties (every key `isSystemProperty` rejects) as a JSON object, keys in stored
 * order (where the object would list integer-like keys first: the JSON parses to an equal object either
 * way). `__proto__` is an ordinary key (JSON.parse makes it an own property). For a decoded message, its
 * msgId, tags and keys are read by the same pass (`readHead`); a caller that has read the head already
 * passes it (the pass is not repeated).
 */
export function userPropertiesJson(
  message: MessageExt,
  head: PropertiesHead | undefined = propertiesHeadOf(message),
): string {
  return head === undefined ? jsonOfObject(message.properties) : jsonOfPairs(head.userKeys, head.userValues);
}

function jsonOfPairs(keys: readonly string[], values: readonly string[]): string {
  if (keys.length === 0) return '{}';
  if (keys !== lastUserKeys) {
    lastUserKeys = keys;
    lastKeyJson = keys.map((key) => `${jsonString(key)}:`);
  }
  let json = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) json += ',';
    json += (lastKeyJson[i] as string) + jsonString(values[i] as string);
  }
  return `${json}}`;
}

function jsonOfObject(properties: Readonly<Record<string, string>>): string {
  let json = '{';
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value === undefined || isSystemProperty(key)) continue;
    if (json.length > 1) json += ',';
    json += `${jsonString(key)}:${jsonString(value)}`;
  }
  return `${json}}`;
}
