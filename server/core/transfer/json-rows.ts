// The top-level items of a JSON array (and NDJSON's lines), each as its own text, found in one linear
// pass over the bytes (json-scan.ts: strings and their escapes skipped, brackets counted), so a large
// import parses item by item between turns of the event loop instead of in one JSON.parse of the whole
// body, and decodes each item's bytes only when it is reached.
import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, JsonScanner, OPEN_ARRAY, OPEN_OBJECT } from '../../json-scan.js';

const BOM = [0xef, 0xbb, 0xbf];

/** Yields each item's text; throws where the bytes are not an array of complete items. */
export function* jsonArrayItems(body: Uint8Array): Generator<string> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const scanner = new JsonScanner();
  const bom = BOM.every((b, i) => bytes[i] === b) ? BOM.length : 0;
  const open = scanner.next(bytes, bom);
  if (open === -1 || bytes[open] !== OPEN_ARRAY || !blank(bytes, bom, open)) throw new Error('expected a JSON array');
  let start = open + 1;
  let depth = 0;
  for (let i = scanner.next(bytes, start); ; i = scanner.next(bytes, i + 1)) {
    if (i === -1) throw new Error(scanner.inString ? 'unterminated string in the JSON array' : 'the JSON array is not closed');
    const c = bytes[i];
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && depth > 0) depth--;
    else if (c === COMMA && depth === 0) {
      yield bytes.toString('utf8', start, i);
      start = i + 1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      // the array's end: an empty array yields nothing, else the last item
      if (!(blank(bytes, start, i) && start === open + 1)) yield bytes.toString('utf8', start, i);
      if (!blank(bytes, i + 1, bytes.length)) throw new Error('unexpected text after the JSON array');
      return;
    }
  }
}

/** Whether bytes[from, to) are JSON white space only. */
function blank(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  }
  return true;
}

/** The non-blank lines of NDJSON, one at a time (a split of 64 MiB of short lines would hold millions of strings at once). */
export function* ndjsonLines(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    if (line.trim() !== '') yield line;
    start = end === -1 ? text.length : end + 1;
  }
}
