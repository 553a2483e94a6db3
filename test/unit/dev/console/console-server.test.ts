import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ConsoleApiDeps } from '../../../../src/dev/console/console-api.js';
import { ConsolePortError, startConsoleServer } from '../../../../src/dev/console/console-server.js';
import { MAX_REQUEST_BODY_BYTES } from '../../../../src/dev/console/http-exchange.js';
import { InvocationRecorder } from '../../../../src/dev/console/invocation-recorder.js';

interface Answer {
  status: number;
  type: string | undefined;
  text: string;
  json: () => Record<string, unknown>;
}

/** One HTTP request with full control of the headers (fetch would set Host itself). */
function call(
  port: number,
  method: string,
  pathname: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers['content-type'],
            text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const postJson = (port: number, pathname: string, body: string) =>
  call(port, 'POST', pathname, { body, headers: { 'content-type': 'application/json' } });

function fakeDeps(recorder: InvocationRecorder): ConsoleApiDeps & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    recorder,
    mappings: [
      { id: 'orders', group: 'orders-lambda', functionName: 'orders', functionRef: 'local:/x.mjs#handler' },
    ],
    state: async () => ({ startedAt: '2026-01-01T00:00:00.000Z', mappings: [] }),
    replay: async (fields) => recorder.begin(fields),
    send: async (message) => {
      sent.push(message);
      return { messageId: 'M1', broker: 'broker-a', queueId: 0, queueOffset: 3 };
    },
    deadLetters: async (group, limit, all) => ({ group, limit, all, messages: [] }),
    redrive: async (_group, messageIds) => ({
      redriven: [],
      skipped: messageIds.map((messageId) => ({ messageId, reason: 'x' })),
    }),
  };
}

async function started(deps: ConsoleApiDeps | undefined, assetsDir?: URL) {
  const recorder = deps?.recorder ?? new InvocationRecorder();
  const server = await startConsoleServer({
    port: 0,
    deps: () => deps,
    recorder,
    log: pino({ level: 'silent' }),
    assetsDir,
  });
  onTestFinished(() => server.close());
  return server;
}

