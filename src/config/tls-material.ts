/**
 * The TLS settings of a run config resolved: each piece of PEM material read from its source (a file
 * relative to the config, or PEM text from the config or the environment, see tls-material-sources.ts),
 * bounded, and checked when the config is loaded: every certificate parses as X.509 and an unencrypted
 * key parses. Decrypting an encrypted key with its passphrase, and matching the key to the certificate,
 * are the start check's (secureTlsConnectionOptions in src/network/tls-options.ts, run by
 * src/poller/start-checks.ts and src/poller/rocketmq-client-of-config.ts before anything connects).
 * Problems name the key (and the file or the environment variable), never the material or the passphrase.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  buildTlsConnectionOptions,
  type TlsClientSettings,
  type TlsSettingNames,
  TlsSettingsError,
} from '../network/tls-options.js';
import { ConfigError } from './config-error.js';
import {
  TLS_KEY_PASSPHRASE,
  TLS_MATERIAL,
  type TlsMaterialPiece,
  tlsSettingNamesOf,
} from './tls-material-sources.js';

/** Bounds of TLS material from outside. */
export const TLS_MATERIAL_LIMITS = {
  /** The PEM text of one piece (a CA bundle, a certificate chain, a key), file or text. */
  maxPemBytes: 1024 * 1024,
  /** Certificates in a CA bundle (Mozilla's public bundle holds about 150). */
  maxCaCertificates: 1000,
  /** Certificates in the client certificate's chain (the certificate and its intermediates). */
  maxChainCertificates: 10,
  /** Bytes of a key passphrase: OpenSSL refuses longer ones (its PEM_BUFSIZE). */
  maxKeyPassphraseBytes: 1024,
} as const;

/** The settings form of `tls` as the schema passed it. */
export interface TlsSettingsInput {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly ca?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly keyPassphrase?: string | undefined;
  readonly serverName?: string | undefined;
  readonly verifyServer?: boolean | undefined;
}

