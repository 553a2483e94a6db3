/**
 * Broken config documents with a secret placed at or around each syntax error, one per class of error
 * the JSON and YAML readers know, and the check that no output shows any part of the secret.
 */

/** Secrets of the shapes ACL keys take: letters and digits, and base64 with its `/`, `+` and `=`. */
export const SECRETS = ['Zq7xKp9wVt3mRb8y', 'Xw9/Qk+Tz2=Lm4Rn'] as const;

/** The shortest part of a secret that counts as shown. */
const SHOWN_CHARS = 4;

/**
 * The first part of `secret` (at least four characters) that `output` shows, or undefined.
 *
 * @example
 * ```ts
 * shownPart('Unexpected token ..."ecretKey":Zq7x...', 'Zq7xKp9wVt3mRb8y'); // => 'Zq7x'
 * ```
 */
export function shownPart(output: string, secret: string): string | undefined {
  for (let start = 0; start + SHOWN_CHARS <= secret.length; start++) {
    const part = secret.slice(start, start + SHOWN_CHARS);
    if (output.includes(part)) return part;
  }
  return undefined;
}

/** One broken document: its class of error and its text with the secret `s` in it. */
export interface BrokenDocument {
  readonly name: string;
  readonly text: (s: string) => string;
}

const deep = (s: string, open: string, close: string): string =>
  `{"acl": ${open.repeat(70)}"${s}"${close.repeat(70)}}`;

/** JSON documents, each refused by the JSON reader. */
export const BROKEN_JSON: readonly BrokenDocument[] = [
  { name: 'unquoted value', text: (s) => `{"acl": {"accessKey": "ak", "secretKey": ${s}}}` },
  { name: 'unquoted value, then more', text: (s) => `{"acl": {"secretKey": ${s}, "accessKey": "${s}"}}` },
  { name: 'single-quoted value', text: (s) => `{"acl": {"secretKey": '${s}'}}` },
  { name: 'unterminated string at the end', text: (s) => `{"acl": {"secretKey": "${s}` },
  { name: 'unterminated string, line break', text: (s) => `{"acl": {"secretKey": "${s}\n}}` },
  { name: 'bad escape', text: (s) => `{"acl": {"secretKey": "${s}\\q${s}"}}` },
  { name: 'bad \\u escape', text: (s) => `{"acl": {"secretKey": "${s}\\u12${s}"}}` },
  { name: 'raw tab in a string', text: (s) => `{"acl": {"secretKey": "${s}\t${s}"}}` },
  { name: 'minus without digits', text: (s) => `{"acl": {"secretKey": -${s}}}` },
  { name: 'leading zero', text: (s) => `{"acl": {"secretKey": 01${s}}}` },
  { name: 'decimal point without digits', text: (s) => `{"acl": {"secretKey": 1.${s}}}` },
  { name: 'exponent without digits', text: (s) => `{"acl": {"secretKey": 1e${s}}}` },
  { name: 'number then letters', text: (s) => `{"acl": {"secretKey": 12${s}}}` },
  { name: 'misspelt literal', text: (s) => `{"acl": {"secretKey": true${s}}}` },
  { name: 'trailing comma in an object', text: (s) => `{"acl": {"secretKey": "${s}",}}` },
  { name: 'trailing comma in a list', text: (s) => `{"nameServer": ["${s}",]}` },
  { name: 'missing comma', text: (s) => `{"acl": {"secretKey": "${s}" "accessKey": "${s}"}}` },
  { name: 'missing colon', text: (s) => `{"acl": {"secretKey" "${s}"}}` },
  { name: 'unquoted key', text: (s) => `{"acl": {${s}: "x"}}` },
  { name: 'unquoted key before the secret', text: (s) => `{"acl": {secretKey: "${s}"}}` },
  { name: 'duplicate key', text: (s) => `{"acl": {"secretKey": "${s}", "secretKey": "${s}"}}` },
  { name: 'end after the value', text: (s) => `{"acl": {"secretKey": "${s}"` },
  { name: 'end after a comma', text: (s) => `{"acl": {"secretKey": "${s}",` },
  { name: 'end after a colon', text: (s) => `{"acl": {"accessKey": "${s}", "secretKey":` },
  { name: 'mismatched bracket', text: (s) => `{"acl": {"secretKey": "${s}"]}` },
  { name: 'text after the value', text: (s) => `{"acl": {"secretKey": "x"}} ${s}` },
  { name: 'a comment', text: (s) => `{"acl": {"secretKey": "${s}" // ${s}\n}}` },
  { name: 'a # comment', text: (s) => `{"acl": {"secretKey": "${s}"} # ${s}\n}` },
  { name: 'non-ASCII quotes', text: (s) => `{"acl": {"secretKey": «${s}»}}` },
  { name: 'nested too deeply (lists)', text: (s) => deep(s, '[', ']') },
  { name: 'nested too deeply (objects)', text: (s) => `${'{"a":'.repeat(70)}"${s}"${'}'.repeat(70)}` },
  { name: 'a YAML document given as JSON', text: (s) => `{"acl": {"secretKey": "${s}"}}\nsecretKey: ${s}\n` },
];

