/**
 * Where clients and brokers are, for zone-nearby allocation (allocate-zone-nearby.ts). Every member of
 * the group must see every other member's zone, and the only thing members learn of each other is the
 * client id list, so a client's zone travels inside its id: Java's `ip@instanceName@unitName` layout,
 * the unit being the zone. A Java consumer joins a zone-aware group by setting `unitName` to its zone
 * and using an `AllocateMachineRoomNearby` resolver that reads the same conventions.
 */
import { RocketMQError } from '../../errors.js';

/**
 * The zone of a client: the third `@`-separated part of its id (Java's `unitName`), or undefined when
 * the id has none.
 */
export function clientZoneFromId(clientId: string): string | undefined {
  const zone = clientId.split('@')[2];
  return zone === undefined || zone === '' ? undefined : zone;
}

/**
 * `clientId` with `zone` appended as its unit part, for {@link clientZoneFromId}. Throws a permanent
 * {@link RocketMQError} when the zone is empty or contains `@`, or when the id already has a unit part.
 */
export function clientIdInZone(clientId: string, zone: string): string {
  if (zone === '' || zone.includes('@')) {
    throw new RocketMQError(`zone ${JSON.stringify(zone)} must be non-empty and must not contain '@'`, {
      permanent: true,
    });
  }
  if (clientId.split('@').length !== 2) {
    throw new RocketMQError(`client id ${JSON.stringify(clientId)} is not ip@instance`, { permanent: true });
  }
  return `${clientId}@${zone}`;
}

/**
 * A broker-name-to-zone lookup: the zone `brokerZones` gives a broker, else, for a broker named
 * `<zone>@<name>` (the naming Java's `AllocateMessageQueueByMachineRoom` reads), the part before the
 * `@`; else undefined.
 */
export function brokerZoneLookup(
  brokerZones: Readonly<Record<string, string>> = {},
): (brokerName: string) => string | undefined {
  return (brokerName) => {
    if (Object.hasOwn(brokerZones, brokerName)) return brokerZones[brokerName] || undefined;
    const parts = brokerName.split('@');
    return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? parts[0] : undefined;
  };
}
