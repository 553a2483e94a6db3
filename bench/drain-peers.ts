/**
 * The peer consumers of the drain race besides Apache's Java push consumer (drain-peer.ts): main.ts
 * prepares each once per bench run, runs it in every round like our consumers, and stops it at the end.
 * Add a peer by appending it here; its id is then a valid `--consumers` name.
 */
import type { DrainPeer } from './drain-peer.js';
import { aliOnsPeer } from './peers/ali-ons-peer.js';
import { rocketmqNodejsPeer } from './peers/rocketmq-nodejs-peer.js';

/**
 * Every registered peer.
 *
 * @example
 * ```ts
 * const ids = DRAIN_PEERS.map((peer) => peer.id);
 * ```
 */
export const DRAIN_PEERS: readonly DrainPeer[] = [aliOnsPeer, rocketmqNodejsPeer];
