/**
 * The layering of src/, checked on every import (static, type-only, re-exports, dynamic `import()`):
 *
 *   protocol -> network -> client -> consumer <- invoke -> poller -> cli
 *
 * read "is imported by": a layer imports only the layers below it. util/ and the root errors.ts are
 * importable from everywhere; offsets, metrics, config, handler, local-broker, serverless and dev sit
 * where they are used (see LAYERS). A new upward arrow fails this test; an old one stays only in
 * ALLOWED_EXCEPTIONS, with the reason, until it is removed (an exception no import needs fails too).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  type AllowedException,
  checkLayering,
  type ImportEdge,
  type LayerRules,
  layerGraph,
  readImportGraph,
} from '../support/import-graph.js';

const SRC = path.join(import.meta.dirname, '../../src');

/** Importable from every layer: the shared helpers and the one base error class. */
const EVERYWHERE = ['util', 'errors.ts'];

/** Each layer and the layers below it that it may import (EVERYWHERE added to each). */
const BELOW: Record<string, readonly string[]> = {
  'errors.ts': [],
  util: [],
  // Ambient declarations of untyped packages.
  types: [],
  // Pure encoding and decoding: no I/O, nothing of ours but util (its packages are closed below).
  protocol: [],
  // Filter criteria (Lambda's pattern language) over a message's metadata and JSON body: pure, nothing of ours but util.
  filter: [],
  // Sockets and frames; it knows no request codes (those are protocol's, used by client).
  network: ['protocol'],
  client: ['network', 'protocol'],
  // The broker runs as a child process for dev and the tests: beside client, not above it.
  'local-broker': ['network', 'protocol'],
  offsets: ['protocol'],
  consumer: ['client', 'network', 'offsets', 'protocol'],
  // The handler kit runs inside users' functions: nothing of the poller (its packages are closed below).
  handler: [],
  examples: ['handler'],
  // Invokes functions per batch: a MessageListener of consumer, events of the handler kit's types.
  invoke: ['consumer', 'filter', 'handler', 'protocol'],
  metrics: ['consumer', 'invoke', 'offsets', 'protocol'],
  // The configuration's schema: the options of the layers it configures, kept light for the plugin.
  config: ['consumer', 'filter', 'network', 'protocol'],
  poller: ['client', 'config', 'consumer', 'filter', 'invoke', 'metrics', 'network', 'offsets', 'protocol'],
  // The Serverless Framework plugin: config's schema and the names of metrics and the offsets table.
  serverless: ['config', 'metrics', 'offsets', 'protocol'],
  // The CDK constructs: the plugin's compiler under CDK props (nothing imports them but the package's entry).
  cdk: ['config', 'metrics', 'offsets', 'protocol', 'serverless'],
  // A serverless service read as the Framework resolves it and the run config it becomes, for dev, the
  // CLI's targets and validate: config's parser and the plugin's schemas; nothing of the local session.
  'serverless-service': ['config', 'serverless'],
  // The local session behind `rocketmq-lambda dev` (it reads its service through serverless-service);
  // its console sends, reads and redrives dead letters through the operations the CLI uses.
  dev: [
    'client',
    'config',
    'consumer',
    'invoke',
    'local-broker',
    'metrics',
    'operations',
    'poller',
    'serverless-service',
  ],
  // What operators do (targets, queue positions, offset resets, dead letters), apart from how the CLI prints it.
  operations: [
    'client',
    'config',
    'consumer',
    'metrics',
    'offsets',
    'poller',
    'protocol',
    'serverless-service',
  ],
  cli: [
    'client',
    'config',
    'consumer',
    'dev',
    'invoke',
    'local-broker',
    'metrics',
    'network',
    'offsets',
    'operations',
    'poller',
    'protocol',
    'serverless',
    'serverless-service',
  ],
  // The package's entry point: the public API of every library layer.
  'index.ts': [
    'client',
    'config',
    'consumer',
    'handler',
    'invoke',
    'metrics',
    'network',
    'offsets',
    'poller',
    'protocol',
  ],
};

/** Code in users' functions may load zod and Node built-ins, nothing else (no middy, no AWS SDK). */
const KIT_PACKAGES = [/^zod$/, /^node:/];

const LAYERS: LayerRules = {
  imports: Object.fromEntries(
    Object.entries(BELOW).map(([layer, below]) => [
      layer,
      [...below, ...EVERYWHERE.filter((shared) => shared !== layer)],
    ]),
  ),
  packages: {
    handler: KIT_PACKAGES,
    examples: KIT_PACKAGES,
    // No sockets, files or processes in protocol: codecs, hashes and the host's addresses for message ids.
    // One thread: on Node 20 zstd decodes in a worker under a deadline (src/protocol/zstd.ts), and
    // node:module resolves fzstd for it.
    protocol: [/^(fzstd|lz4js)$/, /^node:(buffer|crypto|module|os|worker_threads|zlib)$/],
    // Pure: no I/O at all (Buffer is a global).
    filter: [],
  },
};

