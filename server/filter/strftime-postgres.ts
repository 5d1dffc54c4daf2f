// SQLite's strftime(format, time, modifiers...) written for PostgreSQL (the dialect's `strftime`), for
// the formats and modifiers that mean the same on both; any other is refused when the filter is
// compiled, naming it, never run with another meaning.
//
// - time: a text SQLite reads as a datetime (`YYYY-MM-DD`, then optionally `T` or a space and
//   `HH:MM[:SS[.fff]]`, then optionally `Z` or `±HH:MM`), 'now' (also when omitted), or a number (a
//   Julian day, as SQLite reads numbers). Anything else, or an impossible field (month 13, hour 25),
//   gives NULL, as on SQLite; a day past the month's end rolls over into the next month and hour 24 is
//   the next midnight, as on SQLite. Year 0000, which PostgreSQL's calendar lacks, gives NULL.
//   Parsing never raises an error, so no stored text can fail a query.
// - modifiers: 'start of day|month|year', '±N days|hours|minutes|seconds' (N may have decimals) and
//   '±N months|years' (N whole; a day past the new month's end rolls over, as on SQLite).
// - format: %d %e %f %F %H %I %j %k %l %m %M %p %P %R %s %S %T %u %w %Y %%, other text as is.
import { joinFrags, param, sql, type Frag, type SqlValue } from './sql.js';

/** The time value as the dialect hands it over (its `Operand`). */
export interface TimeOperand {
  sql: Frag;
  type?: 'text' | 'number' | 'json';
  static?: { value: SqlValue };
}

export type StrftimeBuild = (time: TimeOperand | undefined) => Frag;

/** SQLite's datetime texts (the dialect binds this pattern). */
const DATETIME = '^\\s*([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}(?:\\.[0-9]+)?))?)?\\s*(Z|[+-][0-9]{2}:[0-9]{2})?\\s*$';

const NOW: Frag = { text: "(now() AT TIME ZONE 'UTC')", params: [] };

/** A text as a UTC timestamp, or NULL (see the file's comment). */
function parseText(text: Frag): Frag {
  const m = (i: number) => sql`CAST(_m.m[${{ text: String(i), params: [] }}] AS integer)`;
  const seconds = sql`CAST(COALESCE(_m.m[6], '0') AS double precision)`;
  // SQLite's bounds: hour 24 is the next day's midnight; PostgreSQL has no year 0 (NULL for it).
  const valid = sql`${m(1)} >= 1 AND ${m(2)} BETWEEN 1 AND 12 AND ${m(3)} BETWEEN 1 AND 31 AND COALESCE(${m(4)}, 0) <= 24 AND COALESCE(${m(5)}, 0) < 60 AND ${seconds} < 60`;
  const local = sql`make_timestamp(${m(1)}, ${m(2)}, 1, 0, 0, 0) + (${m(3)} - 1) * interval '1 day' + COALESCE(${m(4)}, 0) * interval '1 hour' + COALESCE(${m(5)}, 0) * interval '1 minute' + ${seconds} * interval '1 second'`;
  const offset = sql`(CASE WHEN _m.m[7] IS NULL OR _m.m[7] = 'Z' THEN interval '0' ELSE CAST(_m.m[7] AS interval) END)`;
  // OFFSET 0 keeps PostgreSQL from pulling the subquery up, which would copy the match into every use.
  const parsed = sql`(SELECT CASE WHEN _m.m IS NOT NULL AND ${valid} THEN ${local} - ${offset} END FROM (SELECT regexp_match(${text}, ${param(DATETIME)}) AS m OFFSET 0) AS _m)`;
  return sql`(CASE WHEN ${text} = 'now' THEN ${NOW} ELSE ${parsed} END)`;
}

const FIRST_JULIAN_DAY = 1721425.5;
const END_JULIAN_DAY = 5373484.5;

