/**
 * Reading a Prometheus text exposition (what `/metrics` serves) in tests.
 */

/** The samples of a Prometheus text exposition: `name{labels}` → value. */
export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}
