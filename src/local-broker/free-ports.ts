/**
 * Free loopback TCP ports for the local namesrv and broker. Ports are picked below the kernel's
 * ephemeral range (32768+ on Linux) so outgoing connections do not take them between the check and
 * the JVM's bind.
 */
import { createServer } from 'node:net';
import { LocalBrokerError } from './local-broker-error.js';

const RANGE_LOW = 12_000;
const RANGE_HIGH = 32_000;
const MAX_ATTEMPTS = 200;

/** Ports one local broker opens. */
export interface BrokerPorts {
  /** The namesrv's listenPort. */
  namesrvPort: number;
  /** The broker's listenPort; it also opens `listenPort - 2` (fast/VIP channel) and `listenPort + 1` (HA). */
  brokerPort: number;
}

/**
 * True when `port` can be bound on `host` right now (the broker binds its HA port on every
 * interface, so {@link findBrokerPorts} checks `0.0.0.0`).
 *
 * @example
 * ```ts
 * if (await isPortFree(9876)) startNamesrvOn(9876);
 * ```
 */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

/**
 * Picks a namesrv port and a broker listenPort such that all four ports the pair opens
 * (namesrv, broker - 2, broker, broker + 1) are free. Throws {@link LocalBrokerError} when none is
 * found after a few hundred tries.
 *
 * @example
 * ```ts
 * const { namesrvPort, brokerPort } = await findBrokerPorts();
 * ```
 */
export async function findBrokerPorts(): Promise<BrokerPorts> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const brokerPort = randomPort();
    const namesrvPort = randomPort();
    const wanted = [brokerPort - 2, brokerPort, brokerPort + 1, namesrvPort];
    if (new Set(wanted).size !== wanted.length) continue;
    let allFree = true;
    for (const port of wanted) {
      if (!(await isPortFree(port, '0.0.0.0'))) {
        allFree = false;
        break;
      }
    }
    if (allFree) return { namesrvPort, brokerPort };
  }
  throw new LocalBrokerError(
    `found no free loopback ports for the local broker in ${RANGE_LOW}..${RANGE_HIGH} after ${MAX_ATTEMPTS} tries`,
  );
}

function randomPort(): number {
  return RANGE_LOW + 2 + Math.floor(Math.random() * (RANGE_HIGH - RANGE_LOW - 4));
}
