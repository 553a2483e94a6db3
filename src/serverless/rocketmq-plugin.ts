/**
 * The Serverless Framework plugin (v3 API; runs under `osls`): declares the `rocketmq` event and
 * `custom.rocketmq`, and compiles them in one `package:compileEvents` hook with
 * {@link compileRocketMQResources}. Around that:
 * - at load, unknown keys are reported with a "did you mean" (the framework's own schema check, which
 *   runs next, names them without one);
 * - packaging leaves `rocketmq-lambda dev`'s state (`.rocketmq-lambda/`) and the TypeScript sources and
 *   source maps of dependencies out of the functions' zips;
 * - with `image.build`, the deploy checks Docker first and, once the stack exists, builds and pushes the
 *   image and points the task definition at its digest before the template is uploaded.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_STATE_DIR } from '../config/config-defaults.js';
import type { CfnResource } from './cfn-intrinsic.js';
import {
  type CompileRocketMQInput,
  compileRocketMQResources,
  frameworkTimeoutSeconds,
} from './compile-rocketmq-resources.js';
import { createCommandRunner, ensureDockerBuildx, ImageBuildError } from './docker-image-build.js';
import { RocketMQPluginError } from './plugin-error.js';
import { rocketmqCustomJsonSchema, rocketmqEventJsonSchema } from './plugin-json-schemas.js';
import { awaitsBuiltImage } from './poller-image.js';
import { BOOTSTRAP_IMAGE_PARAM, deployBuiltImage, type ImageDeployProvider } from './poller-image-deploy.js';
import { rocketmqCustomSchema } from './rocketmq-custom-schema.js';
import { serviceUnknownKeyProblems } from './schema-problems.js';

/**
 * What `rocketmq-lambda dev` keeps in the service directory (broker logs, offsets): never deployed.
 *
 * @example
 * ```ts
 * serverless.service.package.patterns.includes(DEV_STATE_EXCLUDE_PATTERN); // => true after packaging
 * ```
 */
export const DEV_STATE_EXCLUDE_PATTERN = `!${LOCAL_STATE_DIR}/**`;
/**
 * TypeScript sources, declarations and source maps of dependencies: a Lambda function never loads them,
 * and zod alone ships about 4 MB of them (the handler kit's zip goes from 1.6 MB to 0.6 MB).
 */
export const DEPENDENCY_SOURCES_EXCLUDE_PATTERN = '!node_modules/**/*.{ts,cts,mts,map}';

const CONFIG_ERROR_CODE = 'ROCKETMQ_INVALID_CONFIGURATION';

/** The part of a function definition the plugin reads. */
interface FunctionDefinition {
  readonly events?: readonly unknown[] | undefined;
  readonly targetAlias?: { readonly logicalId?: string | undefined } | undefined;
  readonly timeout?: unknown;
}

/** A template being built. */
interface CompiledTemplate {
  Resources: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
}

/**
 * The part of the framework's `serverless` object the plugin uses.
 *
 * @example
 * ```ts
 * const plugin = new RocketMQServerlessPlugin(serverless as unknown as ServerlessInstance);
 * ```
 */
export interface ServerlessInstance {
  readonly serviceDir?: string | undefined;
  readonly service: {
    readonly custom?: Readonly<Record<string, unknown>> | undefined;
    readonly configValidationMode?: string | undefined;
    readonly provider: {
      readonly compiledCloudFormationTemplate: CompiledTemplate;
      readonly coreCloudFormationTemplate?: CompiledTemplate | undefined;
      readonly timeout?: unknown;
    };
    package?: { patterns?: string[] | undefined } | undefined;
    getAllFunctions(): string[];
    getFunction(name: string): FunctionDefinition;
  };
  getProvider(name: 'aws'): {
    readonly naming: {
      getLambdaLogicalId(functionName: string): string;
      getStackName?(): string;
      getCoreTemplateFileName?(): string;
    };
    getStage?(): string;
  } & Partial<ImageDeployProvider>;
  readonly configSchemaHandler: {
    defineFunctionEvent(provider: string, event: string, schema: Record<string, unknown>): void;
    defineCustomProperties(schema: Record<string, unknown>): void;
  };
  readonly classes: { readonly Error: new (message: string, code?: string) => Error };
}