describe('the console server', () => {
  it('answers the state and invocations, and refuses bad requests with errors naming what is wrong', async () => {
    const recorder = new InvocationRecorder();
    const deps = fakeDeps(recorder);
    const { port, url } = await started(deps);
    expect(url).toBe(`http://127.0.0.1:${port}/`);
    const invocation = recorder.begin({
      mappingId: 'orders',
      functionName: 'orders',
      event: { Records: [] },
    });
    recorder.settle([invocation], () => undefined);

    expect((await call(port, 'GET', '/api/state')).json()).toEqual({
      startedAt: '2026-01-01T00:00:00.000Z',
      mappings: [],
    });
    const list = await call(port, 'GET', '/api/invocations?mapping=orders&limit=5');
    expect(list.type).toMatch(/^application\/json/);
    expect(list.json().invocations).toMatchObject([{ id: invocation.id }]);

    const errors: [Promise<Answer>, number, string][] = [
      [call(port, 'GET', '/api/invocations/i999'), 404, 'no invocation "i999"'],
      [call(port, 'GET', '/api/invocations?mapping=nope'), 400, 'no mapping "nope": the mappings are orders'],
      [call(port, 'GET', '/api/invocations?outcome=great'), 400, 'outcome must be one of succeeded'],
      [call(port, 'GET', '/api/invocations?limit=0'), 400, 'limit must be an integer 1..500, got "0"'],
      [call(port, 'GET', '/api/invocations?limit=501'), 400, 'limit must be an integer 1..500'],
      [
        call(port, 'GET', '/api/dead-letters?group=other'),
        400,
        'no mapping consumes as group "other": the groups are orders-lambda',
      ],
      [call(port, 'GET', '/api/dead-letters'), 400, 'group must name a consumer group'],
      [call(port, 'GET', '/api/dead-letters?group=orders-lambda&all=yes'), 400, 'all must be true or false'],
      [postJson(port, '/api/send', '{"topic": "T", "body": '), 400, 'the body is not valid JSON'],
      [postJson(port, '/api/send', '[1]'), 400, 'the body must be a JSON object'],
      [postJson(port, '/api/send', '{"topic":"T"}'), 400, 'body must be a string'],
      [
        postJson(port, '/api/send', '{"topic":"T","body":"b","keys":"k"}'),
        400,
        'keys must be an array of strings',
      ],
      [
        postJson(port, '/api/send', '{"topic":"T","body":"b","properties":{"a":1}}'),
        400,
        'properties must be an object of string values',
      ],
      [
        postJson(port, '/api/dead-letters/redrive', '{"group":"orders-lambda","messageIds":[]}'),
        400,
        'messageIds must be a non-empty array',
      ],
      [
        postJson(port, '/api/dead-letters/redrive', '{"group":"nope","messageIds":["a"]}'),
        400,
        'no mapping consumes as group "nope"',
      ],
      [
        postJson(port, `/api/invocations/${invocation.id}/replay`, '{"event":[]}'),
        400,
        'event must be a JSON object',
      ],
      [
        postJson(port, `/api/invocations/${invocation.id}/replay`, '{"event":{}}'),
        400,
        'event.Records must be an array',
      ],
      [postJson(port, '/api/invocations/i999/replay', '{}'), 404, 'no invocation "i999"'],
      [
        call(port, 'POST', '/api/send', { body: '{}', headers: { 'content-type': 'text/plain' } }),
        415,
        'content-type application/json',
      ],
      [
        call(port, 'GET', '/api/state', { headers: { host: 'evil.example:80' } }),
        403,
        'answers only to http://127.0.0.1',
      ],
      [call(port, 'GET', '/api/nothing'), 404, 'no such API: GET /api/nothing'],
      [call(port, 'GET', '/../package.json'), 404, 'no file'],
    ];
    for (const [answer, status, message] of errors) {
      const { status: got, json } = await answer;
      expect({ status: got, error: json().error }).toEqual({
        status,
        error: expect.stringContaining(message),
      });
    }
    expect(deps.sent).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413, whether its length is declared or not', async () => {
    const { port } = await started(fakeDeps(new InvocationRecorder()));
    const big = JSON.stringify({ topic: 'T', body: 'x'.repeat(MAX_REQUEST_BODY_BYTES) });
    const declared = await postJson(port, '/api/send', big);
    expect(declared.status).toBe(413);
    expect(declared.json().error).toContain(`over the limit of ${MAX_REQUEST_BODY_BYTES} bytes`);
    const chunked = await call(port, 'POST', '/api/send', {
      body: big,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect(chunked.status).toBe(413);
  });

  it('sends, lists dead letters, redrives and replays through its dependencies', async () => {
    const recorder = new InvocationRecorder();
    const deps = fakeDeps(recorder);
    const { port } = await started(deps);
    const sent = await postJson(
      port,
      '/api/send',
      '{"topic":"T","body":"hi","tags":"t","keys":["k"],"properties":{"a":"b"}}',
    );
    expect(sent.json()).toEqual({ messageId: 'M1', broker: 'broker-a', queueId: 0, queueOffset: 3 });
    expect(deps.sent).toEqual([{ topic: 'T', body: 'hi', tags: 't', keys: ['k'], properties: { a: 'b' } }]);
    expect(
      (await call(port, 'GET', '/api/dead-letters?group=orders-lambda&limit=7&all=true')).json(),
    ).toEqual({
      group: 'orders-lambda',
      limit: 7,
      all: true,
      messages: [],
    });
    expect(
      (
        await postJson(port, '/api/dead-letters/redrive', '{"group":"orders-lambda","messageIds":["a"]}')
      ).json(),
    ).toEqual({
      redriven: [],
      skipped: [{ messageId: 'a', reason: 'x' }],
    });
    const original = recorder.begin({
      mappingId: 'orders',
      functionName: 'orders',
      event: { Records: [{ messageId: 'm' }] },
    });
    const replayed = (await postJson(port, `/api/invocations/${original.id}/replay`, '')).json();
    expect(replayed.invocation).toMatchObject({ replayOf: original.id, messageIds: ['m'] });
    expect((await call(port, 'GET', '/api/messages/unseen')).json()).toEqual({
      messageId: 'unseen',
      invocations: [],
      retries: 0,
      endedAs: 'unknown',
    });
  });

  it('answers 503 while the session starts, and a placeholder page until the assets exist', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'console-no-assets-'));
    onTestFinished(() => rmSync(empty, { recursive: true, force: true }));
    const { port } = await started(undefined, pathToFileURL(`${empty}/`));
    const answer = await call(port, 'GET', '/api/state');
    expect(answer.status).toBe(503);
    expect(answer.json().error).toContain('still starting');
    const page = await call(port, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/api/state');
  });

  it('serves the page files of its assets folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'console-assets-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, 'index.html'), '<p>page</p>');
    writeFileSync(path.join(dir, 'console.js'), 'export {};');
    const { port } = await started(fakeDeps(new InvocationRecorder()), pathToFileURL(`${dir}/`));
    expect((await call(port, 'GET', '/')).text).toBe('<p>page</p>');
    const script = await call(port, 'GET', '/console.js');
    expect(script.type).toMatch(/^text\/javascript/);
    expect((await call(port, 'GET', '/missing.css')).status).toBe(404);
  });

  it('streams the state and each settled invocation as server-sent events', async () => {
    const recorder = new InvocationRecorder();
    const deps = fakeDeps(recorder);
    const server = await startConsoleServer({
      port: 0,
      deps: () => deps,
      recorder,
      log: pino({ level: 'silent' }),
      stateIntervalMs: 50,
    });
    onTestFinished(() => server.close());
    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    const response = await fetch(`${server.url}api/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${needle}: ${text}`);
        text += Buffer.from(value).toString('utf8');
      }
    };
    await readUntil('event: state\ndata: {"startedAt"');
    const invocation = recorder.begin({
      mappingId: 'orders',
      functionName: 'orders',
      event: { Records: [] },
    });
    recorder.settle([invocation], () => undefined);
    await readUntil(`event: invocation\ndata: {"id":"${invocation.id}"`);
  });

  it('names a taken port and how to pick another', async () => {
    const first = await started(undefined);
    const taken = startConsoleServer({
      port: first.port,
      deps: () => undefined,
      recorder: new InvocationRecorder(),
      log: pino({ level: 'silent' }),
    });
    await expect(taken).rejects.toThrow(ConsolePortError);
    await expect(taken).rejects.toThrow(
      `console port ${first.port} is taken: pass another with --console-port <n>, or --console-port 0 for any free port`,
    );
  });
});
