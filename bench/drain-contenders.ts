/**
 * Who runs in the drain race and how each one's child is started: our consumer (plain and through the
 * function path), Apache's Java push consumer, the raw PULL limit, and the registered peers
 * (drain-peers.ts), each prepared once per bench run. A peer whose prepare() fails is not started;
 * its error goes into the results instead.
 */
import type { BenchOptions } from './bench-options.js';
import type { ConsumerChildSpec } from './consumer-child.js';
import type { DrainPeer, PeerRunSpec, PreparedDrainPeer } from './drain-peer.js';
import type { ChildLaunch, DrainContender } from './drain-race.js';
import { imageNodeEnv } from './image-node-env.js';
import { type JavaBenchBuild, javaBenchArgs } from './java-bench.js';
import type { RawPullChildSpec } from './raw-pull-child.js';

/**
 * What the readers see for each built-in consumer.
 *
 * @example
 * ```ts
 * BUILTIN_LABELS.java; // => 'Java DefaultMQPushConsumer 5.3.3, counting listener'
 * ```
 */
export const BUILTIN_LABELS = {
  ours: 'ours: ConsumerRuntime, counting listener',
  'ours-function': 'ours: FunctionMessageListener + LocalInvoker, no-op handler',
  java: 'Java DefaultMQPushConsumer 5.3.3, counting listener',
  'raw-pull': 'the limit: raw PULL, 32 per request on every queue, nothing decoded',
  'ours-function-worker':
    'ours, experiment: the function path on a worker thread (records copied over, decoded again there)',
} as const;

/**
 * The compiled node children (node-child-build.ts).
 *
 * @example
 * ```ts
 * const scripts: NodeChildScripts = { consumer: childScript, rawPull: `${benchDir}/raw-pull-child.js` };
 * ```
 */
export interface NodeChildScripts {
  /** The node they run under: the image's (image-node-env.ts, `benchNode`). */
  readonly node: string;
  readonly consumer: string;
  readonly rawPull: string;
  /** decode-child.js: our side of the decode micro-benchmark in a fresh process. */
  readonly decode: string;
}

/**
 * The contenders of `options.consumers` in that order. The peers' prepare() calls start at once, side
 * by side, and each peer's `ready` settles when its own is done: `errors` then has the peers that could
 * not be prepared, `prepared` every peer that was (to stop at the end).
 *
 * @example
 * ```ts
 * const prepared: PreparedDrainPeer[] = [];
 * const contenders = drainContenders({ options, namesrvAddr, scripts, java, peers: DRAIN_PEERS, errors, prepared, log });
 * await Promise.all(contenders.map((contender) => contender.ready));
 * ```
 */
export function drainContenders(context: {
  options: BenchOptions;
  namesrvAddr: string;
  scripts: NodeChildScripts | undefined;
  java: JavaBenchBuild | undefined;
  peers: readonly DrainPeer[];
  errors: Map<string, string>;
  prepared: PreparedDrainPeer[];
  log: (line: string) => void;
}): DrainContender[] {
  const { options, namesrvAddr, scripts, java } = context;
  const heapFlags = options.nodeHeapMb === undefined ? [] : [`--max-old-space-size=${options.nodeHeapMb}`];
  const nodeContender = (
    id: 'ours' | 'ours-function' | 'ours-function-worker' | 'raw-pull',
    script: string,
    childSpec: (spec: PeerRunSpec) => ConsumerChildSpec | RawPullChildSpec,
  ): DrainContender => {
    const node = required(scripts, 'the node child').node;
    const launchWithNodeFlags = (spec: PeerRunSpec, nodeFlags: readonly string[]): ChildLaunch => ({
      command: node,
      args: [...heapFlags, ...nodeFlags, script, JSON.stringify(childSpec(spec))],
      env: imageNodeEnv(),
    });
    return {
      id,
      label: BUILTIN_LABELS[id],
      builtin: true,
      launch: (spec) => launchWithNodeFlags(spec, []),
      launchWithNodeFlags,
    };
  };
  const contenders: DrainContender[] = [];
  for (const id of options.consumers) {
    if (id === 'ours' || id === 'ours-function' || id === 'ours-function-worker') {
      const script = required(scripts, 'the node child').consumer;
      contenders.push(nodeContender(id, script, (spec) => ({ mode: id, namesrvAddr, ...pick(spec) })));
    } else if (id === 'raw-pull') {
      const script = required(scripts, 'the node child').rawPull;
      contenders.push(nodeContender(id, script, (spec) => ({ namesrvAddr, ...pick(spec) })));
    } else if (id === 'java') {
      const build = required(java, 'the Java peer');
      contenders.push({
        id,
        label: BUILTIN_LABELS[id],
        builtin: true,
        launch: (spec) => ({
          command: 'java',
          args: javaBenchArgs(build, options.javaHeapMb, [
            'consume',
            namesrvAddr,
            spec.topic,
            spec.group,
            String(spec.expected),
            String(spec.timeoutMs),
          ]),
        }),
      });
    } else {
      const peer = context.peers.find((candidate) => candidate.id === id);
      if (peer === undefined) throw new Error(`unreachable: no registered peer ${id}`);
      contenders.push(peerContender(peer, context));
    }
  }
  return contenders;
}

/** A registered peer as a contender, its prepare() under way; `launch` works once `ready` settled without an error. */
function peerContender(
  peer: DrainPeer,
  context: {
    options: BenchOptions;
    namesrvAddr: string;
    errors: Map<string, string>;
    prepared: PreparedDrainPeer[];
    log: (line: string) => void;
  },
): DrainContender {
  const { id } = peer;
  const maxMessages = (context.options.quick ? peer.quickMaxMessages : undefined) ?? peer.maxMessages;
  let ready: PreparedDrainPeer | undefined;
  context.log(`preparing ${id} ${peer.version}...`);
  const preparing = peer.prepare({ namesrvAddr: context.namesrvAddr, log: context.log }).then(
    (prepared) => {
      ready = prepared;
      context.prepared.push(prepared);
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      context.errors.set(id, `prepare() failed: ${message}`);
      context.log(`${id} cannot run here: ${message}`);
    },
  );
  return {
    id,
    label:
      maxMessages !== undefined && maxMessages < context.options.messages
        ? `${peer.label}; drains the first ${maxMessages.toLocaleString('en-US')} messages of the backlog only (${context.options.quick ? 'a quick run' : 'too slow for all of them within the run timeout'})`
        : peer.label,
    builtin: false,
    ...(maxMessages === undefined ? {} : { maxMessages }),
    ready: preparing,
    launch: (spec) => {
      if (ready === undefined) throw new Error(`unreachable: ${id} was not prepared`);
      return { command: ready.command, args: ready.args(spec), env: ready.env };
    },
  };
}

function pick(spec: { topic: string; group: string; expected: number }): {
  topic: string;
  group: string;
  expected: number;
} {
  return { topic: spec.topic, group: spec.group, expected: spec.expected };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`unreachable: ${what} was not built`);
  return value;
}
