/**
 * The `tls` key, declared once for both surfaces that take it: the run config's top-level `tls`, and
 * `custom.rocketmq.tls` in serverless.yml, which the plugin hands to the poller's run config as is. A
 * surface says where its PEM files are and whether it takes `keyPassphrase`; the keys, their types,
 * descriptions and defaults are the same.
 */
import { z } from 'zod';
import { RUN_DEFAULTS } from './config-defaults.js';
import { info, text } from './schema-meta.js';

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
          description: `PEM file of the certificate authorities that sign the servers' certificates (a private CA); ${files}. Replaces the public CAs.`,
          defaultText: "Node's public CAs",
        }),
      ),
    certFile: text()
      .optional()
      .meta(
        info({
          description:
            'PEM certificate (chain) this poller presents, for brokers that require client certificates (mutual TLS); needs `keyFile`.',
        }),
      ),
    keyFile: text()
      .optional()
      .meta(info({ description: 'PEM private key of `certFile`.' })),
    keyPassphrase: text()
      .optional()
      .meta(
        info({
          description:
            'Passphrase of an encrypted `keyFile`. Filled from `ROCKETMQ_TLS_KEY_PASSPHRASE` when absent.',
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
