// Datetime parsing for date and autodate fields. PocketBase (types.ParseDateTime) accepts its own layout,
// RFC 3339 and the other common layouts of spf13/cast, and unix seconds; ⚠ anything unparsable silently
// becomes the zero value "". Deskbase writes datetimes as ISO 8601 `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).

// `YYYY-MM-DD`, optionally followed by a time (`T` or space, seconds and fraction optional) and a zone
// (`Z`, `±HH:MM`, `±HHMM`, `±HH`, optionally followed by a zone name as in Go's `-0700 MST`).
const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?(?:\s*(?:(Z)|([+-])(\d{2}):?(\d{2})?)(?:\s+[A-Z]{1,5})?|\s+(?:UTC|GMT))?$/i;
// RFC 1123 / RFC 822 style (`Mon, 02 Jan 2006 15:04:05 GMT`), left to Date.parse once the shape is known.
const RFC1123_RE = /^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}(?::\d{2})? (?:[A-Z]{1,4}|[+-]\d{4})$/;

const ISO_OUT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Go's zero time.Time, which PocketBase serialises as "". */
const GO_ZERO = '0001-01-01T00:00:00.000Z';

/** Any accepted datetime input → `YYYY-MM-DDTHH:MM:SS.mmmZ`, or "" when it cannot be parsed. */
export function parseDateTime(value: unknown): string {
  if (value instanceof Date) return format(value.getTime());
  if (typeof value === 'number') return Number.isFinite(value) ? format(Math.trunc(value * 1000)) : '';
  if (typeof value !== 'string' || value === '') return '';
  if (ISO_OUT_RE.test(value)) return validIsoOrEmpty(value);
  const m = ISO_RE.exec(value.trim());
  if (m !== null) return fromParts(m);
  if (RFC1123_RE.test(value)) return format(Date.parse(value));
  return '';
}

function validIsoOrEmpty(value: string): string {
  if (plainlyValid(value)) return value;
  const out = format(Date.parse(value));
  return out === value ? value : '';
}

/** Two ASCII digits at `at` as a number (the shape was checked by ISO_OUT_RE); no substring is made. */
const two = (s: string, at: number): number => (s.charCodeAt(at) - 48) * 10 + (s.charCodeAt(at + 1) - 48);

/**
 * Stored values are read back through here for every record served, and the round trip through Date
 * is most of a list's serialising time: a value whose every part is in range (days up to 28, so no
 * month can roll it over) is what the round trip gives back; anything else takes the round trip.
 * `value` already has the shape YYYY-MM-DDTHH:MM:SS.mmmZ.
 */
function plainlyValid(value: string): boolean {
  const month = two(value, 5);
  const day = two(value, 8);
  return month >= 1 && month <= 12 && day >= 1 && day <= 28 && two(value, 11) <= 23 &&
    two(value, 14) <= 59 && two(value, 17) <= 59 && value !== GO_ZERO;
}

function fromParts(m: RegExpExecArray): string {
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  const ms = Number((m[7] ?? '0').slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return '';
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  if (date.getUTCDate() !== day) return ''; // 2024-02-30 rolled over: Go rejects it
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0));
  return format(date.getTime() - offsetMinutes * 60_000);
}

function format(time: number): string {
  if (!Number.isFinite(time)) return '';
  const date = new Date(time);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return '';
  const iso = date.toISOString();
  return iso === GO_ZERO ? '' : iso;
}
