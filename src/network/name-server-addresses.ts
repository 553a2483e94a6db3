/**
 * Parses a name server address list: an array, or `;`/`,`-separated text (Java's `a:9876;b:9876`);
 * blanks are dropped. A module of its own so that config/ checks the option without loading the client.
 */
export function parseNameServerAddresses(addresses: readonly string[] | string): string[] {
  const list = typeof addresses === 'string' ? addresses.split(/[;,]/) : [...addresses];
  return list.map((address) => address.trim()).filter((address) => address.length > 0);
}
