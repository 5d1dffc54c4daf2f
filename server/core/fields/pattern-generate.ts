// Random strings from a regex, for text `autogeneratePattern` (PocketBase's security.RandomStringByRegex).
// Supported: literals and escapes, `.`, classes `[a-z0-9_]` (negated ones pick printable ASCII), `\d \w \s`
// and their negations, groups `( )` / `(?: )` with `|`, quantifiers `? * + {n} {n,} {n,m}`; anchors are
// ignored. As in PocketBase, `.` picks from [A-Za-z0-9] and open repeats add at most 6 items.
import { randomInt } from 'node:crypto';

const MAX_OPEN_REPEAT = 6;
const MAX_REPEAT_COUNT = 1000; // Go's regexp/syntax limit

type Range = readonly [number, number];
type Node =
  | { kind: 'chars'; ranges: Range[] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

const r = (a: string, b: string = a): Range => [a.codePointAt(0) ?? 0, b.codePointAt(0) ?? 0];
const DIGIT: Range[] = [r('0', '9')];
const WORD: Range[] = [r('A', 'Z'), r('a', 'z'), r('0', '9'), r('_')];
const SPACE: Range[] = [r('\t', '\n'), r('\f', '\r'), r(' ')];
const ANY: Range[] = [r('A', 'Z'), r('a', 'z'), r('0', '9')];
const PRINTABLE: Range = [0x20, 0x7e];

/** Printable ASCII characters not covered by `ranges`. */
function complement(ranges: Range[]): Range[] {
  const out: Range[] = [];
  let start = PRINTABLE[0];
  for (let c = PRINTABLE[0]; c <= PRINTABLE[1] + 1; c++) {
    const inside = c <= PRINTABLE[1] && ranges.some(([lo, hi]) => c >= lo && c <= hi);
    if (inside || c > PRINTABLE[1]) {
      if (c > start) out.push([start, c - 1]);
      start = c + 1;
    }
  }
  return out;
}

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alt();
    if (this.pos < this.src.length) throw new Error(`unexpected ) at position ${this.pos}`);
    return node;
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  private alt(): Node {
    const options = [this.seq()];
    while (this.peek() === '|') {
      this.pos++;
      options.push(this.seq());
    }
    return options.length === 1 ? options[0] : { kind: 'alt', options };
  }

  private seq(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      const atom = this.atom();
      if (atom !== null) items.push(this.quantified(atom));
    }
    return { kind: 'seq', items };
  }

  private atom(): Node | null {
    const c = this.src[this.pos++];
    if (c === '^' || c === '$') return null;
    if (c === '.') return { kind: 'chars', ranges: ANY };
    if (c === '[') return { kind: 'chars', ranges: this.charClass() };
    if (c === '\\') return this.escape(false);
    if (c === '(') return this.group();
    if ('*+?'.includes(c)) throw new Error(`missing argument to repetition operator: ${c}`);
    return { kind: 'chars', ranges: [this.literal()] };
  }

  /** The character just consumed, taking the second half of a surrogate pair along. */
  private literal(): Range {
    const code = this.src.codePointAt(this.pos - 1) ?? 0;
    if (code > 0xffff) this.pos++;
    return [code, code];
  }

  private group(): Node {
    if (this.src.startsWith('?:', this.pos)) this.pos += 2;
    else if (this.peek() === '?') throw new Error('unsupported group flags');
    const node = this.alt();
    if (this.src[this.pos++] !== ')') throw new Error('missing closing )');
    return node;
  }

  /** An escape after `\`; inside a class only character sets and literals make sense. */
  private escape(inClass: boolean): Node | null {
    const c = this.src[this.pos++];
    if (c === undefined) throw new Error('trailing backslash at end of expression');
    const sets: Record<string, Range[]> = { d: DIGIT, w: WORD, s: SPACE };
    if (c in sets) return { kind: 'chars', ranges: sets[c] };
    if (c.toLowerCase() in sets) return { kind: 'chars', ranges: complement(sets[c.toLowerCase()]) };
    if (!inClass && 'bBAzZ'.includes(c)) return null; // anchors
    const controls: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v' };
    if (c in controls) return { kind: 'chars', ranges: [r(controls[c])] };
    if (c === 'x' || c === 'u') return { kind: 'chars', ranges: [this.hexChar(c === 'x' ? 2 : 4)] };
    if (/[a-zA-Z0-9]/.test(c)) throw new Error(`invalid escape sequence: \\${c}`);
    return { kind: 'chars', ranges: [r(c)] };
  }

  private hexChar(digits: number): Range {
    const hex = this.src.slice(this.pos, this.pos + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) throw new Error('invalid hex escape');
    this.pos += digits;
    const code = parseInt(hex, 16);
    return [code, code];
  }

  private charClass(): Range[] {
    const negated = this.peek() === '^';
    if (negated) this.pos++;
    const ranges: Range[] = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      const lo = this.classItem();
      if (lo === null) throw new Error('missing closing ]');
      if (lo.length === 1 && this.peek() === '-' && this.src[this.pos + 1] !== ']' && this.pos + 1 < this.src.length) {
        this.pos++;
        const hi = this.classItem();
        if (hi === null || hi.length !== 1 || hi[0][0] < lo[0][0]) throw new Error('invalid character class range');
        ranges.push([lo[0][0], hi[0][0]]);
      } else {
        ranges.push(...lo);
      }
    }
    this.pos++; // ]
    const result = negated ? complement(ranges) : ranges;
    if (result.length === 0) throw new Error('empty character class');
    return result;
  }

  private classItem(): Range[] | null {
    const c = this.src[this.pos++];
    if (c === undefined) return null;
    if (c !== '\\') return [this.literal()];
    const node = this.escape(true);
    return node !== null && node.kind === 'chars' ? node.ranges : null;
  }

  private quantified(atom: Node): Node {
    let node = atom;
    for (let q = this.quantifier(); q !== null; q = this.quantifier()) {
      node = { kind: 'repeat', node, min: q[0], max: q[1] };
      if (this.peek() === '?') this.pos++; // lazy: same strings
    }
    return node;
  }

  private quantifier(): [number, number] | null {
    const c = this.peek();
    if (c === '?' || c === '*' || c === '+') {
      this.pos++;
      return c === '?' ? [0, 1] : [c === '+' ? 1 : 0, MAX_OPEN_REPEAT];
    }
    const m = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos)) : null;
    if (m === null) return null;
    this.pos += m[0].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? min + MAX_OPEN_REPEAT : Number(m[3]);
    if (min > MAX_REPEAT_COUNT || max > MAX_REPEAT_COUNT || max < min) throw new Error(`invalid repeat count: ${m[0]}`);
    return [min, max];
  }
}

function pick(ranges: Range[]): string {
  const total = ranges.reduce((n, [lo, hi]) => n + hi - lo + 1, 0);
  let i = randomInt(total);
  for (const [lo, hi] of ranges) {
    if (i <= hi - lo) return String.fromCodePoint(lo + i);
    i -= hi - lo + 1;
  }
  throw new Error('empty character class');
}

function write(node: Node, out: string[]): void {
  switch (node.kind) {
    case 'chars':
      out.push(pick(node.ranges));
      return;
    case 'seq':
      for (const item of node.items) write(item, out);
      return;
    case 'alt':
      write(node.options[randomInt(node.options.length)], out);
      return;
    case 'repeat': {
      const times = node.min + randomInt(node.max - node.min + 1);
      for (let i = 0; i < times; i++) write(node.node, out);
      return;
    }
  }
}

/** A random string matching `pattern` (throws with a parser message when the pattern is unsupported). */
export function generateFromPattern(pattern: string): string {
  const out: string[] = [];
  write(new Parser(pattern).parse(), out);
  return out.join('');
}
