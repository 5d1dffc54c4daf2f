// SQLite's `text LIKE pattern ESCAPE '\'` in JavaScript, for the rows where SQLite's own LIKE could run
// too long to be left alone (guard.ts). Same answers: ASCII-only case folding, `_` is one character,
// `%` any run of characters, `\` makes the next character literal, a pattern ending in a lone `\`
// matches nothing, and both strings end at a NUL as C strings do. Found segment by segment: each run of
// the pattern between `%` signs is placed at its leftmost match after the previous one (the first at
// the start, the last at the end), which finds a match whenever one exists. Runs without `_` are found
// with indexOf, linear in the text; the others by trying each position, calling `tick` every few
// thousand steps so a deadline can stop it.

const ONE = 0;
/** A run of the pattern: literal texts (ASCII-folded) and ONE for each `_`. */
type Segment = (string | typeof ONE)[];

interface Pattern {
  segments: Segment[];
  /** The first segment must match at the start, the last at the end (no `%` there). */
  anchoredStart: boolean;
  anchoredEnd: boolean;
}

const TICK_EVERY = 4096;
const FOLD_CHUNK = 8192;
const NON_ASCII = /[^\x00-\x7f]/;

/** Null when either side is NULL, as in SQL. */
export function likeMatches(text: unknown, pattern: unknown, tick: () => void): boolean | null {
  if (text === null || text === undefined || pattern === null || pattern === undefined) return null;
  // unlike SQLite, any pattern length: a pattern read from a column past SQLite's limit comes here
  const parsed = parse(cut(asText(pattern)));
  if (parsed === null) return false;
  return matches(fold(cut(asText(text)), tick), parsed, tick);
}

// Only texts reach here (guard.ts routes values of at least 64 bytes); a blob is read as UTF-8 text.
function asText(value: unknown): string {
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  return String(value);
}

function cut(s: string): string {
  const nul = s.indexOf('\0');
  return nul === -1 ? s : s.slice(0, nul);
}

/** ASCII A-Z → a-z, nothing else (SQLite's LIKE folds no other letter). */
function fold(s: string, tick: () => void): string {
  const first = s.search(/[A-Z]/);
  if (first === -1) return s;
  // toLowerCase is native and, on ASCII, folds exactly A-Z
  if (!NON_ASCII.test(s)) return s.toLowerCase();
  const parts = [s.slice(0, first)];
  const buf = new Uint16Array(FOLD_CHUNK);
  for (let start = first; start < s.length; start += FOLD_CHUNK) {
    const end = Math.min(s.length, start + FOLD_CHUNK);
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      buf[i - start] = c >= 65 && c <= 90 ? c + 32 : c;
    }
    parts.push(String.fromCharCode(...buf.subarray(0, end - start)));
    tick();
  }
  return parts.join('');
}

/** The code point at `i` as a string (a surrogate pair stays whole). */
function charAt(s: string, i: number): string {
  const c = s.codePointAt(i);
  return c === undefined ? '' : String.fromCodePoint(c);
}

function parse(p: string): Pattern | null {
  const pieces: Segment[] = [[]];
  let literal = '';
  const flush = () => {
    if (literal !== '') pieces[pieces.length - 1].push(literal);
    literal = '';
  };
  for (let i = 0; i < p.length;) {
    const c = charAt(p, i);
    i += c.length;
    if (c === '%') {
      flush();
      pieces.push([]);
    } else if (c === '_') {
      flush();
      pieces[pieces.length - 1].push(ONE);
    } else if (c === '\\') {
      if (i >= p.length) return null;
      const escaped = charAt(p, i);
      i += escaped.length;
      literal += foldChar(escaped);
    } else {
      literal += foldChar(c);
    }
  }
  flush();
  if (pieces.length === 1) return { segments: pieces, anchoredStart: true, anchoredEnd: true };
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter((s) => s.length > 0);
  return {
    segments: [...(first.length > 0 ? [first] : []), ...middle, ...(last.length > 0 ? [last] : [])],
    anchoredStart: first.length > 0,
    anchoredEnd: last.length > 0,
  };
}

function foldChar(c: string): string {
  const code = c.charCodeAt(0);
  return c.length === 1 && code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : c;
}

function matches(t: string, pattern: Pattern, tick: () => void): boolean {
  const { segments, anchoredStart, anchoredEnd } = pattern;
  if (anchoredStart && anchoredEnd && segments.length === 1) return matchAt(segments[0], t, 0) === t.length;
  let pos = 0;
  let from = 0;
  let to = segments.length;
  if (anchoredStart) {
    pos = matchAt(segments[0], t, 0);
    if (pos === -1) return false;
    from = 1;
  }
  if (anchoredEnd) to--;
  const steps = { n: 0, tick };
  for (let i = from; i < to; i++) {
    pos = find(segments[i], t, pos, steps);
    if (pos === -1) return false;
  }
  if (!anchoredEnd) return true;
  const last = segments[segments.length - 1];
  const start = startOfSuffix(t, last);
  return start >= pos && matchAt(last, t, start) === t.length;
}

/** Where `segment` ends when it matches at `at`, or -1. */
function matchAt(segment: Segment, t: string, at: number): number {
  let p = at;
  for (const part of segment) {
    if (part === ONE) {
      if (p >= t.length) return -1;
      p += charAt(t, p).length;
    } else {
      if (!t.startsWith(part, p)) return -1;
      p += part.length;
    }
  }
  return p;
}

/** The end of the leftmost match of `segment` at or after `from`, or -1. */
function find(segment: Segment, t: string, from: number, steps: { n: number; tick: () => void }): number {
  const head = segment[0];
  if (segment.length === 1 && head !== ONE) {
    const at = t.indexOf(head, from);
    return at === -1 ? -1 : at + head.length;
  }
  for (let at = from; at < t.length; ) {
    // jump to the next place the segment's leading literal occurs
    if (head !== ONE) {
      at = t.indexOf(head, at);
      if (at === -1) return -1;
    }
    const end = matchAt(segment, t, at);
    if (end !== -1) return end;
    steps.n += segment.length;
    if (steps.n >= TICK_EVERY) {
      steps.n = 0;
      steps.tick();
    }
    at += charAt(t, at).length || 1;
  }
  return -1;
}

/** Where a suffix matching `segment` (a fixed number of characters) must start, or -1. */
function startOfSuffix(t: string, segment: Segment): number {
  let chars = 0;
  for (const part of segment) chars += part === ONE ? 1 : [...part].length;
  let at = t.length;
  for (; chars > 0 && at > 0; chars--) {
    const low = t.charCodeAt(at - 1);
    const high = at >= 2 ? t.charCodeAt(at - 2) : 0;
    at -= low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1;
  }
  return chars > 0 ? -1 : at;
}
