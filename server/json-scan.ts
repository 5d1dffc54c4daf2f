// The structure of a JSON text on its raw bytes, without parsing it: the brackets, commas and colons
// outside strings, found in one linear pass fed in chunks as they arrive (a string may span chunks).
// String contents are skipped with a native search for the next quote, and whether that quote is
// escaped is decided by the parity of the backslashes before it, so nothing is scanned twice. Says
// nothing about validity: JSON.parse decides that afterwards. Used by the body shape check
// (http/body-shape.ts) and the records import's array items (core/transfer/json-rows.ts).

export const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;

export class JsonScanner {
  private inside = false;
  /** Backslashes that end the string content read so far (their parity says if a quote is escaped). */
  private backslashes = 0;

  /** Whether the text read so far ends inside a string. */
  get inString(): boolean {
    return this.inside;
  }

  /**
   * The index in `chunk` of the first `{`, `}`, `[`, `]`, `,` or `:` outside a string at or after
   * `from`, or -1 when the chunk holds no more (the state carries over to the next chunk).
   */
  next(chunk: Uint8Array, from: number): number {
    const n = chunk.length;
    let i = from;
    while (i < n) {
      if (this.inside) {
        // only the quotes matter inside a string, and whether the backslashes just before one are odd
        const quote = chunk.indexOf(QUOTE, i);
        const until = quote === -1 ? n : quote;
        let k = until - 1;
        while (k >= i && chunk[k] === BACKSLASH) k--;
        const run = until - 1 - k + (k < i ? this.backslashes : 0);
        if (quote === -1) {
          this.backslashes = run;
          return -1;
        }
        this.backslashes = 0;
        if (run % 2 === 0) this.inside = false;
        i = quote + 1;
        continue;
      }
      const c = chunk[i];
      if (c === QUOTE) this.inside = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === COMMA || c === COLON) return i;
      i++;
    }
    return -1;
  }
}
