/**
 * One pass over a stored message's properties text (`name U+0001 value U+0002 ...`, see
 * message-properties.ts) for what a Lambda event record needs of it: `UNIQ_KEY` (the message id),
 * `TAGS`, `KEYS` and the user properties. Looking each of the three up on its own (findProperty in
 * decoded-message.ts) and then walking the text for the user properties went over the text four times.
 *
 * Messages of one producer repeat their keys in one order, so a layout seen twice in a row is compiled
 * to a regular expression that matches a text of that layout as a whole (V8 compiles it to machine code)
 * and captures the values wanted; any other text is walked piece by piece.
 */

import { isSystemProperty, MessageConst } from './message.js';
import { NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR } from './message-properties.js';

/**
 * What a properties text holds for an event record, by decodeProperties' rules: pieces end at U+0002;
 * in a piece, the first U+0001 separates key from value; pieces with an empty key, an empty value or no
 * U+0001 are dropped; the first occurrence of a key wins.
 */
export interface PropertiesHead {
  /** `UNIQ_KEY`'s value. */
  readonly uniqKey: string | undefined;
  readonly tags: string | undefined;
  /** `KEYS`'s value as stored (keys separated by spaces). */
  readonly keys: string | undefined;
  /**
   * The user properties' keys (every key `isSystemProperty` rejects), in stored order. Texts of one
   * layout share this array: read it, never change it.
   */
  readonly userKeys: readonly string[];
  /** Their values, index for index. */
  readonly userValues: readonly string[];
}

/** Layouts of more pieces than this are not remembered (no message of a real producer comes close). */
const MAX_REMEMBERED_PIECES = 64;
/** How many layouts are remembered: producers that interleave in one queue each keep theirs. */
const MAX_REMEMBERED_LAYOUTS = 8;
/** What a regular expression treats as syntax outside a character class. */
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|]/g;
const NO_KEYS: readonly string[] = Object.freeze([]);
const NO_VALUES: readonly string[] = Object.freeze([]);

/** What a piece of a layout gives: nothing (a later occurrence, a system key not read), or a value. */
const NO_SLOT = 0;
const UNIQ_KEY_SLOT = 1;
const TAGS_SLOT = 2;
const KEYS_SLOT = 3;
const USER_SLOT = 4;
type Slot = typeof NO_SLOT | typeof UNIQ_KEY_SLOT | typeof TAGS_SLOT | typeof KEYS_SLOT | typeof USER_SLOT;

/**
 * A layout of properties texts seen before: the keys of its pieces in order, all well formed. Holds key
 * strings only, never a value.
 */
interface TextLayout {
  /**
   * Matches exactly the texts whose pieces have these keys in this order, each with a non-empty value,
   * the last piece with or without its U+0002; a group captures each value of {@link slots}.
   */
  readonly pattern: RegExp;
  /** What each group (group 1 first) holds. */
  readonly slots: readonly Slot[];
  readonly userKeys: readonly string[];
}

/** The remembered layouts, the last matched first. */
const layouts: TextLayout[] = [];
/**
 * The keys of the last text walked in full, not compiled yet: a layout is compiled when the next walk
 * finds it again. Compiling costs microseconds, so a stream whose layouts rarely repeat back to back
 * (say, more than eight interleaved) keeps walking (measured, 9 layouts round robin: 3.6 µs per text
 * when every walk compiled, 1.1 µs this way, 0.7 µs for walks alone).
 */
let pendingKeys: readonly string[] = [];
let pendingValid = false;

/**
 * The message id, tags, keys and user properties of the properties text `text` (see
 * {@link PropertiesHead}): the values `decodeProperties(text)` would hold for them.
 */
export function readPropertiesHead(text: string): PropertiesHead {
  return headOfKnownLayout(text) ?? walkAndRemember(text);
}

/**
 * The head of `text` when its pieces have the keys of a remembered layout in its order (values may
 * differ), else undefined. Gives what {@link walkAndRemember} gives: a remembered key holds no U+0001
 * (it ended at the first one of its piece) nor U+0002, so a piece that starts with it followed by U+0001
 * splits there under the general rules too, its value runs to the next U+0002 as the pattern's
 * `[^\u0002]+` does, and the same keys in the same order make the same first occurrences.
 */
function headOfKnownLayout(text: string): PropertiesHead | undefined {
  for (let i = 0; i < layouts.length; i++) {
    const layout = layouts[i] as TextLayout;
    const match = layout.pattern.exec(text);
    if (match === null) continue;
    if (i > 0) {
      layouts.splice(i, 1);
      layouts.unshift(layout);
    }
    return headOfMatch(layout, match);
  }
  return undefined;
}

