/**
 * What a dev session starts before its service is read, because nothing of it depends on the service and
 * it is slow: the local RocketMQ's JVMs (seconds to boot) and the embedded DynamoDB. The session then
 * either takes both (and stops them with itself), or abandons them when the service does not load.
 */

import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../util/logger.js';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from './embedded-dynamodb.js';
import { beginDevRocketMQ, type DevRocketMQ, type DevRocketMQKind } from './local-rocketmq.js';

/**
 * The starts under way; {@link BackgroundStarts.started} or {@link BackgroundStarts.abandon}, once.
 */
export interface BackgroundStarts {
  /**
   * Waits for both starts; hands each one that started to `onStarted` (what it is, how to stop it)
   * before rethrowing the first failure, so the caller stops what did start.
   */
  started(
    onStarted: (what: string, stop: () => Promise<void>) => void,
  ): Promise<{ db: EmbeddedDynamoDb; local: DevRocketMQ | undefined }>;
  /** Stops each start once it has finished, without waiting (the session failed before using them). */
  abandon(log: Logger): void;
}

/**
 * Starts the embedded DynamoDB under `<stateDir>/dynamodb` and, when `localKind` is given, the local
 * RocketMQ (logs under `<stateDir>/broker-logs`).
 */
export function startInBackground(
  localKind: DevRocketMQKind | undefined,
  stateDir: string,
  logger: Logger,
): BackgroundStarts {
  const dataDir = path.join(stateDir, 'dynamodb');
  const starting =
    localKind === undefined
      ? undefined
      : beginDevRocketMQ(localKind, { logDir: path.join(stateDir, 'broker-logs'), logger });
  const db = (async () => {
    // A new local broker starts with an empty store: offsets kept from an earlier run would point past
    // the end of every queue, so they start over with the broker. A kept broker keeps both.
    if (starting !== undefined && (await starting.fresh)) await rm(dataDir, { recursive: true, force: true });
    return startEmbeddedDynamoDb(dataDir);
  })();
  const local = starting === undefined ? Promise.resolve(undefined) : starting.ready;
  // Awaited by started() or abandon(); until then a failure must not count as unhandled.
  db.catch(() => undefined);
  local.catch(() => undefined);
  return {
    async started(onStarted) {
      const [dbResult, localResult] = await Promise.allSettled([db, local]);
      if (dbResult.status === 'fulfilled') {
        onStarted('embedded DynamoDB', () => dbResult.value.close());
      }
      if (localResult.status === 'fulfilled' && localResult.value !== undefined) {
        const started = localResult.value;
        onStarted(`local ${started.kind}`, () => started.stop());
      }
      if (dbResult.status === 'rejected') throw dbResult.reason;
      if (localResult.status === 'rejected') throw localResult.reason;
      return {
        db: dbResult.value,
        local: localResult.status === 'fulfilled' ? localResult.value : undefined,
      };
    },
    abandon(log) {
      const stop = (what: string, closing: Promise<void>): void => {
        closing.catch((error: unknown) => log.error({ err: error }, `stopping the ${what} failed`));
      };
      db.then(
        (started) => stop('embedded DynamoDB', started.close()),
        () => undefined,
      );
      local.then(
        (started) => started && stop(`local ${started.kind}`, started.stop()),
        () => undefined,
      );
    },
  };
}
