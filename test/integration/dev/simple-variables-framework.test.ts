/**
 * Differential: serverless.yml documents whose variables dev resolves itself
 * (src/serverless-service/simple-variables.ts) resolve to the same service as the repository's own
 * Framework (osls, `serverless print --format json`) prints. One document holds the whole corpus (env set,
 * unset and empty, fallback chains, quoted/number/boolean fallbacks whole and inside strings, self paths to
 * plain, resolved, nested and list values, opt/sls stage and region), printed once per set of inputs:
 * without --stage/--region or provider.stage, with provider.stage from a variable, and with that and
 * --stage and --region.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServerlessYaml } from '../../../src/serverless-service/load-serverless-service.js';
import { writePluginFallback } from '../../../src/serverless-service/serverless-plugin-fallback.js';
import {
  findServerlessFramework,
  printResolvedService,
} from '../../../src/serverless-service/serverless-print.js';
import { resolveSimpleVariables } from '../../../src/serverless-service/simple-variables.js';
import { REPO } from './dev-process.js';

const CORPUS = `
service: simple-variables-corpus
frameworkVersion: '>=3 <5'
provider:
  name: aws
  runtime: nodejs22.x
  region: \${opt:region, env:SV_REGION, 'us-east-1'}
  PROVIDER_STAGE
custom:
  plain: just text
  envSet: \${env:SV_SET}
  envEmpty: \${env:SV_EMPTY, 'fallback'}
  envEmptyInside: a-\${env:SV_EMPTY, 'x'}-b
  envUnsetQuoted: \${env:SV_UNSET, 'single quoted, with comma'}
  envUnsetDouble: \${env:SV_UNSET, "double quoted"}
  envUnsetSpaces: \${env:SV_UNSET,   'spaced'   }
  envChain: \${env:SV_UNSET, env:SV_UNSET_TOO, env:SV_SET, 'never'}
  envChainLiteral: \${env:SV_UNSET, env:SV_UNSET_TOO, 'last'}
  envNumberText: \${env:SV_NUMBER}
  envAddressSpaces: '\${env: SV_SET }'
  numberFallback: \${env:SV_UNSET, 42}
  negativeFallback: \${env:SV_UNSET, -7}
  decimalFallback: \${env:SV_UNSET, 2.50}
  trueFallback: \${env:SV_UNSET, true}
  falseFallback: \${env:SV_UNSET, false}
  numberInside: batch-\${env:SV_UNSET, 10}-\${env:SV_UNSET, 2.50}
  booleanInside: flag=\${env:SV_UNSET, false}
  twoVariables: \${env:SV_SET}/\${env:SV_NUMBER}
  obj:
    a: 1
    b: \${env:SV_SET}
    list:
      - first
      - \${env:SV_UNSET, 'second'}
  selfPlain: \${self:custom.plain}
  selfResolved: \${self:custom.envSet}
  selfNumber: \${self:custom.numberFallback}
  selfNumberInside: n\${self:custom.numberFallback}
  selfObject: \${self:custom.obj}
  selfListItem: \${self:custom.obj.list.1}
  selfThroughVariable: \${self:custom.selfObject.b}
  selfChain: \${self:custom.selfResolved}
  selfMissing: \${self:custom.nothing, 'missing'}
  selfMissingDeep: \${self:custom.nothing.deeper, env:SV_SET}
  selfNull: \${self:custom.nullValue, 'was null'}
  nullValue: null
  selfEmpty: \${self:custom.envEmpty}
  selfProviderStage: \${self:provider.stage, 'no provider stage'}
  optStage: \${opt:stage, 'no stage'}
  optRegion: \${opt:region, 'no region'}
  optRegionEnv: \${opt:region, env:SV_REGION, 'no region'}
  slsStage: \${sls:stage}
  slsStageInside: topic_\${sls:stage}_\${opt:stage, 'dev'}
  selfRegion: \${self:provider.region}
  envBooleanText: \${env:SV_BOOL}
  envSpecial: \${env:SV_SPECIAL}
  selfList: \${self:custom.list}
  long0: \${self:custom.long1}
  long1: \${self:custom.long2}
  long2: \${self:custom.long3}
  long3: \${self:custom.long4}
  long4: \${self:custom.long5}
  long5: \${self:custom.long6}
  long6: \${self:custom.long7}
  long7: \${self:custom.long8}
  long8: \${self:custom.long9}
  long9: \${self:custom.long10}
  long10: \${self:custom.long11}
  long11: \${self:custom.long12}
  long12: end-\${env:SV_SET}
  list:
    - \${env:SV_SET}
    - \${self:custom.numberFallback}
    - plain
    - nested:
        value: \${sls:stage}-\${env:SV_EMPTY, 'y'}
functions:
  echo:
    handler: handler.echo
    environment:
      STAGE: \${sls:stage}
      NAME: \${self:custom.envSet}
`;

const ENV = {
  SV_SET: 'set-value',
  SV_EMPTY: '',
  SV_NUMBER: '42',
  SV_BOOL: 'true',
  SV_SPECIAL: ' spaces, \'quotes\' "double" $dollar {braces} \\back ',
  SV_REGION: 'eu-west-3',
};

/** The sets of inputs, each printed once. */
const RUNS = [
  {
    name: 'no --stage or --region, no provider.stage',
    providerStage: '',
    stage: undefined,
    region: undefined,
  },
  {
    name: 'provider.stage from env, no --stage',
    providerStage: `stage: \${env:SV_STAGE, 'qa'}`,
    stage: undefined,
    region: undefined,
  },
  {
    name: 'provider.stage from env, --stage and --region given',
    providerStage: `stage: \${env:SV_STAGE, 'qa'}`,
    stage: 'prod',
    region: 'ap-south-1',
  },
] as const;