/** The logger the framework hands to plugins (v3 `utils.log`), if any. */
interface PluginUtils {
  readonly log?:
    | {
        info?(message: string): void;
        verbose?(message: string): void;
        warning?(message: string): void;
        notice?(message: string): void;
      }
    | undefined;
}

/** The CLI options the plugin reads. */
interface PluginOptions {
  /** `--param "key=value"` (repeatable). */
  readonly param?: string | readonly string[] | undefined;
}

/**
 * The plugin. List it in serverless.yml:
 *
 * ```yaml
 * plugins:
 *   - rocketmq-lambda/serverless
 * ```
 *
 * @example
 * ```ts
 * // what the framework does with it
 * const plugin = new RocketMQServerlessPlugin(serverless, options, { log });
 * await plugin.hooks['package:compileEvents']();
 * ```
 */
export class RocketMQServerlessPlugin {
  readonly hooks: Readonly<Record<string, () => Promise<void>>>;
  readonly #serverless: ServerlessInstance;
  readonly #options: PluginOptions;
  readonly #utils: PluginUtils;

  constructor(serverless: ServerlessInstance, options: PluginOptions = {}, utils: PluginUtils = {}) {
    this.#serverless = serverless;
    this.#options = options;
    this.#utils = utils;
    serverless.configSchemaHandler.defineFunctionEvent('aws', 'rocketmq', rocketmqEventJsonSchema());
    serverless.configSchemaHandler.defineCustomProperties({
      properties: { rocketmq: rocketmqCustomJsonSchema() },
    });
    this.#reportUnknownKeys();
    this.hooks = {
      'package:compileEvents': async () => this.compileEvents(),
      'before:package:createDeploymentArtifacts': async () => this.excludeDevState(),
      'before:package:function:package': async () => this.excludeDevState(),
      'before:deploy:deploy': async () => this.checkImageBuildTools(),
      'after:aws:deploy:deploy:createStack': async () => this.pushBuiltImage(),
    };
  }

  /** The `package:compileEvents` hook: adds the poller's resources to the template. */
  compileEvents(): void {
    const service = this.#serverless.service;
    const provider = this.#serverless.getProvider('aws');
    const naming = provider.naming;
    const input: CompileRocketMQInput = {
      custom: service.custom?.rocketmq,
      stage: provider.getStage?.(),
      bootstrapImage: this.#param(BOOTSTRAP_IMAGE_PARAM),
      functions: service.getAllFunctions().map((key) => {
        const definition = service.getFunction(key);
        return {
          key,
          logicalId: naming.getLambdaLogicalId(key),
          aliasLogicalId: definition.targetAlias?.logicalId,
          events: definition.events ?? [],
          timeoutSeconds:
            frameworkTimeoutSeconds(definition.timeout) ?? frameworkTimeoutSeconds(service.provider.timeout),
        };
      }),
    };
    let compiled: ReturnType<typeof compileRocketMQResources>;
    try {
      compiled = compileRocketMQResources(input);
    } catch (error) {
      if (!(error instanceof RocketMQPluginError)) throw error;
      throw new this.#serverless.classes.Error(error.message, CONFIG_ERROR_CODE);
    }
    for (const warning of compiled.warnings) this.#utils.log?.warning?.(`rocketmq: ${warning}`);
    const resourceIds = Object.keys(compiled.resources);
    if (resourceIds.length === 0) return;
    const template = service.provider.compiledCloudFormationTemplate;
    Object.assign(template.Resources, compiled.resources);
    template.Outputs = { ...template.Outputs, ...compiled.outputs };
    this.#addCoreResources(compiled.coreResources);
    this.#utils.log?.verbose?.(`rocketmq: added ${resourceIds.join(', ')}`);
  }

  /**
   * Before packaging: `.rocketmq-lambda/` (dev state) and the TypeScript sources and source maps of
   * dependencies stay out of every function's zip.
   */
  excludeDevState(): void {
    const service = this.#serverless.service;
    service.package ??= {};
    const patterns = service.package.patterns ?? [];
    const missing = [DEV_STATE_EXCLUDE_PATTERN, DEPENDENCY_SOURCES_EXCLUDE_PATTERN].filter(
      (pattern) => !patterns.includes(pattern),
    );
    if (missing.length > 0) service.package.patterns = [...patterns, ...missing];
  }

