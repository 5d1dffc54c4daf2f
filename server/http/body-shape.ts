// Bounds on the shape of a request body, checked on the raw bytes before anything parses them: the
// parse is the costly part (seconds of the one event loop for a body of millions of keys), so a body that would be too costly to parse is refused while it is still arriving.
import { badRequest } from '../errors.js';
import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, JsonScanner, OPEN_ARRAY, OPEN_OBJECT } from '../json-scan.js';

/** Nesting of JSON arrays and objects. */
export const MAX_JSON_DEPTH = 64;
/** Object members in one JSON body, and entries in one form body (urlencoded or multipart). */
export const MAX_BODY_KEYS = 20_000;
/** Values in one JSON body: object members plus array elements. */
export const MAX_JSON_VALUES = 200_000;

const tooComplex = (what: string) =>
  badRequest(`The request body is too complex to process (${what}).`);

/**
 * Counts the structure of a JSON text fed in chunks as they arrive (json-scan.ts finds it) and throws a
 * 400 as soon as it passes a bound. Linear in the bytes. Says nothing about validity: JSON.parse decides
 * that afterwards.
 */
export class JsonShape {
  private readonly scanner = new JsonScanner();
  private depth = 0;
  private keys = 0;
  private values = 0;

  push(chunk: Uint8Array): void {
    for (let i = this.scanner.next(chunk, 0); i !== -1; i = this.scanner.next(chunk, i + 1)) {
      const c = chunk[i];
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
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
