/**
 * The first offset of a queue stored at or after a time, from the answer of a broker that searched for
 * the *nearest* one. A 5.x broker answers SEARCH_OFFSET_BY_TIMESTAMP with the first message whose store
 * time is at or after the timestamp (the request's LOWER boundary), or the queue's max offset when every
 * message is older. A broker before 5.0 ignores the boundary: its binary search over the consume queue
 * answers the entry whose store time is closest, on either side, which may be the message just before the
 * time, the last message when all are older, or any one of several messages stored in the same
 * millisecond (docs/protocol.md, "Broker versions").
 *
 * The refinement reads store times one message at a time, from the broker's answer outwards in doubling
 * steps until it has one offset stored before the time and one not, then halves the gap between them:
 * two reads when the answer is one message early, a few more inside a run of same-millisecond messages.
 * It relies on store times not going down along a queue: a broker stamps each message as it appends it
 * to its commit log, in order.
 */
import { RocketMQError } from '../errors.js';
import type { PullResult } from './pull-result.js';

/**
 * Reads (at most) the one message stored at `offset`, committing nothing.
 */
export type ReadOneAt = (offset: number) => Promise<PullResult>;

/**
 * The first offset whose message was stored at or after `timestamp`, or the queue's max offset when
 * every message is older, searched from `nearest`: what a broker before 5.0 answered for `timestamp`.
 * The queue's bounds come with the first read; an answer outside them is moved inside.
 */
export async function refineNearestOffset(
  readOneAt: ReadOneAt,
  nearest: number,
  timestamp: number,
): Promise<number> {
  const first = await readOneAt(nearest);
  const { minOffset, maxOffset } = first;
  const atOrAfter = async (offset: number): Promise<boolean> => {
    // The max offset is where the next message goes: "nothing older is left" by definition.
    if (offset >= maxOffset) return true;
    return storedAtOrAfter(offset === nearest ? first : await readOneAt(offset), offset, timestamp);
  };

  const start = Math.min(maxOffset, Math.max(minOffset, nearest));
  // Invariant: `older` was stored before the time (minOffset - 1: no such message), `notOlder` was not.
  let older = minOffset - 1;
  let notOlder = maxOffset;
  if (await atOrAfter(start)) {
    notOlder = start;
    for (let step = 1; notOlder > minOffset; step *= 2) {
      const probe = Math.max(minOffset, notOlder - step);
      if (!(await atOrAfter(probe))) {
        older = probe;
        break;
      }
      notOlder = probe;
    }
  } else {
    older = start;
    for (let step = 1; older + step < maxOffset; step *= 2) {
      const probe = older + step;
      if (await atOrAfter(probe)) {
        notOlder = probe;
        break;
      }
      older = probe;
    }
  }
  while (notOlder - older > 1) {
    const middle = older + Math.floor((notOlder - older) / 2);
    if (await atOrAfter(middle)) notOlder = middle;
    else older = middle;
  }
  return notOlder;
}

/** Whether the message read at `offset` was stored at or after `timestamp`. */
function storedAtOrAfter(result: PullResult, offset: number, timestamp: number): boolean {
  switch (result.status) {
    case 'FOUND': {
      const message = result.messages[0];
      if (message === undefined) {
        throw new RocketMQError(`the broker returned no readable message at offset ${offset}`, {
          retriable: true,
          cause: result.decodeError,
        });
      }
      return message.storeTimestamp >= timestamp;
    }
    case 'NO_NEW_MSG':
      // The queue ends there.
      return true;
    case 'OFFSET_ILLEGAL':
      // Below the queue's start the message is gone (no place to start); past its end nothing is older.
      return offset >= result.maxOffset;
    case 'NO_MATCHED_MSG':
      throw new RocketMQError(
        `the broker filtered out the message at offset ${offset} of a read of every tag`,
        {
          retriable: true,
        },
      );
  }
}