/** Keys `serverless print` adds to every service (the Framework's defaults), whatever the variables. */
const FRAMEWORK_DEFAULTS = [
  'provider.stage',
  'provider.versionFunctions',
  'functions.echo.events',
  'functions.echo.name',
];

/**
 * `printed` restricted to the keys `ours` has (in mappings, at every depth), and the keys it had beyond
 * them: a key missing from `printed` stays missing, so the comparison still sees it.
 */
function projectOnto(printed: unknown, ours: unknown, at = ''): { kept: unknown; added: string[] } {
  if (!isRecord(printed) || !isRecord(ours)) return { kept: printed, added: [] };
  const kept: Record<string, unknown> = {};
  const added: string[] = [];
  for (const [key, value] of Object.entries(printed)) {
    const keyPath = at === '' ? key : `${at}.${key}`;
    if (!Object.hasOwn(ours, key)) {
      added.push(keyPath);
      continue;
    }
    const inner = projectOnto(value, ours[key], keyPath);
    kept[key] = inner.kept;
    added.push(...inner.added);
  }
  return { kept, added };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

describe('dev resolves simple variables as serverless print does', () => {
  let dir = '';
  const outcomes = new Map<string, { ours: unknown; framework: unknown }>();

  beforeAll(async () => {
    const framework = findServerlessFramework(REPO);
    if (framework === undefined) throw new Error(`no Serverless Framework in ${REPO}/node_modules`);
    dir = await mkdtemp(path.join(tmpdir(), 'simple-variables-'));
    const pluginPath = await writePluginFallback(path.join(dir, 'plugins'));
    const env: Record<string, string | undefined> = { ...process.env, ...ENV };
    for (const name of Object.keys(env)) if (name.startsWith('SV_') && !(name in ENV)) delete env[name];
    // Two prints at a time: each is a Node process loading the whole Framework.
    for (let i = 0; i < RUNS.length; i += 2) {
      await Promise.all(
        RUNS.slice(i, i + 2).map(async (run, j) => {
          const configFile = path.join(dir, `corpus-${i + j}.yml`);
          await writeFile(configFile, CORPUS.replace('PROVIDER_STAGE', run.providerStage));
          const raw = await readServerlessYaml(configFile);
          const ours = resolveSimpleVariables(raw, { env, stage: run.stage, region: run.region });
          const printed = await printResolvedService(framework, {
            configFile,
            stage: run.stage,
            region: run.region,
            env,
            pluginPath,
          });
          if (!printed.ok) throw new Error(`${run.name}: serverless print failed: ${printed.message}`);
          outcomes.set(run.name, { ours: ours.resolved ? ours.document : ours, framework: printed.service });
        }),
      );
    }
  }, 60_000);
  afterAll(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  for (const run of RUNS) {
    it(`gives the Framework's service: ${run.name}`, () => {
      const outcome = outcomes.get(run.name);
      expect(outcome).toBeDefined();
      const { kept, added } = projectOnto(outcome?.framework, outcome?.ours);
      expect(outcome?.ours).toEqual(kept);
      // What print adds is the Framework's own defaults, not variables (dev reads a file without
      // variables without them too).
      expect(added.filter((key) => !FRAMEWORK_DEFAULTS.includes(key))).toEqual([]);
    });
  }

  it('reads the values the corpus means (the Framework is not trivially agreeing with a no-op)', () => {
    const first = outcomes.get(RUNS[0].name)?.framework as { custom: Record<string, unknown> };
    expect(first.custom.envEmpty).toBe('');
    expect(first.custom.numberFallback).toBe(42);
    expect(first.custom.selfNumberInside).toBe('n42');
    expect(first.custom.slsStage).toBe('dev');
    expect(first.custom.optRegion).toBe('no region');
    expect(first.custom.envBooleanText).toBe('true');
    expect(first.custom.long0).toBe('end-set-value');
    const second = outcomes.get(RUNS[1].name)?.framework as { custom: Record<string, unknown> };
    expect(second.custom.slsStage).toBe('qa');
    const third = outcomes.get(RUNS[2].name)?.framework as { custom: Record<string, unknown> };
    expect(third.custom.slsStage).toBe('prod');
    expect(third.custom.optRegion).toBe('ap-south-1');
  });
});
