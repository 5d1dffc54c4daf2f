// Hand-written scanner for the filter language (PocketBase's fexpr lexical grammar). It hands out one
// token at a time, so the parser can stop at the first error or limit without scanning the rest, and it
// is linear in the input: no regular expressions, no backtracking.
import { FilterError, describeSource } from './filter-error.js';
import { SIGN_OPS, type SignOp } from './ast.js';

export type TokenKind =
  | 'identifier' | 'number' | 'text' | 'placeholder' | 'sign' | 'join' | 'lparen' | 'rparen' | 'comma' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Identifier/sign/join text, unescaped text content, number digits, placeholder name. */
  value: string;
  /** 0-based offset of the first character. */
  pos: number;
  /** Offset just past the last character. */
  end: number;
}

export interface LexerOptions {
  /** Accept `{:name}` placeholders (server-side filters only; a client filter has no binding). */
  placeholders?: boolean;
}

const SIGNS = new Set<string>(SIGN_OPS);

function isLetter(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
function isIdentStart(c: string): boolean {
  return isLetter(c) || c === '_' || c === '@' || c === '#';
}
function isIdentPart(c: string): boolean {
  return isLetter(c) || isDigit(c) || c === '_' || c === '.' || c === ':';
}
function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

export class Lexer {
  private i = 0;

  constructor(
    private readonly src: string,
    private readonly options: LexerOptions = {},
  ) {}

  /** The character right after the previous token (a function call needs `name(` with no space). */
  charAt(offset: number): string {
    return this.src[offset] ?? '';
  }

  next(): Token {
    this.skipSpaceAndComments();
    const src = this.src;
    const start = this.i;
    if (start >= src.length) return { kind: 'eof', value: '', pos: start, end: start };
    const c = src[start];
    if (isIdentStart(c)) return this.identifier();
    if (isDigit(c) || c === '-') return this.number();
    if (c === "'" || c === '"') return this.text(c);
    if (c === '(' || c === ')' || c === ',') {
      this.i++;
      const kind = c === '(' ? 'lparen' : c === ')' ? 'rparen' : 'comma';
      return { kind, value: c, pos: start, end: this.i };
    }
    if (c === '&' || c === '|') return this.join(c);
    if (c === '{' && this.options.placeholders === true) return this.placeholder();
    if ('=!<>~?'.includes(c)) return this.sign();
    throw new FilterError('invalid character', start, describeSource(c));
  }

  private skipSpaceAndComments(): void {
    const src = this.src;
    for (;;) {
      while (this.i < src.length && isSpace(src[this.i])) this.i++;
      if (src[this.i] !== '/') return;
      if (src[this.i + 1] !== '/') throw new FilterError('invalid comment', this.i);
      const nl = src.indexOf('\n', this.i);
      this.i = nl === -1 ? src.length : nl + 1;
    }
  }

  private identifier(): Token {
    const src = this.src;
    const start = this.i;
    this.i++;
    while (this.i < src.length && isIdentPart(src[this.i])) this.i++;
    const value = src.slice(start, this.i);
    const last = value[value.length - 1];
    // PocketBase refuses a lone special start character and a trailing separator.
    if (value === '@' || value === '#' || last === '.' || last === ':') {
      throw new FilterError('invalid identifier', start, describeSource(value));
    }
    return { kind: 'identifier', value, pos: start, end: this.i };
  }

  private number(): Token {
    const src = this.src;
    const start = this.i;
    if (src[this.i] === '-') this.i++;
    const digitsStart = this.i;
    let dots = 0;
    while (this.i < src.length && (isDigit(src[this.i]) || src[this.i] === '.')) {
      if (src[this.i] === '.') dots++;
      this.i++;
    }
    const body = src.slice(digitsStart, this.i);
    if (body === '' || dots > 1 || body.startsWith('.') || body.endsWith('.')) {
      throw new FilterError('invalid number', start, describeSource(src.slice(start, Math.max(this.i, start + 1))));
    }
    return { kind: 'number', value: src.slice(start, this.i), pos: start, end: this.i };
  }

  /** Only the quote that opened the text can be escaped; any other backslash is kept as is. */
  private text(quote: string): Token {
    const src = this.src;
    const start = this.i;
    let out = '';
    let chunk = start + 1;
    let j = start + 1;
    for (;;) {
      const q = src.indexOf(quote, j);
      if (q === -1) throw new FilterError('unterminated text', start);
      if (src[q - 1] === '\\' && q - 1 >= chunk) {
        out += src.slice(chunk, q - 1) + quote;
        chunk = q + 1;
        j = q + 1;
        continue;
      }
      out += src.slice(chunk, q);
      this.i = q + 1;
      return { kind: 'text', value: out, pos: start, end: this.i };
    }
  }

  private join(c: string): Token {
    const start = this.i;
    if (this.src[start + 1] !== c) throw new FilterError('invalid join operator', start, describeSource(c));
    this.i += 2;
    return { kind: 'join', value: c + c, pos: start, end: this.i };
  }

  private sign(): Token {
    const start = this.i;
    // Longest match first: `?!=` before `?!`, `>=` before `>`.
    for (const len of [3, 2, 1]) {
      const candidate = this.src.slice(start, start + len);
      if (candidate.length === len && SIGNS.has(candidate)) {
        this.i += len;
        return { kind: 'sign', value: candidate as SignOp, pos: start, end: this.i };
      }
    }
    throw new FilterError('invalid sign operator', start, describeSource(this.src.slice(start, start + 3)));
  }

  private placeholder(): Token {
    const src = this.src;
    const start = this.i;
    if (src[start + 1] !== ':') throw new FilterError('invalid placeholder', start);
    let j = start + 2;
    while (j < src.length && (isLetter(src[j]) || isDigit(src[j]) || src[j] === '_')) j++;
    if (j === start + 2 || src[j] !== '}') throw new FilterError('invalid placeholder', start);
    this.i = j + 1;
    return { kind: 'placeholder', value: src.slice(start + 2, j), pos: start, end: this.i };
  }
}
