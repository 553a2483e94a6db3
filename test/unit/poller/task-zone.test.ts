/**
 * The zone from the ECS task metadata endpoint, served here by a local HTTP server answering as ECS's
 * agent does (`GET <uri>/task` with `AvailabilityZone`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { ECS_METADATA_ENV, withTaskZone } from '../../../src/poller/task-zone.js';
import { rootLogger } from '../../../src/util/logger.js';

const answers = new Map<string, { status: number; body: string }>();
const requests: string[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const answer = answers.get(request.url ?? '') ?? { status: 404, body: 'not found' };
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function config(
  mapping: Record<string, unknown> = { zoneNearby: {} },
  top: Record<string, unknown> = {},
): RunConfig {
  return parseConfig(
    {
      nameServer: '127.0.0.1:9876',
      offsets: { store: 'memory' },
      mappings: [{ topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs', ...mapping }],
      ...top,
    },
    { baseDir: '/app', env: {} },
  );
}

const zoneOf = (input: RunConfig, path: string) =>
  withTaskZone(input, { env: { [ECS_METADATA_ENV]: `${base}${path}` }, fetch, log: rootLogger });

describe('the zone from the ECS task metadata', () => {
  it('fills the zone of a zoneNearby config from AvailabilityZone', async () => {
    answers.set('/v4/a/task', {
      status: 200,
      body: JSON.stringify({ Cluster: 'c', AvailabilityZone: 'eu-west-1b' }),
    });
    expect((await zoneOf(config(), '/v4/a')).zone).toBe('eu-west-1b');
    expect(requests).toContain('/v4/a/task');
  });

  it('keeps a zone the config names, and asks nothing when no mapping uses zoneNearby', async () => {
    requests.length = 0;
    answers.set('/v4/b/task', { status: 200, body: JSON.stringify({ AvailabilityZone: 'eu-west-1c' }) });
    expect((await zoneOf(config({ zoneNearby: {} }, { zone: 'room-1' }), '/v4/b')).zone).toBe('room-1');
    expect((await zoneOf(config({}), '/v4/b')).zone).toBeUndefined();
    expect(requests).toEqual([]);
  });

  it.each([
    ['an HTTP error', '/v4/c', { status: 500, body: 'boom' }],
    ['an answer without the zone', '/v4/d', { status: 200, body: '{"Cluster":"c"}' }],
    [
      'a zone that cannot be part of a client id',
      '/v4/e',
      { status: 200, body: '{"AvailabilityZone":"a@b"}' },
    ],
    ['no JSON', '/v4/f', { status: 200, body: '<html>' }],
  ])('leaves the zone unset on %s', async (_, path, answer) => {
    answers.set(`${path}/task`, answer);
    expect((await zoneOf(config(), path)).zone).toBeUndefined();
  });

  it('leaves the zone unset outside ECS (no metadata variable)', async () => {
    const zoned = await withTaskZone(config(), { env: {}, fetch, log: rootLogger });
    expect(zoned.zone).toBeUndefined();
  });
});
