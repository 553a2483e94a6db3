/**
 * The routes of the dev console's JSON API (docs/console-api.md): each checks its input and answers
 * JSON, or throws an {@link HttpError} whose message names what is wrong.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleState } from './console-state.js';
import { HttpError, readJsonObject, sendJson } from './http-exchange.js';
import type { InvocationRecorder } from './invocation-recorder.js';
import type { RecordedInvocation } from './recorded-invocation.js';

/** The most items one list answer carries. */
export const MAX_LIST_LIMIT = 500;
/** Items a list answers with when no `limit` is given. */
export const DEFAULT_LIST_LIMIT = 100;

const INVOCATION_OUTCOMES = ['succeeded', 'partial', 'failed', 'error'];
const RECORD_OUTCOMES = ['succeeded', 'retried', 'dead-lettered', 'filtered', 'pending', 'failed'];

/** A message to send (`POST /api/send`). */
export interface ConsoleSendRequest {
  readonly topic: string;
  readonly body: string;
  readonly tags?: string | undefined;
  readonly keys: readonly string[];
  readonly properties: Readonly<Record<string, string>>;
}

/** Where a sent message was stored. */
export interface ConsoleSendAnswer {
  readonly messageId: string;
  readonly broker: string;
  readonly queueId: number;
  readonly queueOffset: number;
}

/** The mapping an API call names, as the routes know it. */
export interface ConsoleMappingRef {
  readonly id: string;
  readonly group: string;
  readonly functionName: string;
  readonly functionRef: string;
}

/** What the routes work with (console-session.ts wires them to the dev session). */
export interface ConsoleApiDeps {
  readonly recorder: InvocationRecorder;
  readonly mappings: readonly ConsoleMappingRef[];
  state(): Promise<ConsoleState>;
  /** Undefined when handlers do not run in-process (dev --invoke-endpoint): replays are refused. */
  readonly replay?:
    | ((fields: {
        mappingId: string;
        functionName: string;
        functionRef: string;
        event: unknown;
        replayOf: string;
      }) => Promise<RecordedInvocation>)
    | undefined;
  send(message: ConsoleSendRequest): Promise<ConsoleSendAnswer>;
  deadLetters(group: string, limit: number, all: boolean): Promise<unknown>;
  redrive(group: string, messageIds: readonly string[]): Promise<unknown>;
}

/**
 * Answers an `/api/...` request (not `/api/events`, which the server streams); throws {@link HttpError}.
 */
export async function handleApiRequest(
  deps: ConsoleApiDeps,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const method = request.method ?? 'GET';
  const parts = url.pathname.split('/').slice(2).map(decodeSegment);
  const route = `${method} /${parts.map((part, index) => (isParameter(parts, index) ? ':id' : part)).join('/')}`;
  switch (route) {
    case 'GET /state':
      return sendJson(response, 200, await deps.state());
    case 'GET /invocations':
      return sendJson(response, 200, { invocations: listInvocations(deps, url.searchParams) });
    case 'GET /invocations/:id':
      return sendJson(response, 200, invocationOf(deps, parts[1] as string).view());
    case 'POST /invocations/:id/replay':
      return sendJson(response, 200, {
        invocation: (await replay(deps, parts[1] as string, await readJsonObject(request))).view(),
      });
    case 'POST /send':
      return sendJson(response, 200, await deps.send(sendRequestOf(await readJsonObject(request))));
    case 'GET /dead-letters': {
      const group = groupOf(deps, url.searchParams.get('group'));
      const all = url.searchParams.get('all') ?? 'false';
      if (all !== 'true' && all !== 'false') {
        throw new HttpError(400, `all must be true or false, got ${JSON.stringify(all)}`);
      }
      return sendJson(
        response,
        200,
        await deps.deadLetters(group, limitOf(url.searchParams), all === 'true'),
      );
    }
    case 'POST /dead-letters/redrive': {
      const body = await readJsonObject(request);
      const group = groupOf(deps, body.group);
      const ids = body.messageIds;
      if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || id === '')) {
        throw new HttpError(400, 'messageIds must be a non-empty array of message ids (strings)');
      }
      if (ids.length > MAX_LIST_LIMIT) {
        throw new HttpError(400, `messageIds lists ${ids.length} ids, over the limit of ${MAX_LIST_LIMIT}`);
      }
      return sendJson(response, 200, await deps.redrive(group, ids as string[]));
    }
    case 'GET /messages/:id':
      return sendJson(response, 200, deps.recorder.messageWay(parts[1] as string));
    case 'GET /filtered': {
      const mapping = url.searchParams.get('mapping') ?? undefined;
      if (mapping !== undefined) mappingOf(deps, mapping);
      return sendJson(response, 200, {
        messages: deps.recorder.filteredMessages(mapping, limitOf(url.searchParams)),
      });
    }
    default:
      throw new HttpError(404, `no such API: ${method} ${url.pathname} (docs/console-api.md lists them)`);
  }
}

