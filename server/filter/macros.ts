// Datetime macros (`@now`, `@todayStart`, `@month`...), resolved in UTC when the filter is compiled and
// bound as parameters. Datetimes are ISO 8601 `YYYY-MM-DDTHH:MM:SS.mmmZ`, the format Deskbase stores,
// so comparisons with stored dates are plain text comparisons.
import type { SqlValue } from './sql.js';

const DAY = 24 * 60 * 60 * 1000;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const MACROS: Record<string, (now: Date) => SqlValue> = {
  '@now': (now) => now.toISOString(),
  '@yesterday': (now) => iso(now.getTime() - DAY),
  '@tomorrow': (now) => iso(now.getTime() + DAY),
  '@todayStart': (now) => iso(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())),
  '@todayEnd': (now) => iso(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 23, 59, 59, 999)),
  '@monthStart': (now) => iso(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
  // Day 0 of the next month is the last day of this one.
  '@monthEnd': (now) => iso(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0, 23, 59, 59, 999)),
  '@yearStart': (now) => iso(Date.UTC(now.getUTCFullYear(), 0, 1)),
  '@yearEnd': (now) => iso(Date.UTC(now.getUTCFullYear(), 11, 31, 23, 59, 59, 999)),
  '@second': (now) => now.getUTCSeconds(),
  '@minute': (now) => now.getUTCMinutes(),
  '@hour': (now) => now.getUTCHours(),
  '@day': (now) => now.getUTCDate(),
  '@month': (now) => now.getUTCMonth() + 1,
  '@weekday': (now) => now.getUTCDay(),
  '@year': (now) => now.getUTCFullYear(),
};

/** The macro's value at `now`, or undefined when `name` is not a macro. */
export function macroValue(name: string, now: Date): SqlValue | undefined {
  return Object.hasOwn(MACROS, name) ? MACROS[name](now) : undefined;
}