/**
 * A Julian day number as a UTC timestamp; NULL outside years 0001-9999, never an out-of-range error. A
 * bound day is checked here: PostgreSQL folds constants while planning, even in a CASE branch not taken.
 */
function julian(day: Frag, bound?: SqlValue): Frag {
  if (bound !== undefined) {
    const n = typeof bound === 'number' ? bound : Number.NaN;
    if (!(n >= FIRST_JULIAN_DAY && n < END_JULIAN_DAY)) return sql`CAST(NULL AS timestamp)`;
  }
  return sql`(CASE WHEN ${day} >= ${{ text: String(FIRST_JULIAN_DAY), params: [] }} AND ${day} < ${{ text: String(END_JULIAN_DAY), params: [] }} THEN to_timestamp((${day} - 2440587.5) * 86400) AT TIME ZONE 'UTC' END)`;
}

/** Seconds since 1970 of 0001-01-01 and of the end of 9999: SQLite's datetimes stay between them. */
const FIRST_EPOCH = -62135596800;
const LAST_EPOCH = 253402300800;

function timeOf(time: TimeOperand | undefined, asText: (o: TimeOperand) => Frag): Frag {
  if (time === undefined) return NOW;
  const isNumber = time.static !== undefined ? typeof time.static.value === 'number' : time.type === 'number';
  return isNumber ? julian(sql`CAST(${time.sql} AS double precision)`, time.static?.value) : parseText(asText(time));
}

type Modify = (ts: Frag) => Frag;

const UNITS: Record<string, string> = { day: 'day', hour: 'hour', minute: 'minute', second: 'second', month: 'month', year: 'year' };

function modifier(text: string): Modify | null {
  const m = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s+(day|hour|minute|second|month|year)s?\s*$/i.exec(text);
  if (m !== null) {
    const n = Number(m[1]);
    const unit = UNITS[m[2].toLowerCase()];
    if (unit === 'month' || unit === 'year') {
      if (!Number.isInteger(n)) return null;
      const months = unit === 'year' ? n * 12 : n;
      // Bounds checked here too (constants are folded while planning): past 10,000 years, NULL.
      if (Math.abs(months) > 120_000) return () => sql`CAST(NULL AS timestamp)`;
      // The month moves; the day and time are added back, so a day past the month's end rolls over.
      // A month outside years 0001-9999 gives NULL, so the arithmetic can never leave PostgreSQL's range.
      const index = (ts: Frag) => sql`(date_part('year', ${ts}) * 12 + date_part('month', ${ts}) - 1 + CAST(${param(months)} AS double precision))`;
      return (ts) => sql`(CASE WHEN ${index(ts)} BETWEEN 12 AND 119999 THEN date_trunc('month', ${ts}) + CAST(${param(months)} AS integer) * interval '1 month' + (${ts} - date_trunc('month', ${ts})) END)`;
    }
    const seconds = { day: 86400, hour: 3600, minute: 60, second: 1 }[unit as 'day' | 'hour' | 'minute' | 'second'];
    if (!(Math.abs(n * seconds) <= LAST_EPOCH - FIRST_EPOCH)) return () => sql`CAST(NULL AS timestamp)`;
    // Past years 0001-9999 the result is NULL (never an out-of-range error), however large N is.
    return (ts) => sql`(CASE WHEN date_part('epoch', ${ts}) + CAST(${param(n)} AS double precision) * ${{ text: String(seconds), params: [] }} BETWEEN ${{ text: String(FIRST_EPOCH), params: [] }} AND ${{ text: String(LAST_EPOCH), params: [] }} THEN ${ts} + CAST(${param(n)} AS double precision) * ${{ text: `interval '1 ${unit}'`, params: [] }} END)`;
  }
  const start = /^\s*start of (day|month|year)\s*$/i.exec(text);
  if (start !== null) {
    const unit = { text: `'${start[1].toLowerCase()}'`, params: [] };
    return (ts) => sql`date_trunc(${unit}, ${ts})`;
  }
  return null;
}

