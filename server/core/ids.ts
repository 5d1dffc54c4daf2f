// Identifiers, tokens and timestamps are made here, in JavaScript, and bound as parameters: journal
// replay must be deterministic, so SQL never calls random() or 'now'.
import { randomBytes, randomFillSync, createHash } from 'node:crypto';

const ALPHANUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Random bytes from the CSPRNG, drawn 4 KiB at a time: ids take a few each (randomInt per character cost 0.5 µs an id, now 0.2). */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
/** 252 = 7 × 36: a byte at or past it is skipped, so each character is uniform over the 36. */
const UNBIASED = 256 - (256 % ALPHANUM.length);

/** 15 characters from a-z0-9, the shape of record and collection ids. */
export function newId(length = 15): string {
  let out = '';
  while (out.length < length) {
    if (poolAt === pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const byte = pool[poolAt++];
    if (byte < UNBIASED) out += ALPHANUM[byte % ALPHANUM.length];
  }
  return out;
}

export const ID_PATTERN = /^[a-z0-9]{15}$/;

/** 36^8 µs (about 32.6 days): the time part wraps past it, staying 8 characters. */
const TIME_SPAN = 36 ** 8;
/** The last time (µs) a timeOrderedId was made from, in this process. */
let lastMicros = 0;

/**
 * An id of newId's shape whose first 8 characters are the time in µs (base 36, strictly increasing in
 * this process between wraps, every 32.6 days) and whose last 7 are random: ids made one after another
 * sort in the order they were made, so a B-tree index on them grows at one place (its end, or after a
 * wrap its start) instead of touching a page at random for each new row (the logs' ids, tens of
 * thousands a minute under load: logs/logger.ts). Two processes (a team server's nodes, one `_logs`)
 * collide only on the same µs and the same 7 random characters (one in 78 billion).
 */
export function timeOrderedId(): string {
  let micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  if (micros <= lastMicros) micros = lastMicros + 1;
  lastMicros = micros;
  return (micros % TIME_SPAN).toString(36).padStart(8, '0') + newId(7);
}

/** 32 random bytes in base64url: 43 characters. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only a token's SHA-256 is stored, so a copy of the database does not hold live sessions. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** ISO 8601 with milliseconds, UTC: sorts as text. The last one made is kept (a Date and its text cost ~1 µs; writes often share a millisecond). */
export function isoNow(now = Date.now()): string {
  if (now !== lastIso.at) lastIso = { at: now, text: new Date(now).toISOString() };
  return lastIso.text;
}

let lastIso = { at: Number.NaN, text: '' };

/** ID_PATTERN in SQL: true for a value of `column` that does not match it (checks over whole tables). */
export function mismatchedIdSql(column: string): string {
  return `(typeof(${column}) != 'text' OR length(${column}) != 15 OR ${column} GLOB '*[^a-z0-9]*')`;
}
