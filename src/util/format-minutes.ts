/**
 * A span of minutes in words: `15 min`, `1.5 min`, and seconds under a minute (`30 s`).
 */
export function formatMinutes(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const minutes = ms / 60_000;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}
