/**
 * The ledger model of the fault suite: what was produced against what a handler saw, reduced to the
 * figures of a fault outcome (delivered, lost, duplicates, order violations).
 */
import type { LedgerEntry } from '../cli/poller-process.js';

/** How many lost ids a summary quotes (for the failure message). */
const QUOTED_IDS = 10;

/** The figures of one consumer's ledger against the produced ids. */
export interface LedgerSummary {
  sent: number;
  /** Distinct produced ids handled at least once. */
  delivered: number;
  /** Produced ids never handled. */
  lost: number;
  /** Handlings beyond the first, of produced ids. */
  duplicates: number;
  /** Orderly only (else null): first handlings that came after a later offset of the same queue. */
  orderViolations: number | null;
  /** Handled ids that were never produced (another test's messages would show up here). */
  unexpected: number;
  /** Up to 10 lost ids, for the failure message. */
  lostIds: string[];
}

/**
 * Handled ids with their counts, against the produced ids.
 *
 * @example
 * ```ts
 * const ledger = new DeliveryLedger(sentIds, { orderly: true });
 * ledger.add(readLedger(file));
 * expect(ledger.summary().lost).toBe(0);
 * ```
 */
export class DeliveryLedger {
  readonly #sent: ReadonlySet<string>;
  readonly #sentCount: number;
  readonly #orderly: boolean;
  readonly #counts = new Map<string, number>();
  /** Orderly: per queue id, the highest offset first handled so far. */
  readonly #highestFirstOffset = new Map<number, number>();
  #unexpected = 0;
  #orderViolations = 0;

  constructor(sent: readonly string[], options: { orderly?: boolean } = {}) {
    this.#sent = new Set(sent);
    this.#sentCount = sent.length;
    this.#orderly = options.orderly ?? false;
  }

  /** Adds handlings in the order they happened (a ledger file's line order). */
  add(entries: Iterable<LedgerEntry>): void {
    for (const entry of entries) {
      if (!this.#sent.has(entry.messageId)) {
        this.#unexpected++;
        continue;
      }
      const seen = this.#counts.get(entry.messageId) ?? 0;
      this.#counts.set(entry.messageId, seen + 1);
      // Orderly guarantees each message is handled only after every earlier message of its queue:
      // a first handling below an offset already handled skipped ahead. Handling a message again
      // (a replay after a crash or a retry) is a duplicate, not an order violation.
      if (this.#orderly && seen === 0) {
        const highest = this.#highestFirstOffset.get(entry.queueId) ?? -1;
        if (entry.queueOffset < highest) this.#orderViolations++;
        else this.#highestFirstOffset.set(entry.queueId, entry.queueOffset);
      }
    }
  }

  /** How often `messageId` was handled. */
  count(messageId: string): number {
    return this.#counts.get(messageId) ?? 0;
  }

  /** Distinct produced ids handled so far. */
  get delivered(): number {
    return this.#counts.size;
  }

  summary(): LedgerSummary {
    let duplicates = 0;
    for (const count of this.#counts.values()) duplicates += count - 1;
    const lostIds: string[] = [];
    let lost = 0;
    for (const id of this.#sent) {
      if (this.#counts.has(id)) continue;
      lost++;
      if (lostIds.length < QUOTED_IDS) lostIds.push(id);
    }
    return {
      sent: this.#sentCount,
      delivered: this.#counts.size,
      lost,
      duplicates,
      orderViolations: this.#orderly ? this.#orderViolations : null,
      unexpected: this.#unexpected,
      lostIds,
    };
  }
}

/**
 * The summary of `entries` against `sent`, in one call.
 *
 * @example
 * ```ts
 * const { lost, duplicates } = summarizeLedger(sentIds, readLedger(file));
 * ```
 */
export function summarizeLedger(
  sent: readonly string[],
  entries: Iterable<LedgerEntry>,
  options: { orderly?: boolean } = {},
): LedgerSummary {
  const ledger = new DeliveryLedger(sent, options);
  ledger.add(entries);
  return ledger.summary();
}
