/**
 * The body of a GET_CONSUMER_CONNECTION_LIST (203) answer (Java's `ConsumerConnection`, what
 * `mqadmin consumerConnection` prints): the clients of a consumer group connected to the answering broker
 * (`connectionSet`: clientId, clientAddr, language, version), and what the group's heartbeats said about it
 * (consumeType, messageModel, consumeFromWhere, and `subscriptionTable`, subscriptions by topic).
 *
 * Plain JSON (the broker's fastjson writes no object keys here). The values come from the broker, which
 * relays what each client's heartbeat claimed: every text is cut to {@link MAX_PEER_TEXT_CHARS} and
 * stripped of control characters, so a hostile peer cannot break the terminal a table is printed to.
 */
import { ProtocolError } from './errors.js';

/** How many characters of one text field of a connection are kept (a client id is ~50). */
export const MAX_PEER_TEXT_CHARS = 256;

/** Most clients one connection list may name (a group has a handful; Java sets no cap). */
export const MAX_CONSUMER_CONNECTIONS = 10_000;

/** Most subscriptions one connection list may name. */
export const MAX_CONSUMER_SUBSCRIPTIONS = 1_024;

/** One connected client of the group (Java's `Connection`). */
export interface ConsumerConnectionEntry {
  readonly clientId: string;
  /** The client's address as the broker sees its connection (`ip:port`). */
  readonly clientAddr: string;
  /** Java's `LanguageCode` name: JAVA, CPP, GO, RUST, ... (our pollers announce JAVA). */
  readonly language: string;
  /** The client's version code, an `MQVersion.Version` ordinal (mq-version.ts names it). */
  readonly version: number;
}

/** A subscription of the group (part of Java's `SubscriptionData`). */
export interface ConsumerConnectionSubscription {
  readonly topic: string;
  /** The filter expression: `*`, `TagA || TagB`, or SQL92. */
  readonly subString: string;
  /** TAG or SQL92. */
  readonly expressionType: string;
}

/** A parsed `ConsumerConnection`. */
export interface ConsumerConnection {
  readonly connections: readonly ConsumerConnectionEntry[];
  /** CONSUME_PASSIVELY (push), CONSUME_ACTIVELY (pull), CONSUME_POP; undefined when absent. */
  readonly consumeType: string | undefined;
  /** CLUSTERING or BROADCASTING; undefined when absent. */
  readonly messageModel: string | undefined;
  readonly consumeFromWhere: string | undefined;
  readonly subscriptions: readonly ConsumerConnectionSubscription[];
}

/**
 * Parses a GET_CONSUMER_CONNECTION_LIST answer. Throws {@link ProtocolError} for a body that is not a
 * JSON object or whose `connectionSet` entries lack a client id.
 */
export function parseConsumerConnection(body: Buffer | undefined): ConsumerConnection {
  if (body === undefined || body.length === 0) {
    throw new ProtocolError('GET_CONSUMER_CONNECTION_LIST response has no body');
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (cause) {
    throw new ProtocolError('GET_CONSUMER_CONNECTION_LIST response body is not valid JSON', { cause });
  }
  if (!isObject(json)) throw new ProtocolError('GET_CONSUMER_CONNECTION_LIST response body is not an object');
  const set = json.connectionSet ?? [];
  if (!Array.isArray(set)) {
    throw new ProtocolError('GET_CONSUMER_CONNECTION_LIST connectionSet is not a list');
  }
  if (set.length > MAX_CONSUMER_CONNECTIONS) {
    throw new ProtocolError(
      `GET_CONSUMER_CONNECTION_LIST names ${set.length} clients, above the cap of ${MAX_CONSUMER_CONNECTIONS}`,
    );
  }
  const connections = set.map((entry, index): ConsumerConnectionEntry => {
    if (!isObject(entry) || typeof entry.clientId !== 'string' || entry.clientId === '') {
      throw new ProtocolError(`GET_CONSUMER_CONNECTION_LIST connection ${index} has no clientId`);
    }
    return {
      clientId: peerText(entry.clientId),
      clientAddr: peerText(entry.clientAddr),
      language: peerText(entry.language),
      version: typeof entry.version === 'number' && Number.isSafeInteger(entry.version) ? entry.version : -1,
    };
  });
  const table = isObject(json.subscriptionTable) ? json.subscriptionTable : {};
  const topics = Object.keys(table).length;
  if (topics > MAX_CONSUMER_SUBSCRIPTIONS) {
    throw new ProtocolError(
      `GET_CONSUMER_CONNECTION_LIST names ${topics} subscriptions, above the cap of ${MAX_CONSUMER_SUBSCRIPTIONS}`,
    );
  }
  const subscriptions = Object.entries(table).map(
    ([topic, data]): ConsumerConnectionSubscription => ({
      topic: peerText(topic),
      subString: isObject(data) ? peerText(data.subString) : '',
      expressionType: isObject(data) ? peerText(data.expressionType ?? 'TAG') : 'TAG',
    }),
  );
  return {
    connections,
    consumeType: optionalText(json.consumeType),
    messageModel: optionalText(json.messageModel),
    consumeFromWhere: optionalText(json.consumeFromWhere),
    subscriptions,
  };
}

/**
 * A text from a peer as it may be printed: control characters replaced by `?`, cut to
 * {@link MAX_PEER_TEXT_CHARS}; numbers as their decimal text, anything else empty.
 */
export function peerText(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is removed
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length <= MAX_PEER_TEXT_CHARS ? clean : `${clean.slice(0, MAX_PEER_TEXT_CHARS)}…`;
}

function optionalText(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : peerText(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
