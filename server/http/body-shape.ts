// Bounds on the shape of a request body, checked on the raw bytes before anything parses them: the
// parse is the costly part (JSON.parse of 30 MB holding 2.4 million keys took 2 s of the one event
// loop), so a body that would be too costly to parse is refused while it is still arriving.
import { badRequest } from '../errors.js';

/** Nesting of JSON arrays and objects. */
export const MAX_JSON_DEPTH = 64;
/** Object members in one JSON body, and entries in one form body (urlencoded or multipart). */
export const MAX_BODY_KEYS = 20_000;
/** Values in one JSON body: object members plus array elements. */
export const MAX_JSON_VALUES = 200_000;

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;

const tooComplex = (what: string) =>
  badRequest(`The request body is too complex to process (${what}).`);

/**
 * Counts the structure of a JSON text fed in chunks as they arrive (strings may span chunks) and throws
 * a 400 as soon as it passes a bound. Linear in the bytes: string contents are skipped with a native
 * search for the next quote, never re-scanned. Says nothing about validity: JSON.parse decides that afterwards.
 */
export class JsonShape {
  private inString = false;
  /** Backslashes that end the string content read so far (their parity says if a quote is escaped). */
  private backslashes = 0;
  private depth = 0;
  private keys = 0;
  private values = 0;

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.inString) {
        // only the quotes matter inside a string, and whether the backslashes just before one are odd
        const quote = chunk.indexOf(QUOTE, i);
        const until = quote === -1 ? n : quote;
        let k = until - 1;
        while (k >= i && chunk[k] === BACKSLASH) k--;
        const run = until - 1 - k + (k < i ? this.backslashes : 0);
        if (quote === -1) {
          this.backslashes = run;
          return;
        }
        this.backslashes = 0;
        if (run % 2 === 0) this.inString = false;
        i = quote + 1;
        continue;
      }
      const c = chunk[i++];
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (++this.depth > MAX_JSON_DEPTH) throw tooComplex(`nested deeper than ${MAX_JSON_DEPTH} levels`);
        this.values++; // a first element or member has no comma before it
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth--;
      else if (c === COMMA) this.values++;
      else if (c === COLON && ++this.keys > MAX_BODY_KEYS) throw tooComplex(`more than ${MAX_BODY_KEYS} keys`);
      if (this.values > MAX_JSON_VALUES) throw tooComplex(`more than ${MAX_JSON_VALUES} values`);
    }
  }
}

/** Throws a 400 when `bytes` holds more than MAX_BODY_KEYS occurrences of `separator` (native searches, early stop). */
export function checkEntryCount(bytes: Uint8Array, separator: Uint8Array | number): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const step = typeof separator === 'number' ? 1 : separator.length;
  let count = 0;
  for (let at = buffer.indexOf(separator); at !== -1; at = buffer.indexOf(separator, at + step)) {
    if (++count > MAX_BODY_KEYS) throw tooComplex(`more than ${MAX_BODY_KEYS} form fields`);
  }
}
