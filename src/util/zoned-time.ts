/**
 * ISO 8601 times that say their zone, and how a time reads in UTC and in the local zone. A time without
 * a zone is ambiguous (JavaScript reads `2026-12-01` as UTC but `2026-12-01T10:00` as local time), so
 * the operator tools refuse it with a hint rather than guess.
 */

/** An ISO 8601 date or date-time, its zone captured when present. */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** What {@link parseZonedTime} read: the time in ms since the epoch, or what is wrong with the text. */
export type ZonedTimeReading =
  | { readonly ok: true; readonly timestampMs: number }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads an ISO time with its zone (`2026-12-01T12:00:00Z`, `2026-12-01T14:00:00.250+02:00`). A date or
 * a date-time without a zone is refused with the same time written both ways it could have meant;
 * undefined when the text is not an ISO time at all (the caller names what else it accepts).
 */
export function parseZonedTime(text: string, nowMs = Date.now()): ZonedTimeReading | undefined {
  const match = ISO_TIME.exec(text.trim());
  if (match === null) return undefined;
  const [, date, clock, zone] = match;
  const withoutZone = `${date}T${clock ?? '00:00:00'}`;
  if (zone === undefined) {
    return {
      ok: false,
      problem: `${text.trim()} has no time zone, so it is ambiguous: add Z for UTC (${withoutZone}Z) or your offset (${withoutZone}${utcOffsetText(nowMs)})`,
    };
  }
  const timestampMs = Date.parse(`${withoutZone}${isoZone(zone)}`);
  if (!Number.isFinite(timestampMs) || !sameCalendarDate(date as string, timestampMs, zone)) {
    return { ok: false, problem: `${text.trim()} is not a valid date and time` };
  }
  return { ok: true, timestampMs };
}

/**
 * The local zone's offset from UTC at `atMs`, as ISO writes it (`+02:00`, `-05:30`, `+00:00`).
 */
export function utcOffsetText(atMs: number): string {
  const minutes = -new Date(atMs).getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/**
 * `atMs` in the local zone, ISO with its offset (`2026-12-01T13:00:00.000+01:00`): what the operator's
 * clock showed at that time.
 */
export function localIsoTime(atMs: number): string {
  const d = new Date(atMs);
  const date = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
  const clock = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
  return `${date}T${clock}${utcOffsetText(atMs)}`;
}

/** The local zone's name (`Europe/Berlin`), or undefined when the runtime does not say. */
export function localZoneName(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * Whether the parsed time still falls on the written date in the written zone: `Date.parse` rolls
 * `2026-02-31` over to March instead of refusing it.
 */
function sameCalendarDate(date: string, timestampMs: number, zone: string): boolean {
  const offsetMinutes = zoneMinutes(zone);
  const shifted = new Date(timestampMs + offsetMinutes * 60_000);
  return shifted.toISOString().slice(0, 10) === date;
}

/** `Z`, or the offset with its colon (`+0200` -> `+02:00`), as `Date.parse` is specified to read it. */
function isoZone(zone: string): string {
  if (zone.toUpperCase() === 'Z') return 'Z';
  const digits = zone.replace(':', '');
  return `${digits.slice(0, 3)}:${digits.slice(3, 5)}`;
}

function zoneMinutes(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
}