/** Today's upward arrows, each with why it is there; remove an entry with the import it names. */
const ALLOWED_EXCEPTIONS: readonly AllowedException[] = [
  ...['config/config-rules.ts', 'config/run-config.ts'].map((from) => ({
    from,
    to: 'invoke/lambda-timeouts.ts',
    why: "DEFAULT_TIMEOUT_MARGIN_MS, the option's default, is invoke's constant (the issue's config -> invoke arrow)",
  })),
  ...['invoke/invoke-error.ts', 'invoke/lambda-function-ref.ts', 'invoke/local-function-ref.ts'].map(
    (to) => ({
      from: 'config/function-ref.ts',
      to,
      why: 'the function reference is parsed by the invoke parsers it configures (lambda: and local: refs)',
    }),
  ),
  {
    from: 'config/metrics-config-schema.ts',
    to: 'metrics/lag-metric.ts',
    why: "LAG_METRIC names the scaling metric the schema documents; metrics' names could move to config",
  },
];

describe('architecture: the import directions of src/', () => {
  const edges = readImportGraph(SRC);

  it('reads the imports of every layer', () => {
    const graph = layerGraph(edges);
    // The layer graph as it is, for the reader of a failure (`npx vitest run test/unit/architecture`).
    console.info([...graph].map(([from, to]) => `${from.padEnd(14)} -> ${to.join(', ')}`).join('\n'));
    expect(graph.get('consumer')).toContain('client');
    expect(edges.filter((edge) => edge.internal).length).toBeGreaterThan(300);
  });

  it('has no import against the layering but the listed exceptions', () => {
    expect(checkLayering(edges, LAYERS, ALLOWED_EXCEPTIONS).violations).toEqual([]);
  });

  it('lists no exception that no import needs any more', () => {
    expect(checkLayering(edges, LAYERS, ALLOWED_EXCEPTIONS).staleExceptions).toEqual([]);
  });

  it('places every folder of src/ in the layering', () => {
    const layers = new Set(edges.map((edge) => edge.from.split('/')[0] ?? ''));
    expect([...layers].filter((layer) => layer.endsWith('.ts') === false && !(layer in BELOW))).toEqual([]);
  });
});

describe('the layering checker', () => {
  const rules: LayerRules = {
    imports: {
      protocol: ['util'],
      network: ['protocol', 'util'],
      cli: ['network', 'protocol', 'util'],
      util: [],
    },
    packages: { protocol: [/^node:buffer$/] },
  };
  const internal = (from: string, to: string): ImportEdge => ({ from, to, internal: true });

  it('passes a graph whose arrows all point down', () => {
    const edges = [
      internal('network/connection.ts', 'protocol/frame.ts'),
      internal('cli/main.ts', 'network/connection.ts'),
      internal('protocol/frame.ts', 'protocol/remoting-command.ts'),
      { from: 'protocol/frame.ts', to: 'node:buffer', internal: false },
    ];
    expect(checkLayering(edges, rules)).toEqual({ violations: [], staleExceptions: [] });
  });

  it('fails on an upward arrow, a forbidden package and an unplaced folder', () => {
    const edges = [
      internal('protocol/frame.ts', 'cli/main.ts'),
      { from: 'protocol/frame.ts', to: 'node:net', internal: false },
      internal('newfolder/thing.ts', 'util/logger.ts'),
    ];
    expect(checkLayering(edges, rules).violations).toEqual([
      'newfolder/thing.ts -> util/logger.ts: newfolder is not placed in the layering (add it to the rules)',
      'protocol/frame.ts -> cli/main.ts: protocol may import util; not cli',
      'protocol/frame.ts -> node:net: protocol may import no package but /^node:buffer$/',
    ]);
  });

  it('lets a listed exception through and reports an exception nothing needs', () => {
    const edges = [internal('protocol/frame.ts', 'cli/main.ts')];
    const exceptions = [
      { from: 'protocol/frame.ts', to: 'cli/main.ts', why: 'test' },
      { from: 'network/connection.ts', to: 'cli/main.ts', why: 'fixed since' },
    ];
    expect(checkLayering(edges, rules, exceptions)).toEqual({
      violations: [],
      staleExceptions: ['network/connection.ts -> cli/main.ts'],
    });
  });

  it('reads every import form of a source file', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'import-graph-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(path.join(root, 'low'));
    writeFileSync(
      path.join(root, 'low/all-forms.ts'),
      [
        "import { readFileSync } from 'node:fs';",
        "import { a } from '../high/static.js';",
        "import type { B } from '../high/type-only.js';",
        "export { c } from '../high/re-export.js';",
        "type D = import('../high/import-type.js').D;",
        "const e = () => import('../high/dynamic.js');",
        "import pkg from '@scope/pkg/sub';",
      ].join('\n'),
    );
    expect(readImportGraph(root)).toEqual([
      { from: 'low/all-forms.ts', to: 'node:fs', internal: false },
      { from: 'low/all-forms.ts', to: 'high/static.ts', internal: true },
      { from: 'low/all-forms.ts', to: 'high/type-only.ts', internal: true },
      { from: 'low/all-forms.ts', to: 'high/re-export.ts', internal: true },
      { from: 'low/all-forms.ts', to: 'high/import-type.ts', internal: true },
      { from: 'low/all-forms.ts', to: 'high/dynamic.ts', internal: true },
      { from: 'low/all-forms.ts', to: '@scope/pkg', internal: false },
    ]);
  });
});
