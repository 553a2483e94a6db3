/**
 * Where each piece of TLS material comes from. The CA certificates, the client certificate and its key
 * each have one source: a PEM file (`caFile`), PEM text in the config (`ca`), the environment
 * (`ROCKETMQ_TLS_CA`, filled into `ca` as `ROCKETMQ_ACCESS_KEY` fills `acl`), or, in serverless.yml, a
 * Secrets Manager secret or SSM parameter (`caSecret`) that ECS injects as that environment variable.
 * Two sources for one piece are refused rather than one silently winning: a file left in an image would
 * otherwise shadow the secret meant to replace it.
 */
import type { TlsSettingNames } from '../network/tls-options.js';
import { isPlainRecord } from '../util/plain-record.js';
import type { ConfigProblem, KeyPath } from './config-problem.js';

/** A piece of TLS material that has sources. */
export type TlsMaterialPiece = 'ca' | 'cert' | 'key';

/** The keys and the environment variable of each piece, and how errors call it. */
export const TLS_MATERIAL = {
  ca: {
    file: 'caFile',
    inline: 'ca',
    secret: 'caSecret',
    env: 'ROCKETMQ_TLS_CA',
    what: 'the CA certificates',
  },
  cert: {
    file: 'certFile',
    inline: 'cert',
    secret: 'certSecret',
    env: 'ROCKETMQ_TLS_CERT',
    what: 'the client certificate',
  },
  key: {
    file: 'keyFile',
    inline: 'key',
    secret: 'keySecret',
    env: 'ROCKETMQ_TLS_KEY',
    what: "the client certificate's key",
  },
} as const;

/** The sources of the key's passphrase (the environment variable fills `keyPassphrase` when absent). */
export const TLS_KEY_PASSPHRASE = {
  inline: 'keyPassphrase',
  secret: 'keyPassphraseSecret',
  env: 'ROCKETMQ_TLS_KEY_PASSPHRASE',
} as const;

const PIECES = Object.keys(TLS_MATERIAL) as TlsMaterialPiece[];

/** The serverless.yml keys that name a secret (`caSecret`, ...): not keys of the run config. */
export const TLS_SECRET_KEYS: readonly string[] = [
  ...PIECES.map((piece) => TLS_MATERIAL[piece].secret),
  TLS_KEY_PASSPHRASE.secret,
];

type Env = Readonly<Record<string, string | undefined>>;
type Sources = readonly string[];

const sourcesOf = (piece: TlsMaterialPiece): Sources => {
  const { file, inline, secret } = TLS_MATERIAL[piece];
  return [file, inline, secret];
};

/**
 * The rules of the sources in the settings form of `tls` (the run config's, `custom.rocketmq.tls`): one
 * source per piece; a client certificate and its key come together (the key named in the same kind as
 * the certificate: `certFile` wants `keyFile`); a passphrase needs a key. `path` is where `tls` is.
 */
export function tlsSourceProblems(value: unknown, path: KeyPath): ConfigProblem[] {
  if (!isPlainRecord(value)) return [];
  const problems: ConfigProblem[] = [];
  const setOf = (piece: TlsMaterialPiece) => sourcesOf(piece).filter((key) => value[key] !== undefined);
  for (const piece of PIECES) {
    const [first, second] = setOf(piece);
    if (first !== undefined && second !== undefined) {
      problems.push({
        path: [...path, second],
        message: `set together with ${first}: give ${TLS_MATERIAL[piece].what} one way`,
      });
    }
  }
  const [cert] = setOf('cert');
  const [key] = setOf('key');
  const counterpart = (source: string, of: TlsMaterialPiece, to: TlsMaterialPiece): string => {
    const kinds = ['file', 'inline', 'secret'] as const;
    const kind = kinds.find((k) => TLS_MATERIAL[of][k] === source) ?? 'file';
    return TLS_MATERIAL[to][kind];
  };
  if (cert !== undefined && key === undefined)
    problems.push({ path: [...path, counterpart(cert, 'cert', 'key')], message: `required with ${cert}` });
  if (key !== undefined && cert === undefined)
    problems.push({ path: [...path, counterpart(key, 'key', 'cert')], message: `required with ${key}` });
  if (key === undefined) {
    for (const passphrase of [TLS_KEY_PASSPHRASE.inline, TLS_KEY_PASSPHRASE.secret]) {
      if (value[passphrase] !== undefined)
        problems.push({ path: [...path, passphrase], message: 'set without a key to decrypt' });
    }
  }
  return problems;
}

/** The PEM text of each piece the environment sets (blank counts as unset). */
export function tlsMaterialFromEnv(env: Env): Partial<Record<TlsMaterialPiece, string>> {
  const material: Partial<Record<TlsMaterialPiece, string>> = {};
  for (const piece of PIECES) {
    const value = env[TLS_MATERIAL[piece].env]?.trim();
    if (value !== undefined && value !== '') material[piece] = value;
  }
  return material;
}

/**
 * Problems of the environment's TLS material against the config's `tls` (the raw input): material with
 * `tls: false`, or a piece the config already gives (a file or PEM text). Never names a value.
 */
export function tlsEnvironmentProblems(tls: unknown, env: Env): ConfigProblem[] {
  const material = tlsMaterialFromEnv(env);
  const given = PIECES.filter((piece) => material[piece] !== undefined);
  if (given.length === 0) return [];
  if (tls === false) {
    const names = given.map((piece) => TLS_MATERIAL[piece].env);
    return [
      {
        path: ['tls'],
        message: `is false but ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} set: remove tls: false, or unset them`,
      },
    ];
  }
  if (!isPlainRecord(tls)) return [];
  return given.flatMap((piece) =>
    sourcesOf(piece)
      .filter((key) => tls[key] !== undefined)
      .map((key) => ({
        path: ['tls', key],
        message: `set together with ${TLS_MATERIAL[piece].env}: give ${TLS_MATERIAL[piece].what} one way`,
      })),
  );
}

/**
 * `tls` with the environment's material filled in, as `ca`, `cert`, `key`: absent or `true` becomes the
 * settings form; in the settings form a piece is filled only where the config gives no source for it
 * ({@link tlsEnvironmentProblems} reports the others). `false` and wrong types are returned as they are.
 */
export function applyTlsEnvironment(tls: unknown, env: Env): unknown {
  const material = tlsMaterialFromEnv(env);
  const given = PIECES.filter((piece) => material[piece] !== undefined);
  if (given.length === 0) return tls;
  if (tls !== undefined && tls !== true && !isPlainRecord(tls)) return tls;
  const filled: Record<string, unknown> = isPlainRecord(tls) ? { ...tls } : {};
  for (const piece of given) {
    if (sourcesOf(piece).every((key) => filled[key] === undefined))
      filled[TLS_MATERIAL[piece].inline] = material[piece];
  }
  return filled;
}

/**
 * How errors name each piece of a `tls` in settings form: its file key when it has one, else its PEM
 * text key with the environment variable that fills it.
 */
export function tlsSettingNamesOf(tls: Readonly<Record<string, unknown>>): TlsSettingNames {
  const name = (piece: TlsMaterialPiece): string => {
    const { file, inline, env } = TLS_MATERIAL[piece];
    return tls[inline] !== undefined ? `tls.${inline} (or ${env})` : `tls.${file}`;
  };
  return {
    caPem: name('ca'),
    certPem: name('cert'),
    keyPem: name('key'),
    keyPassphrase: `tls.${TLS_KEY_PASSPHRASE.inline} (or ${TLS_KEY_PASSPHRASE.env})`,
  };
}