/** SQLite's format specifiers, as to_char patterns or expressions of the timestamp. */
const SPECIFIERS: Record<string, (ts: Frag) => Frag> = {
  d: (ts) => sql`to_char(${ts}, 'DD')`,
  e: (ts) => sql`lpad(to_char(${ts}, 'FMDD'), 2, ' ')`,
  f: (ts) => sql`to_char(${ts}, 'SS.MS')`,
  F: (ts) => sql`to_char(${ts}, 'YYYY-MM-DD')`,
  H: (ts) => sql`to_char(${ts}, 'HH24')`,
  I: (ts) => sql`to_char(${ts}, 'HH12')`,
  j: (ts) => sql`to_char(${ts}, 'DDD')`,
  k: (ts) => sql`lpad(to_char(${ts}, 'FMHH24'), 2, ' ')`,
  l: (ts) => sql`lpad(to_char(${ts}, 'FMHH12'), 2, ' ')`,
  m: (ts) => sql`to_char(${ts}, 'MM')`,
  M: (ts) => sql`to_char(${ts}, 'MI')`,
  p: (ts) => sql`to_char(${ts}, 'AM')`,
  P: (ts) => sql`lower(to_char(${ts}, 'AM'))`,
  R: (ts) => sql`to_char(${ts}, 'HH24:MI')`,
  s: (ts) => sql`CAST(CAST(floor(extract(epoch FROM ${ts})) AS bigint) AS text)`,
  S: (ts) => sql`to_char(${ts}, 'SS')`,
  T: (ts) => sql`to_char(${ts}, 'HH24:MI:SS')`,
  u: (ts) => sql`to_char(${ts}, 'ID')`,
  w: (ts) => sql`CAST(CAST(extract(dow FROM ${ts}) AS integer) AS text)`,
  Y: (ts) => sql`to_char(${ts}, 'YYYY')`,
};

/**
 * The format and modifiers → a builder of the SQL over the time value, or the reason they cannot be
 * written for PostgreSQL. `asText` reads a time operand as text (the dialect's).
 */
export function postgresStrftime(format: string, modifiers: readonly string[], asText: (o: TimeOperand) => Frag): StrftimeBuild | string {
  const pieces: ((ts: Frag) => Frag)[] = [];
  let literal = '';
  const flush = () => {
    if (literal === '') return;
    const text = param(literal);
    pieces.push(() => sql`CAST(${text} AS text)`);
    literal = '';
  };
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') {
      literal += format[i];
      continue;
    }
    const spec = format[++i];
    if (spec === '%') {
      literal += '%';
      continue;
    }
    const write = spec === undefined ? undefined : SPECIFIERS[spec];
    if (write === undefined) return `format ${JSON.stringify(`%${spec ?? ''}`)} is not supported on PostgreSQL`;
    flush();
    pieces.push(write);
  }
  flush();
  const steps: Modify[] = [];
  for (const text of modifiers) {
    const step = modifier(text);
    if (step === null) return `modifier ${JSON.stringify(text)} is not supported on PostgreSQL`;
    steps.push(step);
  }
  return (time) => {
    // Each step reads the previous one's result once, through a subquery, so the SQL grows linearly
    // with the modifiers (a step names its input several times).
    const ts = steps.reduce((at, step, i) => {
      const name = { text: `_s${i}`, params: [] };
      return sql`(SELECT ${step(sql`${name}.ts`)} FROM (SELECT ${at} AS ts OFFSET 0) AS ${name})`;
    }, timeOf(time, asText));
    // One timestamp, computed once per row, read by every piece; no time, no text (as on SQLite).
    const body = pieces.length === 0 ? sql`CAST('' AS text)` : joinFrags(pieces.map((p) => p(sql`_t.ts`)), ' || ');
    return sql`(SELECT CASE WHEN _t.ts IS NOT NULL THEN ${body} END FROM (SELECT ${ts} AS ts OFFSET 0) AS _t)`;
  };
}
