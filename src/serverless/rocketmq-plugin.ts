/**
 * The Serverless Framework plugin (v3 API; runs under `osls`): declares the `rocketmq` event and
 * `custom.rocketmq`, and compiles them in one `package:compileEvents` hook with
 * {@link compileRocketMQResources}. The plugin only gathers the compiler's input from the service and
 * merges its result into `provider.compiledCloudFormationTemplate`.
 */
import { type CompileRocketMQInput, compileRocketMQResources } from './compile-rocketmq-resources.js';
import { RocketMQPluginError } from './plugin-error.js';
import { rocketmqCustomJsonSchema, rocketmqEventJsonSchema } from './plugin-json-schemas.js';

/** The part of a function definition the plugin reads. */
interface FunctionDefinition {
  readonly events?: readonly unknown[] | undefined;
  readonly targetAlias?: { readonly logicalId?: string | undefined } | undefined;
}

/** The template being built. */
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
  readonly service: {
    readonly custom?: Readonly<Record<string, unknown>> | undefined;
    readonly provider: { readonly compiledCloudFormationTemplate: CompiledTemplate };
    getAllFunctions(): string[];
    getFunction(name: string): FunctionDefinition;
  };
  getProvider(name: 'aws'): { readonly naming: { getLambdaLogicalId(functionName: string): string } };
  readonly configSchemaHandler: {
    defineFunctionEvent(provider: string, event: string, schema: Record<string, unknown>): void;
    defineCustomProperties(schema: Record<string, unknown>): void;
  };
  readonly classes: { readonly Error: new (message: string, code?: string) => Error };
}

/** The logger the framework hands to plugins (v3 `utils.log`), if any. */
interface PluginUtils {
  readonly log?: { info?(message: string): void; verbose?(message: string): void } | undefined;
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
  readonly #utils: PluginUtils;

  constructor(serverless: ServerlessInstance, _options?: unknown, utils: PluginUtils = {}) {
    this.#serverless = serverless;
    this.#utils = utils;
    serverless.configSchemaHandler.defineFunctionEvent('aws', 'rocketmq', rocketmqEventJsonSchema());
    serverless.configSchemaHandler.defineCustomProperties({
      properties: { rocketmq: rocketmqCustomJsonSchema() },
    });
    this.hooks = { 'package:compileEvents': async () => this.compileEvents() };
  }

  /** The `package:compileEvents` hook: adds the poller's resources to the template. */
  compileEvents(): void {
    const service = this.#serverless.service;
    const naming = this.#serverless.getProvider('aws').naming;
    const input: CompileRocketMQInput = {
      custom: service.custom?.rocketmq,
      functions: service.getAllFunctions().map((key) => {
        const definition = service.getFunction(key);
        return {
          key,
          logicalId: naming.getLambdaLogicalId(key),
          aliasLogicalId: definition.targetAlias?.logicalId,
          events: definition.events ?? [],
        };
      }),
    };
    let compiled: ReturnType<typeof compileRocketMQResources>;
    try {
      compiled = compileRocketMQResources(input);
    } catch (error) {
      if (!(error instanceof RocketMQPluginError)) throw error;
      throw new this.#serverless.classes.Error(error.message, 'ROCKETMQ_INVALID_CONFIGURATION');
    }
    const resourceIds = Object.keys(compiled.resources);
    if (resourceIds.length === 0) return;
    const template = service.provider.compiledCloudFormationTemplate;
    Object.assign(template.Resources, compiled.resources);
    template.Outputs = { ...template.Outputs, ...compiled.outputs };
    this.#utils.log?.verbose?.(`rocketmq: added ${resourceIds.join(', ')}`);
  }
}
