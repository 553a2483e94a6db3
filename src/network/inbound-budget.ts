/**
 * Flow control for requests the peer sends us (GET_CONSUMER_RUNNING_INFO, NOTIFY_CONSUMER_IDS_CHANGED,
 * ...). Every such request costs memory until its reply has been written: the handler's work, then the
 * encoded reply waiting in the send queue. A peer that keeps sending requests and never reads our replies
 * would grow that without limit, so past a high-water mark we stop reading the socket (TCP then pushes
 * back on the peer) and read again once we are under a low-water mark.
 */
import type { Logger } from '../util/logger.js';
import { ThrottledLog } from '../util/throttled-log.js';

/**
 * Inbound requests being answered or whose reply is queued unsent, per link, before reading pauses.
 * Brokers send these a few times a minute at most (an admin's `consumerStatus`, a rebalance
 * notification); 64 leaves room for a burst of notifications after a broker restart while keeping a
 * flood to a few dozen handler calls in memory.
 */
export const MAX_INBOUND_REQUESTS = 64;

/**
 * Encoded reply bytes queued unsent, per link, before reading pauses: 4 MiB. The largest reply we send
 * is a running-info report, a few hundred KiB for a consumer of a thousand queues, so a dozen of those
 * fit; every byte beyond is only a peer that does not read. Soft by the replies of requests already
 * admitted (at most {@link MAX_INBOUND_REQUESTS} of them).
 */
export const MAX_INBOUND_REPLY_BYTES = 4 * 1024 * 1024;

/** Reading resumes once both counts are at or below this share of their maximum. */
const LOW_WATER_RATIO = 0.5;

/**
 * What the budget switches: the link's reading.
 */
export interface ReadGate {
  pause(): void;
  resume(): void;
}

/**
 * One admitted inbound request. {@link InboundTicket.queueReply} once its reply is encoded and queued,
 * {@link InboundTicket.release} once the reply was written, dropped or not needed; both are idempotent.
 */
export interface InboundTicket {
  queueReply(bytes: number): void;
  release(): void;
}

/**
 * Options of an {@link InboundBudget}.
 */
export interface InboundBudgetOptions {
  /** The peer, for logs. */
  address: string;
  logger: Logger;
  /** @default MAX_INBOUND_REQUESTS */
  maxRequests?: number;
  /** @default MAX_INBOUND_REPLY_BYTES */
  maxReplyBytes?: number;
}

/**
 * Counts inbound requests and their queued reply bytes for one link and pauses reading above the
 * bounds.
 */
export class InboundBudget {
  private readonly gate: ReadGate;
  private readonly address: string;
  private readonly logger: Logger;
  /** A flooding peer pauses and resumes a link thousands of times: debug lines throttled too. */
  private readonly debugLines: ThrottledLog;
  private readonly maxRequests: number;
  private readonly maxReplyBytes: number;
  private pendingRequests = 0;
  private queuedReplyBytes = 0;
  private isPaused = false;
  private pauses = 0;

  constructor(gate: ReadGate, options: InboundBudgetOptions) {
    this.gate = gate;
    this.address = options.address;
    this.logger = options.logger;
    this.debugLines = new ThrottledLog(options.logger);
    this.maxRequests = options.maxRequests ?? MAX_INBOUND_REQUESTS;
    this.maxReplyBytes = options.maxReplyBytes ?? MAX_INBOUND_REPLY_BYTES;
  }

  /** Requests admitted and not yet released. */
  get requests(): number {
    return this.pendingRequests;
  }

  /** Reply bytes queued and not yet released. */
  get replyBytes(): number {
    return this.queuedReplyBytes;
  }

  /** True while this budget holds reading paused. */
  get paused(): boolean {
    return this.isPaused;
  }

  /** Counts a request that just arrived; may pause reading. */
  admit(): InboundTicket {
    this.pendingRequests++;
    this.check();
    let replyBytes = 0;
    let released = false;
    return {
      queueReply: (bytes: number) => {
        if (released || replyBytes > 0) return;
        replyBytes = bytes;
        this.queuedReplyBytes += bytes;
        this.check();
      },
      release: () => {
        if (released) return;
        released = true;
        this.pendingRequests--;
        this.queuedReplyBytes -= replyBytes;
        this.check();
      },
    };
  }

  private check(): void {
    if (!this.isPaused) {
      if (this.pendingRequests >= this.maxRequests || this.queuedReplyBytes >= this.maxReplyBytes) {
        this.isPaused = true;
        this.pauses++;
        this.logPause();
        this.gate.pause();
      }
      return;
    }
    if (
      this.pendingRequests <= this.maxRequests * LOW_WATER_RATIO &&
      this.queuedReplyBytes <= this.maxReplyBytes * LOW_WATER_RATIO
    ) {
      this.isPaused = false;
      this.debugLines.debug('resume', { address: this.address }, 'inbound requests answered, resuming reads');
      this.gate.resume();
    }
  }

  /** A flooding peer pauses a link thousands of times: warn on the first pause only, then throttled. */
  private logPause(): void {
    const fields = {
      address: this.address,
      inboundPending: this.pendingRequests,
      queuedReplyBytes: this.queuedReplyBytes,
      pauses: this.pauses,
    };
    if (this.pauses === 1) this.logger.warn(fields, 'too many inbound requests unanswered, pausing reads');
    else this.debugLines.debug('pause', fields, 'inbound requests unanswered, pausing reads');
  }
}
