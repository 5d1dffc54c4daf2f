// A request's headers read straight from node's `rawHeaders`, exactly as the web Headers the app builds
// from them (srvx; fast-reads.ts `webHeaders`) reads them, without building one: the fast reads used to
// make a web Headers for every request (undici validates each header as it is appended) and walk it
// twice more (the read cache's key and the rule-visible headers), undici sorting its entries again on
// every walk. Here nothing is copied until it is asked for, and the sorted list is made at most once.
//
// As the web Headers: names compare case-insensitively and are listed in lower case, in order of name
// (code units, stable); the values of one name are joined with `, ` in the order received (`cookie`'s
// with `; `; each `set-cookie` stays its own entry); HTTP/2 pseudo-headers (`:path`) are not headers. Values are as node
// parsed them (the surrounding whitespace the web Headers would trim is already gone).

/** What the fast paths read of a request's headers: one value by name, and all of them in order. */
export interface HeaderReader extends Iterable<[string, string]> {
  /** The value of `name` (lower case), its repeats joined as above; null when absent. */
  get(name: string): string | null;
}

export class RawHeaders implements HeaderReader {
  private sorted: [string, string][] | undefined;

  constructor(private readonly raw: readonly string[]) {}

  get(name: string): string | null {
    const raw = this.raw;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i];
      if (n.length !== name.length || (n !== name && n.toLowerCase() !== name)) continue;
      value = value === null ? raw[i + 1] : `${value}${name === 'cookie' ? '; ' : ', '}${raw[i + 1]}`;
    }
    return value;
  }

  [Symbol.iterator](): Iterator<[string, string]> {
    return this.list()[Symbol.iterator]();
  }

  /** Every header once, as the web Headers iterates them (see above). */
  list(): readonly [string, string][] {
    if (this.sorted !== undefined) return this.sorted;
    const raw = this.raw;
    const pairs: [string, string][] = [];
    for (let i = 0; i < raw.length; i += 2) if (raw[i].charCodeAt(0) !== 58) pairs.push([raw[i].toLowerCase(), raw[i + 1]]);
    pairs.sort(byName);
    const out: [string, string][] = [];
    for (const pair of pairs) {
      const last = out.length === 0 ? undefined : out[out.length - 1];
      if (last !== undefined && last[0] === pair[0] && pair[0] !== 'set-cookie') last[1] = `${last[1]}${pair[0] === 'cookie' ? '; ' : ', '}${pair[1]}`;
      else out.push(pair);
    }
    this.sorted = out;
    return out;
  }
}

function byName(a: [string, string], b: [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}
