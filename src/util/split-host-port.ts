/**
 * Splits `host:port` as RocketMQ writes addresses: at the last colon, so an IPv6 host may come
 * bracketed (`[::1]:10911`) or bare (`::1:10911`, as brokers register). Returns undefined when there is
 * no colon, the host is empty or the port is not 0..65535; each layer turns that into its own error.
 */
export function splitHostPort(address: string): { host: string; port: number } | undefined {
  const colon = address.lastIndexOf(':');
  if (colon < 0) return undefined;
  const portText = address.slice(colon + 1);
  let host = address.slice(0, colon).trim();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  const port = Number(portText);
  if (host === '' || !/^\d{1,5}$/.test(portText) || port > 65_535) return undefined;
  return { host, port };
}
