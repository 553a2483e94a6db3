/**
 * Free loopback TCP ports for the local namesrv and brokers. Ports are picked below the kernel's
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
 */
export async function findBrokerPorts(): Promise<BrokerPorts> {
  const { namesrvPort, brokerPorts } = await findClusterPorts(1);
  return { namesrvPort, brokerPort: brokerPorts[0] as number };
}

/** Ports a local cluster opens: one namesrv, several brokers. */
export interface ClusterPorts {
  namesrvPort: number;
  /** One listenPort per broker; each also opens `listenPort - 2` and `listenPort + 1` (HA). */
  brokerPorts: number[];
}

/**
 * Picks a namesrv port and `brokers` broker listenPorts such that every port they open (namesrv, and
 * per broker listenPort - 2, listenPort, listenPort + 1) is free and none is shared. Throws
 * {@link LocalBrokerError} when none are found after a few hundred tries.
 */
export async function findClusterPorts(brokers: number): Promise<ClusterPorts> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const namesrvPort = randomPort();
    const brokerPorts = Array.from({ length: brokers }, randomPort);
    const wanted = [namesrvPort, ...brokerPorts.flatMap((port) => [port - 2, port, port + 1])];
    if (new Set(wanted).size !== wanted.length) continue;
    if (await allFree(wanted)) return { namesrvPort, brokerPorts };
  }
  throw new LocalBrokerError(
    `found no free loopback ports for the local broker in ${RANGE_LOW}..${RANGE_HIGH} after ${MAX_ATTEMPTS} tries`,
  );
}

async function allFree(ports: readonly number[]): Promise<boolean> {
  for (const port of ports) {
    if (!(await isPortFree(port, '0.0.0.0'))) return false;
  }
  return true;
}

function randomPort(): number {
  return RANGE_LOW + 2 + Math.floor(Math.random() * (RANGE_HIGH - RANGE_LOW - 4));
}