function headOfMatch({ slots, userKeys }: TextLayout, match: RegExpExecArray): PropertiesHead {
  const userValues = userKeys.length === 0 ? NO_VALUES : new Array<string>(userKeys.length);
  const head: HeadValues = { uniqKey: undefined, tags: undefined, keys: undefined, userKeys, userValues };
  let user = 0;
  for (let i = 0; i < slots.length; i++) {
    const value = match[i + 1] as string;
    const slot = slots[i] as Slot;
    if (slot === USER_SLOT) (userValues as string[])[user++] = value;
    else setSystemValue(head, slot, value);
  }
  return head;
}

/** A {@link PropertiesHead} while it is filled. */
interface HeadValues {
  uniqKey: string | undefined;
  tags: string | undefined;
  keys: string | undefined;
  userKeys: readonly string[];
  userValues: readonly string[];
}

/** Sets the value of a system key's slot; nothing for {@link NO_SLOT}. */
function setSystemValue(head: HeadValues, slot: Slot, value: string): void {
  if (slot === UNIQ_KEY_SLOT) head.uniqKey = value;
  else if (slot === TAGS_SLOT) head.tags = value;
  else if (slot === KEYS_SLOT) head.keys = value;
}

/** The slot of a key's first well-formed occurrence. */
function slotOf(key: string): Slot {
  switch (key) {
    case MessageConst.UNIQ_KEY:
      return UNIQ_KEY_SLOT;
    case MessageConst.TAGS:
      return TAGS_SLOT;
    case MessageConst.KEYS:
      return KEYS_SLOT;
    default:
      return isSystemProperty(key) ? NO_SLOT : USER_SLOT;
  }
}

/** The general rules (see {@link PropertiesHead}); remembers the layout of `text`. */
function walkAndRemember(text: string): PropertiesHead {
  const length = text.length;
  const head: HeadValues = {
    uniqKey: undefined,
    tags: undefined,
    keys: undefined,
    userKeys: NO_KEYS,
    userValues: NO_VALUES,
  };
  let userKeys: string[] | undefined;
  let userValues: string[] | undefined;
  /** Keys seen so far, for the first occurrence rule; made for the second piece. */
  let seen: Set<string> | undefined;
  let firstKey: string | undefined;
  const layoutKeys: string[] = [];
  let rememberable = true;
  let index = 0;
  while (index < length) {
    let end = text.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = length;
    const separator = text.indexOf(NAME_VALUE_SEPARATOR, index);
    if (separator > index && separator < end - 1) {
      const key = text.slice(index, separator);
      let first = false;
      if (firstKey === undefined) {
        firstKey = key;
        first = true;
      } else if (key !== firstKey && seen?.has(key) !== true) {
        seen ??= new Set([firstKey]);
        seen.add(key);
        first = true;
      }
      if (first) {
        const value = text.slice(separator + 1, end);
        const slot = slotOf(key);
        if (slot === USER_SLOT) {
          userKeys ??= [];
          userValues ??= [];
          userKeys.push(key);
          userValues.push(value);
        } else {
          setSystemValue(head, slot, value);
        }
      }
      if (layoutKeys.length < MAX_REMEMBERED_PIECES) layoutKeys.push(key);
      else rememberable = false;
    } else {
      rememberable = false;
    }
    index = end + 1;
  }
  if (rememberable) remember(layoutKeys);
  else pendingValid = false;
  if (userKeys !== undefined && userValues !== undefined) {
    head.userKeys = userKeys;
    head.userValues = userValues;
  }
  return head;
}

/**
 * Remembers the layout of a text whose pieces, of `keys`, were all well formed: compiled when it is
 * the layout of the previous walk too (see {@link pendingKeys}), else kept as the pending one.
 */
function remember(keys: readonly string[]): void {
  if (pendingValid && sameKeys(keys, pendingKeys)) {
    pendingValid = false;
    compile(keys);
  } else {
    pendingKeys = keys;
    pendingValid = true;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Adds the pattern of a layout to the remembered ones, first. */
function compile(keys: readonly string[]): void {
  const pieces: string[] = [];
  const slots: Slot[] = [];
  const userKeys: string[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    const slot = seen.has(key) ? NO_SLOT : slotOf(key);
    seen.add(key);
    // In the pattern's own escapes: the separators stay out of its source text.
    const value = slot === NO_SLOT ? '[^\\u0002]+' : '([^\\u0002]+)';
    pieces.push(`${key.replace(REGEX_SYNTAX, '\\$&')}\\u0001${value}`);
    if (slot !== NO_SLOT) slots.push(slot);
    if (slot === USER_SLOT) userKeys.push(key);
  }
  layouts.unshift({
    pattern: new RegExp(`^${pieces.join('\\u0002')}\\u0002?$`),
    slots,
    userKeys: userKeys.length === 0 ? NO_KEYS : userKeys,
  });
  if (layouts.length > MAX_REMEMBERED_LAYOUTS) layouts.pop();
}
