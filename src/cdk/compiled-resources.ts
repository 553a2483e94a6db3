/**
 * The compiler's resources (src/serverless/compile-rocketmq-resources.ts) as L1 children of a construct.
 * Each compiled logical id (`RocketMQPollerService`) becomes the construct id of one {@link CfnResource},
 * so CDK gives it a logical id of its own path; the compiled references between them (`Ref`,
 * `Fn::GetAtt`, `DependsOn`) become references to those children. The set follows the latest compile:
 * a mapping added later may add resources (an alarm per group) and changes properties (the run config,
 * the task role), so properties are kept in an object this file owns and rewritten on every compile.
 */
import { CfnResource, RemovalPolicy, Tokenization } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { CfnResource as CompiledResource } from '../serverless/cfn-intrinsic.js';

/** Removal policies as the compiler writes them (`DeletionPolicy`), in CDK's words. */
const REMOVAL_POLICIES: Readonly<Record<string, RemovalPolicy>> = {
  Retain: RemovalPolicy.RETAIN,
  Delete: RemovalPolicy.DESTROY,
  Snapshot: RemovalPolicy.SNAPSHOT,
};

interface Rendered {
  readonly resource: CfnResource;
  /** The object CDK reads the properties from: rewritten in place on every compile. */
  readonly properties: Record<string, unknown>;
  readonly dependencies: Set<CfnResource>;
}

/**
 * The children of `scope` that render a compile's resources.
 */
export class CompiledResources {
  readonly #scope: Construct;
  readonly #rendered = new Map<string, Rendered>();

  constructor(scope: Construct) {
    this.#scope = scope;
  }

  /** The child rendering compiled logical id `id`, if the latest compile has it. */
  get(id: string): CfnResource | undefined {
    return this.#rendered.get(id)?.resource;
  }

  /** The compiled logical ids of the latest compile. */
  ids(): string[] {
    return [...this.#rendered.keys()];
  }

  /**
   * Makes the children match `resources`: creates the new ones, rewrites every one's properties,
   * dependencies and removal policy, and removes those the compile no longer has. `finish` runs on
   * each resource's properties before the references are replaced (it puts back the CDK tokens).
   */
  render(resources: Readonly<Record<string, CompiledResource>>, finish: (tree: unknown) => unknown): void {
    for (const id of [...this.#rendered.keys()]) {
      if (Object.hasOwn(resources, id)) continue;
      this.#scope.node.tryRemoveChild(id);
      this.#rendered.delete(id);
    }
    for (const [id, compiled] of Object.entries(resources)) {
      let entry = this.#rendered.get(id);
      if (entry === undefined || entry.resource.cfnResourceType !== compiled.Type) {
        if (entry !== undefined) this.#scope.node.tryRemoveChild(id);
        const properties: Record<string, unknown> = {};
        const resource = new CfnResource(this.#scope, id, { type: compiled.Type, properties });
        entry = { resource, properties, dependencies: new Set() };
        this.#rendered.set(id, entry);
      }
    }
    for (const [id, compiled] of Object.entries(resources)) {
      const entry = this.#rendered.get(id);
      if (entry === undefined) continue;
      for (const key of Object.keys(entry.properties)) delete entry.properties[key];
      Object.assign(entry.properties, this.#references(finish(compiled.Properties), id));
      for (const old of entry.dependencies) entry.resource.removeResourceDependency(old);
      entry.dependencies.clear();
      const dependsOn = compiled.DependsOn === undefined ? [] : [compiled.DependsOn].flat();
      for (const target of dependsOn) {
        const other = this.#target(target, id);
        entry.resource.addResourceDependency(other);
        entry.dependencies.add(other);
      }
      const policy =
        compiled.DeletionPolicy === undefined ? undefined : REMOVAL_POLICIES[compiled.DeletionPolicy];
      if (policy !== undefined) entry.resource.applyRemovalPolicy(policy);
    }
  }

  /** `tree` with each `Ref` / `Fn::GetAtt` of a compiled logical id replaced by a reference to its child. */
  #references(tree: unknown, from: string): unknown {
    if (Array.isArray(tree)) return tree.map((item) => this.#references(item, from));
    if (typeof tree !== 'object' || tree === null || Tokenization.isResolvable(tree)) return tree;
    const entries = Object.entries(tree);
    const [first] = entries;
    if (entries.length === 1 && first !== undefined) {
      const [key, value] = first;
      if (key === 'Ref' && typeof value === 'string' && this.#rendered.has(value)) {
        return this.#target(value, from).ref;
      }
      if (key === 'Fn::GetAtt') {
        const [target, attribute] = typeof value === 'string' ? splitOnce(value) : (value as unknown[]);
        if (typeof target === 'string' && typeof attribute === 'string' && this.#rendered.has(target)) {
          return this.#target(target, from).getAtt(attribute);
        }
      }
      if (key === 'Fn::Sub') this.#refuseSubReferences(value, from);
    }
    return Object.fromEntries(entries.map(([key, value]) => [key, this.#references(value, from)]));
  }

  /** `Fn::Sub` text naming one of ours (`${Id.Attr}`) would keep the compiled id: refused, not left dangling. */
  #refuseSubReferences(sub: unknown, from: string): void {
    const text = Array.isArray(sub) ? sub[0] : sub;
    if (typeof text !== 'string') return;
    for (const match of text.matchAll(/\$\{([^!}][^}.]*)(?:\.[^}]*)?\}/g)) {
      if (this.#rendered.has(match[1] ?? '')) {
        throw new Error(
          `${from}: the compiled template names ${match[1]} inside Fn::Sub text, which CDK cannot rename`,
        );
      }
    }
  }

  #target(id: string, from: string): CfnResource {
    const target = this.#rendered.get(id)?.resource;
    if (target === undefined) throw new Error(`${from}: refers to ${id}, which the compile did not produce`);
    return target;
  }
}

function splitOnce(value: string): [string, string] {
  const at = value.indexOf('.');
  return at < 0 ? [value, ''] : [value.slice(0, at), value.slice(at + 1)];
}
