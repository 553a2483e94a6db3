/**
 * The `tls` key, declared once for both surfaces that take it: the run config's top-level `tls`, and
 * `custom.rocketmq.tls` in serverless.yml, which the plugin hands to the poller's run config as is. A
 * surface says where its PEM files are and which other sources it takes (the run config: PEM text and
 * the environment; serverless.yml: secrets, see src/serverless/rocketmq-custom-schema.ts); the keys,
 * their types, descriptions and defaults are the same. Where each piece comes from: tls-material-sources.ts.
 */
import { z } from 'zod';
import { RUN_DEFAULTS } from './config-defaults.js';
import { info, text } from './schema-meta.js';
import { TLS_MATERIAL_LIMITS } from './tls-material.js';
import { TLS_KEY_PASSPHRASE, TLS_MATERIAL } from './tls-material-sources.js';

/** The bounds of PEM material, in words for the descriptions. */
const PEM_BOUND = `At most ${TLS_MATERIAL_LIMITS.maxPemBytes / 1024 / 1024} MiB`;

/**
 * The settings form of `tls` (besides `true` / `false`); `files` says where the PEM files are read from
 * ("relative to the config file"). A surface that cannot take an encrypted key omits `keyPassphrase`.
 */
export function tlsSettingsSchema(files: string) {
  return z.strictObject({
    caFile: text()
      .optional()
      .meta(
        info({
          description: `PEM file of the certificate authorities that sign the servers' certificates (a private CA); ${files}. Replaces the public CAs. ${PEM_BOUND}, at most ${TLS_MATERIAL_LIMITS.maxCaCertificates} certificates.`,
          defaultText: "Node's public CAs",
        }),
      ),
    certFile: text()
      .optional()
      .meta(
        info({
          description: `PEM certificate (chain, at most ${TLS_MATERIAL_LIMITS.maxChainCertificates} certificates) this poller presents, for brokers that require client certificates (mutual TLS); needs \`keyFile\` (or another source of the key).`,
        }),
      ),
    keyFile: text()
      .optional()
      .meta(info({ description: 'PEM private key of `certFile` (one key, encrypted or not).' })),
    ca: text()
      .optional()
      .meta(
        info({
          description: `PEM text of \`caFile\` instead of a file. Filled from \`${TLS_MATERIAL.ca.env}\` when no source of the CAs is set (an ECS secret needs no own image); the config and the environment must not both give it.`,
        }),
      ),
    cert: text()
      .optional()
      .meta(
        info({
          description: `PEM text of \`certFile\` instead of a file. Filled from \`${TLS_MATERIAL.cert.env}\` likewise.`,
        }),
      ),
    key: text()
      .optional()
      .meta(
        info({
          description: `PEM text of \`keyFile\` instead of a file. Filled from \`${TLS_MATERIAL.key.env}\` likewise. PEM text given on one line with \`\\n\` for its line breaks is read with line breaks.`,
        }),
      ),
    keyPassphrase: text()
      .optional()
      .meta(
        info({
          description: `Passphrase of an encrypted \`keyFile\` / \`key\` (at most ${TLS_MATERIAL_LIMITS.maxKeyPassphraseBytes} bytes, OpenSSL's limit). Filled from \`${TLS_KEY_PASSPHRASE.env}\` when absent.`,
        }),
      ),
    serverName: text()
      .optional()
      .meta(
        info({
          description:
            "The name the servers' certificates must carry when it is not the host connected to (brokers registered by IP with DNS-named certificates).",
          defaultText: "each address's host",
        }),
      ),
    verifyServer: z
      .boolean()
      .optional()
      .meta(
        info({
          description:
            "Verify the servers' certificates (chain and name). `false` encrypts without authenticating the servers: for tests only.",
          default: RUN_DEFAULTS.verifyServer,
        }),
      ),
  });
}

/**
 * The optional `tls` key: `true`, `false`, or `settings`, with the error naming the settings' own keys;
 * `note` is a sentence of the surface after the description.
 */
export function tlsSchema<Settings extends z.ZodObject>(settings: Settings, note?: string) {
  const description =
    'TLS towards name servers and brokers: `true` (verified against the public CAs), or the settings below.';
  return z
    .union([z.boolean(), settings], {
      error: `must be true, false or { ${Object.keys(settings.shape).join(', ')} }`,
    })
    .optional()
    .meta(
      info({
        description: note === undefined ? description : `${description} ${note}`,
        default: RUN_DEFAULTS.tls,
      }),
    );
}