  /** Before deploying: a built image needs Docker and buildx, checked before the stack is touched. */
  async checkImageBuildTools(): Promise<void> {
    if (!awaitsBuiltImage(this.#serverless.service.provider.compiledCloudFormationTemplate)) return;
    await this.#asFrameworkError(() => ensureDockerBuildx(createCommandRunner()));
  }

  /** Once the stack exists: build, push, and point the task definition at the pushed digest. */
  async pushBuiltImage(): Promise<void> {
    const service = this.#serverless.service;
    const template = service.provider.compiledCloudFormationTemplate;
    if (!awaitsBuiltImage(template)) return;
    const custom = rocketmqCustomSchema.safeParse(service.custom?.rocketmq);
    const image = custom.success ? custom.data.image : undefined;
    if (!custom.success || typeof image !== 'object' || !('build' in image)) {
      throw new this.#serverless.classes.Error(
        'custom.rocketmq.image.build: the packaged template awaits a built image, but the service no longer sets image.build (package again)',
        CONFIG_ERROR_CODE,
      );
    }
    const provider = this.#serverless.getProvider('aws');
    const { getRegion, getAccountId, getStackResources, dockerLoginToEcr } = provider;
    if (!getRegion || !getAccountId || !getStackResources || !dockerLoginToEcr) {
      throw new this.#serverless.classes.Error(
        'custom.rocketmq.image.build needs the AWS provider of osls or Serverless Framework v3 (ECR login and stack resources)',
        CONFIG_ERROR_CODE,
      );
    }
    const { image: pushed } = await this.#asFrameworkError(() =>
      deployBuiltImage({
        build: image.build,
        serviceDir: this.#serverless.serviceDir ?? process.cwd(),
        cpuArchitecture: custom.data.cpuArchitecture ?? 'X86_64',
        stackName: provider.naming.getStackName?.() ?? 'the stack',
        template,
        provider: {
          getRegion: () => getRegion.call(provider),
          getAccountId: () => getAccountId.call(provider),
          getStackResources: () => getStackResources.call(provider),
          dockerLoginToEcr: () => dockerLoginToEcr.call(provider),
        },
        run: createCommandRunner(),
      }),
    );
    this.#utils.log?.notice?.(`rocketmq: pushed the poller image ${pushed}`);
  }

  #reportUnknownKeys(): void {
    const service = this.#serverless.service;
    const mode = service.configValidationMode ?? 'error';
    if (mode === 'off') return;
    const lines = serviceUnknownKeyProblems(
      service.getAllFunctions().map((key) => [key, service.getFunction(key).events ?? []] as const),
      service.custom?.rocketmq,
    );
    if (lines.length === 0) return;
    const error = new RocketMQPluginError(lines);
    if (mode === 'error') throw new this.#serverless.classes.Error(error.message, CONFIG_ERROR_CODE);
    this.#utils.log?.warning?.(error.message);
  }

  #addCoreResources(resources: Readonly<Record<string, CfnResource>>): void {
    if (Object.keys(resources).length === 0) return;
    const core = this.#serverless.service.provider.coreCloudFormationTemplate;
    if (core === undefined) return;
    Object.assign(core.Resources, resources);
    // The Framework wrote the core template at package:initialize; keep the file what a new stack gets.
    const file = this.#serverless.getProvider('aws').naming.getCoreTemplateFileName?.();
    const dir = this.#serverless.serviceDir;
    if (file !== undefined && dir !== undefined) {
      writeFileSync(path.join(dir, '.serverless', file), JSON.stringify(core, null, 2));
    }
  }

  #param(name: string): string | undefined {
    const params = this.#options.param;
    const list = params === undefined ? [] : typeof params === 'string' ? [params] : params;
    const prefix = `${name}=`;
    return list.find((entry) => entry.startsWith(prefix))?.slice(prefix.length);
  }

  async #asFrameworkError<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof ImageBuildError)) throw error;
      throw new this.#serverless.classes.Error(error.message, 'ROCKETMQ_IMAGE_BUILD_FAILED');
    }
  }
}