/** TLS settings with their material, and how errors about the material name each piece. */
export interface ResolvedTlsSettings extends TlsClientSettings {
  /** The config keys (or environment variables) the material came from, for the start check's errors. */
  readonly settingNames?: TlsSettingNames | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads and checks the material of `tls` (files relative to `baseDir`; the passphrase from
 * `ROCKETMQ_TLS_KEY_PASSPHRASE` when `keyPassphrase` is absent). `undefined` and `false` are plain TCP.
 * Throws {@link ConfigError} with every problem.
 */
export function resolveTlsSettings(
  tls: boolean | TlsSettingsInput | undefined,
  baseDir: string,
  env: Env,
  verifyServerDefault: boolean,
): ResolvedTlsSettings | undefined {
  if (tls === undefined || tls === false) return undefined;
  if (tls === true) return { verifyServer: verifyServerDefault };
  const names = tlsSettingNamesOf(tls as Readonly<Record<string, unknown>>);
  const problems: string[] = [];
  const pemOf = (piece: TlsMaterialPiece, name: string): string | undefined => {
    const { file, inline } = TLS_MATERIAL[piece];
    const text =
      tls[inline] !== undefined
        ? inlinePem(tls[inline], name, problems)
        : tls[file] === undefined
          ? undefined
          : pemFile(tls[file], baseDir, name, problems);
    if (text === undefined) return undefined;
    const before = problems.length;
    if (piece === 'key') problems.push(...keyProblems(text, name));
    else {
      const max =
        piece === 'ca' ? TLS_MATERIAL_LIMITS.maxCaCertificates : TLS_MATERIAL_LIMITS.maxChainCertificates;
      problems.push(...certificateProblems(text, name, max));
    }
    return problems.length === before ? text : undefined;
  };
  const keyPassphrase = tls.keyPassphrase ?? nonBlank(env[TLS_KEY_PASSPHRASE.env]);
  if (
    keyPassphrase !== undefined &&
    Buffer.byteLength(keyPassphrase) > TLS_MATERIAL_LIMITS.maxKeyPassphraseBytes
  ) {
    problems.push(
      `${names.keyPassphrase}: longer than ${TLS_MATERIAL_LIMITS.maxKeyPassphraseBytes} bytes (OpenSSL's limit)`,
    );
  }
  const settings: ResolvedTlsSettings = {
    caPem: pemOf('ca', names.caPem),
    certPem: pemOf('cert', names.certPem),
    keyPem: pemOf('key', names.keyPem),
    keyPassphrase,
    serverName: tls.serverName,
    verifyServer: tls.verifyServer ?? verifyServerDefault,
    settingNames: names,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  try {
    buildTlsConnectionOptions(settings);
  } catch (error) {
    if (error instanceof TlsSettingsError) {
      const key = (piece: TlsMaterialPiece) =>
        tls[TLS_MATERIAL[piece].inline] !== undefined ? TLS_MATERIAL[piece].inline : TLS_MATERIAL[piece].file;
      const inConfigTerms = error.message
        .replace(/\bcaPem\b/g, key('ca'))
        .replace(/\bcertPem\b/g, key('cert'))
        .replace(/\bkeyPem\b/g, key('key'));
      throw new ConfigError([`tls: ${inConfigTerms}`]);
    }
    throw error;
  }
  return settings;
}

/**
 * PEM text from the config or the environment, bounded. Text on one line whose line breaks are written
 * `\n` (a JSON string pasted into a `.env` file) gets its line breaks back; PEM never holds a backslash.
 */
function inlinePem(text: string, name: string, problems: string[]): string | undefined {
  const bytes = Buffer.byteLength(text);
  if (bytes > TLS_MATERIAL_LIMITS.maxPemBytes) {
    problems.push(`${name}: ${bytes} bytes, more than the ${TLS_MATERIAL_LIMITS.maxPemBytes} allowed`);
    return undefined;
  }
  return !text.includes('\n') && text.includes('\\n') ? text.replace(/(?:\\r)?\\n/g, '\n') : text;
}

/** A PEM file, refused unread when over the bound. */
function pemFile(file: string, baseDir: string, name: string, problems: string[]): string | undefined {
  const absolute = path.resolve(baseDir, file);
  try {
    const { size } = statSync(absolute);
    if (size > TLS_MATERIAL_LIMITS.maxPemBytes) {
      problems.push(
        `${name}: ${absolute} has ${size} bytes, more than the ${TLS_MATERIAL_LIMITS.maxPemBytes} allowed`,
      );
      return undefined;
    }
    return readFileSync(absolute, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    problems.push(
      `${name}: cannot read ${absolute}: ${code === 'ENOENT' ? 'no such file' : String(code ?? cause)}`,
    );
    return undefined;
  }
}

/** One `-----BEGIN <label>-----` ... `-----END <label>-----` block of PEM text. */
interface PemBlock {
  readonly label: string;
  readonly text: string;
}

const BEGIN_LINE = /^-----BEGIN ([A-Z0-9 ]{1,64})-----$/;

/**
 * The PEM blocks of `text`, line by line (linear in the text, whatever it holds); text between blocks
 * (a bundle's comments) is skipped. `unterminated` is the label of a block without its END line.
 */
function pemBlocks(text: string): { blocks: PemBlock[]; unterminated: string | undefined } {
  const blocks: PemBlock[] = [];
  let open: { label: string; lines: string[] } | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (open === undefined) {
      const label = BEGIN_LINE.exec(line)?.[1];
      if (label !== undefined) open = { label, lines: [line] };
      continue;
    }
    open.lines.push(line);
    if (line === `-----END ${open.label}-----`) {
      blocks.push({ label: open.label, text: `${open.lines.join('\n')}\n` });
      open = undefined;
    }
  }
  return { blocks, unterminated: open?.label };
}

/** Problems of a CA bundle or a certificate chain: 1 to `max` certificates, each a valid X.509 one. */
function certificateProblems(text: string, name: string, max: number): string[] {
  const { blocks, unterminated } = pemBlocks(text);
  if (unterminated !== undefined) return [`${name}: a ${unterminated} block has no END line`];
  const certificates = blocks.filter((block) => block.label === 'CERTIFICATE');
  if (certificates.length === 0) return [`${name}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`];
  if (certificates.length > max)
    return [`${name}: holds ${certificates.length} certificates, more than the ${max} allowed`];
  for (const [index, block] of certificates.entries()) {
    try {
      new X509Certificate(block.text);
    } catch (error) {
      return [
        `${name}: certificate ${index + 1} of ${certificates.length} is not a valid X.509 certificate (${errorCode(error)})`,
      ];
    }
  }
  return [];
}

/** PKCS#8 encrypted, or a traditional key with an encryption header. */
const ENCRYPTED_HEADER = /^Proc-Type:\s*4,ENCRYPTED/m;

/**
 * Problems of a private key: exactly one PEM private key block, which parses when it is not encrypted
 * (an encrypted one is opened by the start check, which names the passphrase when it does not fit).
 */
function keyProblems(text: string, name: string): string[] {
  const { blocks, unterminated } = pemBlocks(text);
  if (unterminated !== undefined) return [`${name}: a ${unterminated} block has no END line`];
  const keys = blocks.filter((block) => block.label.endsWith('PRIVATE KEY'));
  if (keys.length === 0) return [`${name}: holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)`];
  if (keys.length > 1) return [`${name}: holds ${keys.length} private keys; give exactly one`];
  const [key] = keys as [PemBlock];
  if (key.label === 'ENCRYPTED PRIVATE KEY' || ENCRYPTED_HEADER.test(key.text)) return [];
  try {
    createPrivateKey({ key: key.text, format: 'pem' });
    return [];
  } catch (error) {
    return [`${name}: not a usable private key (${errorCode(error)})`];
  }
}

/** The error's code (`ERR_OSSL_...`): names the failure and, unlike some messages, quotes no input. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'unknown error';
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