/** `/invocations/:id`, `/invocations/:id/replay`, `/messages/:id`: the second segment is an id. */
function isParameter(parts: readonly string[], index: number): boolean {
  return index === 1 && (parts[0] === 'invocations' || parts[0] === 'messages');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `bad URL encoding in ${JSON.stringify(segment)}`);
  }
}

function listInvocations(deps: ConsoleApiDeps, params: URLSearchParams) {
  const mapping = params.get('mapping') || undefined;
  if (mapping !== undefined) mappingOf(deps, mapping);
  const outcome = params.get('outcome') || undefined;
  if (outcome !== undefined && !INVOCATION_OUTCOMES.includes(outcome) && !RECORD_OUTCOMES.includes(outcome)) {
    throw new HttpError(
      400,
      `outcome must be one of ${[...new Set([...INVOCATION_OUTCOMES, ...RECORD_OUTCOMES])].join(', ')}, got ${JSON.stringify(outcome)}`,
    );
  }
  return deps.recorder.list({
    mappingId: mapping,
    outcome,
    messageId: params.get('messageId') || undefined,
    key: params.get('key') || undefined,
    limit: limitOf(params),
  });
}

function limitOf(params: URLSearchParams): number {
  const text = params.get('limit');
  if (text === null || text === '') return DEFAULT_LIST_LIMIT;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new HttpError(400, `limit must be an integer 1..${MAX_LIST_LIMIT}, got ${JSON.stringify(text)}`);
  }
  return limit;
}

function invocationOf(deps: ConsoleApiDeps, id: string): RecordedInvocation {
  const invocation = deps.recorder.get(id);
  if (invocation === undefined) {
    throw new HttpError(
      404,
      `no invocation ${JSON.stringify(id)} (never recorded, or dropped: the console keeps the newest per function)`,
    );
  }
  return invocation;
}

function mappingOf(deps: ConsoleApiDeps, id: string): ConsoleMappingRef {
  const mapping = deps.mappings.find((m) => m.id === id);
  if (mapping === undefined) {
    throw new HttpError(
      400,
      `no mapping ${JSON.stringify(id)}: the mappings are ${deps.mappings.map((m) => m.id).join(', ')}`,
    );
  }
  return mapping;
}

function groupOf(deps: ConsoleApiDeps, group: unknown): string {
  if (typeof group !== 'string' || group === '') {
    throw new HttpError(400, `group must name a consumer group of a mapping: ${groupsText(deps)}`);
  }
  if (!deps.mappings.some((m) => m.group === group)) {
    throw new HttpError(
      400,
      `no mapping consumes as group ${JSON.stringify(group)}: the groups are ${groupsText(deps)}`,
    );
  }
  return group;
}

function groupsText(deps: ConsoleApiDeps): string {
  return [...new Set(deps.mappings.map((m) => m.group))].join(', ');
}

async function replay(
  deps: ConsoleApiDeps,
  id: string,
  body: Record<string, unknown>,
): Promise<RecordedInvocation> {
  const original = invocationOf(deps, id);
  if (deps.replay === undefined) {
    throw new HttpError(
      409,
      'replay needs the handlers in-process: this dev session invokes them through --invoke-endpoint',
    );
  }
  const mapping = mappingOf(deps, original.mappingId);
  let event = original.event;
  if (Object.hasOwn(body, 'event')) {
    const edited = body.event;
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
      throw new HttpError(400, 'event must be a JSON object (the event to invoke the function with)');
    }
    if (!Array.isArray((edited as { Records?: unknown }).Records)) {
      throw new HttpError(
        400,
        'event.Records must be an array of records (docs/writing-a-handler.md, "The event")',
      );
    }
    event = edited;
  }
  return deps.replay({
    mappingId: mapping.id,
    functionName: mapping.functionName,
    functionRef: mapping.functionRef,
    event,
    replayOf: original.id,
  });
}

function sendRequestOf(body: Record<string, unknown>): ConsoleSendRequest {
  const { topic, tags, keys, properties } = body;
  if (typeof topic !== 'string' || topic.trim() === '')
    throw new HttpError(400, 'topic must be a non-empty string');
  if (typeof body.body !== 'string')
    throw new HttpError(400, 'body must be a string (the message body, UTF-8)');
  if (tags !== undefined && typeof tags !== 'string') throw new HttpError(400, 'tags must be a string');
  if (keys !== undefined && (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string'))) {
    throw new HttpError(400, 'keys must be an array of strings');
  }
  if (
    properties !== undefined &&
    (typeof properties !== 'object' ||
      properties === null ||
      Array.isArray(properties) ||
      Object.values(properties).some((value) => typeof value !== 'string'))
  ) {
    throw new HttpError(400, 'properties must be an object of string values');
  }
  return {
    topic,
    body: body.body,
    tags: tags === '' ? undefined : (tags as string | undefined),
    keys: (keys as string[] | undefined) ?? [],
    properties: (properties as Record<string, string> | undefined) ?? {},
  };
}
