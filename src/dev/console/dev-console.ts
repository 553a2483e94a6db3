/**
 * The console of one `rocketmq-lambda dev` session (docs/console-api.md): started before the slow parts
 * of the session (so a taken port fails at once and the address is among the first lines), it records
 * from the start what the poller invokes (recording-invoker.ts, recording-listener.ts) and serves the
 * API once the session {@link DevConsole.attach}es its poller.
 */
import type { MappingConfig, RunConfig } from '../../config/run-config.js';
import type { MessageListener } from '../../consumer/message-listener.js';
import type { Invoker } from '../../invoke/invoker.js';
import {
  type MessageFieldNames,
  MessageSender,
  outgoingMessageProblem,
} from '../../operations/message-send.js';
import { createTarget, type Target } from '../../operations/target.js';
import type { Poller } from '../../poller/poller.js';
import { componentLogger, type Logger } from '../../util/logger.js';
import type { ConsoleApiDeps, ConsoleSendAnswer, ConsoleSendRequest } from './console-api.js';
import { ConsoleDeadLetters } from './console-dead-letters.js';
import { type ConsoleServer, startConsoleServer } from './console-server.js';
import { consoleStateOf } from './console-state.js';
import { HttpError } from './http-exchange.js';
import { InvocationLogCapture } from './invocation-log-capture.js';
import { InvocationRecorder } from './invocation-recorder.js';
import { RecordingInvoker } from './recording-invoker.js';
import { RecordingListener } from './recording-listener.js';

/** How the console's send names a message's fields in its errors: as the JSON body does. */
const SEND_FIELD_NAMES: MessageFieldNames = {
  topic: 'topic',
  tags: 'tags',
  keys: 'keys',
  property: 'property',
  systemAlternatives: 'tags or keys',
  severalKeys: 'give each key as an item of keys',
};

/** What the session hands the console once its poller runs. */
export interface DevConsoleSession {
  readonly config: RunConfig;
  readonly poller: Pick<Poller, 'mappingStatus' | 'lag' | 'invokeStats' | 'health'>;
  /** The serverless.yml function of each mapping (by mapping name). */
  readonly functionKeys: ReadonlyMap<string, string>;
  readonly startedAt: Date;
}

/** A started dev console. */
export interface DevConsole {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly recorder: InvocationRecorder;
  /** The invoker the poller runs handlers with: `inner`, recorded (in-process handlers only). */
  recordingInvoker(inner: Invoker): RecordingInvoker;
  /** For PollerOptions.wrapListener: records each batch's outcomes. */
  wrapListener(mapping: MappingConfig, listener: MessageListener): MessageListener;
  /** Serves the API for the session's poller. */
  attach(session: DevConsoleSession): void;
  close(): Promise<void>;
}

/**
 * Starts the console on 127.0.0.1:`port` (0: any free port); rejects with ConsolePortError when it
 * cannot listen there.
 */
export async function startDevConsole(options: {
  readonly port: number;
  readonly logger: Logger;
  /** The function name a mapping is shown with before the session attaches (its serverless.yml key). */
  readonly functionNameOf: (mapping: MappingConfig) => string;
}): Promise<DevConsole> {
  const log = componentLogger('dev.console', options.logger);
  const recorder = new InvocationRecorder();
  const logs = new InvocationLogCapture();
  let invoker: RecordingInvoker | undefined;
  let deps: ConsoleApiDeps | undefined;
  let sender: Promise<MessageSender> | undefined;
  let target: Target | undefined;
  const server: ConsoleServer = await startConsoleServer({
    port: options.port,
    deps: () => deps,
    recorder,
    log: options.logger,
  });
  logs.install();

  const attach = (session: DevConsoleSession): void => {
    const { config } = session;
    const functionName = (mapping: MappingConfig): string =>
      session.functionKeys.get(mapping.name) ?? options.functionNameOf(mapping);
    const deadLetters = new ConsoleDeadLetters(() => {
      target ??= createTarget('the dev session', config, options.logger);
      return target;
    }, options.logger);
    const send = async (message: ConsoleSendRequest): Promise<ConsoleSendAnswer> => {
      const outgoing = { ...message, body: Buffer.from(message.body, 'utf8') };
      const problem = outgoingMessageProblem(outgoing, SEND_FIELD_NAMES);
      if (problem !== undefined) throw new HttpError(400, problem);
      sender ??= MessageSender.start(config, options.logger);
      const result = await (await sender).send(outgoing);
      return {
        messageId: result.msgId,
        broker: result.brokerName,
        queueId: result.queueId,
        queueOffset: result.queueOffset,
        ...(result.status === 'SEND_OK' ? {} : { status: result.status }),
      };
    };
    const recording = invoker;
    deps = {
      recorder,
      mappings: config.mappings.map((mapping) => ({
        id: mapping.name,
        group: mapping.consumerGroup,
        functionName: functionName(mapping),
        functionRef: mapping.functionRef,
      })),
      state: () =>
        consoleStateOf({
          startedAt: session.startedAt,
          mappings: config.mappings,
          functionNames: new Map(config.mappings.map((m) => [m.name, functionName(m)])),
          poller: session.poller,
          dropped: (name) => recorder.dropped(name),
        }),
      replay: recording === undefined ? undefined : (fields) => recording.replay(fields),
      send,
      deadLetters: (group, limit, all) => deadLetters.list(group, limit, all),
      redrive: (group, messageIds) => deadLetters.redrive(group, messageIds),
    };
  };

  return {
    url: server.url,
    recorder,
    recordingInvoker: (inner) => {
      invoker = new RecordingInvoker(inner, recorder, logs);
      return invoker;
    },
    wrapListener: (mapping, listener) => {
      if (invoker === undefined) return listener;
      return new RecordingListener({
        inner: listener,
        invoker,
        recorder,
        mappingId: mapping.name,
        functionName: options.functionNameOf(mapping),
      });
    },
    attach,
    close: async () => {
      deps = undefined;
      await server.close();
      logs.uninstall();
      const closing: Promise<unknown>[] = [];
      if (sender !== undefined) closing.push(sender.then((s) => s.close()));
      if (target !== undefined) closing.push(target.close());
      const results = await Promise.allSettled(closing);
      for (const result of results) {
        if (result.status === 'rejected') log.warn({ err: result.reason }, 'closing the console failed');
      }
    },
  };
}