/** YAML documents, each refused by the YAML reader. */
export const BROKEN_YAML: readonly BrokenDocument[] = [
  { name: 'unclosed double quote', text: (s) => `acl:\n  secretKey: "${s}\n  accessKey: ak\n` },
  { name: 'unclosed single quote', text: (s) => `acl:\n  secretKey: '${s}\n  accessKey: ak\n` },
  { name: 'unclosed flow mapping', text: (s) => `acl: { secretKey: ${s}, accessKey: ak\nnameServer: x\n` },
  { name: 'unclosed flow list', text: (s) => `nameServer: [${s}, ${s}\nacl: {}\n` },
  { name: 'flow mapping at the root never closed', text: (s) => `{ secretKey: ${s}` },
  { name: 'bad escape', text: (s) => `acl:\n  secretKey: "${s}\\q${s}"\n` },
  { name: 'bad \\x escape', text: (s) => `acl:\n  secretKey: "${s}\\x${s}"\n` },
  { name: 'duplicate key', text: (s) => `acl:\n  secretKey: ${s}\n  secretKey: ${s}\n` },
  { name: 'tab indentation', text: (s) => `acl:\n\tsecretKey: ${s}\n` },
  { name: 'bad indentation', text: (s) => `acl:\n    accessKey: ak\n  secretKey: ${s}\n` },
  { name: 'bad indentation of a list', text: (s) => `nameServer:\n  - ${s}\n    - ${s}\n - x\n` },
  { name: 'alias of no anchor', text: (s) => `acl:\n  secretKey: *${s.replace(/\W/g, '')}\n` },
  { name: 'anchor and alias on one node', text: (s) => `a: &x ${s}\nb: &y *x\n` },
  { name: 'alias ending in a colon', text: (s) => `a: &x ${s}\nb: [*x:]\n` },
  { name: 'two anchors', text: (s) => `acl: &a &b\n  secretKey: ${s}\n` },
  { name: 'two tags', text: (s) => `acl:\n  secretKey: !!str !!str ${s}\n` },
  { name: 'two documents', text: (s) => `acl:\n  secretKey: ${s}\n---\nacl:\n  secretKey: ${s}\n` },
  { name: 'plain value starting with @', text: (s) => `acl:\n  secretKey: @${s}\n` },
  { name: 'plain value starting with a backtick', text: (s) => `acl:\n  secretKey: \`${s}\n` },
  { name: 'block scalar header', text: (s) => `acl:\n  secretKey: |${s}\n    x\n` },
  { name: 'bad directive', text: (s) => `%YAML ${s}\n---\na: 1\n` },
  { name: 'key of more than 1024 characters', text: (s) => `${s.repeat(70)} x: 1\n` },
  { name: 'key spanning lines', text: (s) => `acl:\n  "secretKey\n  ${s}": 1\n` },
  { name: 'value after a quoted value', text: (s) => `acl:\n  secretKey: "${s}" ${s}\n` },
  { name: 'comment without a space', text: (s) => `acl:\n  secretKey: "${s}"#${s}\n` },
  { name: 'block list in a flow', text: (s) => `acl: [\n- ${s}\n]\n` },
  { name: 'mapping as a key', text: (s) => `acl: secretKey: ${s}\n` },
  { name: 'a mapping used as a key', text: (s) => `acl:\n  ? { secretKey: ${s} }\n  : 1\n` },
  { name: 'a list used as a key', text: (s) => `acl: { [${s}]: 1 }\n` },
  { name: 'list after a mapping', text: (s) => `acl:\n  secretKey: ${s}\n- ${s}\n` },
  { name: 'missing comma in a flow mapping', text: (s) => `acl: { "secretKey": "${s}" "accessKey": x }\n` },
  { name: 'stray closing bracket', text: (s) => `acl: [${s}]]\n` },
  { name: 'stray closing brace', text: (s) => `acl: { secretKey: ${s} }}\n` },
  { name: 'stray document end', text: (s) => `...\nacl: ${s}\n` },
  { name: 'nested too deeply (flow)', text: (s) => `a: ${'['.repeat(70)}${s}${']'.repeat(70)}\n` },
  {
    name: 'nested too deeply (block)',
    text: (s) => `${Array.from({ length: 70 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} ${s}\n`,
  },
  { name: 'nested past the stack', text: (s) => `a: ${'['.repeat(20_000)}${s}\n` },
  {
    name: 'alias bomb',
    text: (s) => {
      const lines = [`a0: &a0 ["${s}", "${s}", "${s}", "${s}", "${s}", "${s}", "${s}", "${s}", "${s}"]`];
      for (let i = 1; i < 10; i++) {
        lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
      }
      return `${lines.join('\n')}\n`;
    },
  },
];

/** A valid JSON config holding the secret (ACL secret key), to break at every position. */
export const validJson = (s: string): string =>
  `{\n  "nameServer": "127.0.0.1:9876",\n  "acl": {"accessKey": "ak", "secretKey": "${s}"},\n  "offsets": {"store": "memory"},\n  "mappings": [{"topic": "T", "consumerGroup": "G", "function": "local:./h.mjs"}]\n}\n`;

/** A valid YAML config holding the secret, to break at every position. */
export const validYaml = (s: string): string =>
  `nameServer: 127.0.0.1:9876\nacl:\n  accessKey: ak\n  secretKey: "${s}"\n  securityToken: '${s}'\noffsets: { store: memory }\nmappings:\n  - topic: T\n    consumerGroup: G\n    function: local:./h.mjs\n`;
