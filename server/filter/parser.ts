// Parser: tokens → a tree of groups (see ast.ts). Groups are handled with an explicit stack, so ten
// thousand opening brackets cost a depth check, not ten thousand stack frames; only function calls
// recurse, and they are capped at MAX_FUNCTION_DEPTH. Expression and nesting limits are checked as the
// tokens arrive, so hostile input fails at the first token past a limit.
import { FilterError, describeSource } from './filter-error.js';
import { Lexer, type Token } from './lexer.js';
import type { Expr, Group, JoinOp, Operand, SignOp } from './ast.js';
import { MAX_EXPRESSIONS, MAX_FUNCTION_ARGS, MAX_FUNCTION_DEPTH, MAX_NESTING_DEPTH } from './limits.js';

export interface ParseOptions {
  /** Accept `{:name}` placeholders (server-side filters only). */
  placeholders?: boolean;
  /** Refuse longer sources (client filters: MAX_FILTER_LENGTH). */
  maxLength?: number;
}

const OPERAND_KINDS = 'identifier, function, text or number';

function describe(tok: Token, src: string): string {
  return tok.kind === 'eof' ? 'end of input' : describeSource(src.slice(tok.pos, tok.end));
}

/** Parses a whole filter or rule. Throws FilterError (with position) on any syntax error or limit. */
export function parseFilter(src: string, options: ParseOptions = {}): Group {
  if (options.maxLength !== undefined && src.length > options.maxLength) {
    throw new FilterError(`filter is too long (max ${options.maxLength} characters)`, options.maxLength);
  }
  return new Parser(src, new Lexer(src, { placeholders: options.placeholders })).parse();
}

class Parser {
  private expressions = 0;

  constructor(
    private readonly src: string,
    private readonly lexer: Lexer,
  ) {}

  parse(): Group {
    const root: Group = { kind: 'group', items: [], pos: 0 };
    const stack: Group[] = [root];
    let join: JoinOp = '&&';
    let expectItem = true;
    for (;;) {
      const tok = this.lexer.next();
      const current = stack[stack.length - 1];
      if (expectItem) {
        if (tok.kind === 'lparen') {
          if (stack.length > MAX_NESTING_DEPTH) {
            throw new FilterError(`too deeply nested groups (max ${MAX_NESTING_DEPTH})`, tok.pos);
          }
          const group: Group = { kind: 'group', items: [], pos: tok.pos };
          current.items.push({ join, node: group });
          stack.push(group);
          join = '&&';
          continue;
        }
        if (tok.kind === 'eof' && root.items.length === 0 && stack.length === 1) {
          throw new FilterError('empty filter expression', tok.pos);
        }
        if (tok.kind === 'rparen' && stack.length > 1 && current.items.length === 0) {
          throw new FilterError('empty group', current.pos);
        }
        if (tok.kind === 'eof') throw new FilterError('invalid or incomplete filter expression', tok.pos);
        current.items.push({ join, node: this.expr(tok) });
        expectItem = false;
        continue;
      }
      if (tok.kind === 'join') {
        join = tok.value as JoinOp;
        expectItem = true;
      } else if (tok.kind === 'rparen') {
        if (stack.length === 1) throw new FilterError('unexpected closing bracket', tok.pos);
        stack.pop();
      } else if (tok.kind === 'eof') {
        if (stack.length > 1) {
          const missing = stack.length - 1;
          throw new FilterError(`invalid formatted group - missing ${missing} closing bracket(s)`, tok.pos);
        }
        return root;
      } else {
        throw new FilterError('expected && or ||', tok.pos, describe(tok, this.src));
      }
    }
  }

  private expr(first: Token): Expr {
    if (++this.expressions > MAX_EXPRESSIONS) {
      throw new FilterError(`too many expressions (max ${MAX_EXPRESSIONS})`, first.pos);
    }
    const left = this.operand(first, 'left');
    const opTok = this.lexer.next();
    if (opTok.kind !== 'sign') throw new FilterError('expected a sign operator', opTok.pos, describe(opTok, this.src));
    const right = this.operand(this.lexer.next(), 'right');
    return { kind: 'expr', left, op: opTok.value as SignOp, right, pos: first.pos };
  }

  private operand(tok: Token, side: 'left' | 'right'): Operand {
    const operand = this.tryOperand(tok, 1);
    if (operand === null) {
      throw new FilterError(`expected ${side} operand (${OPERAND_KINDS})`, tok.pos, describe(tok, this.src));
    }
    return operand;
  }

  private tryOperand(tok: Token, depth: number): Operand | null {
    switch (tok.kind) {
      case 'identifier':
        return this.lexer.charAt(tok.end) === '(' ? this.call(tok, depth) : { kind: 'identifier', name: tok.value, pos: tok.pos };
      case 'number':
        return { kind: 'number', value: Number(tok.value), pos: tok.pos };
      case 'text':
        return { kind: 'text', value: tok.value, pos: tok.pos };
      case 'placeholder':
        return { kind: 'placeholder', name: tok.value, pos: tok.pos };
      default:
        return null;
    }
  }

  /** `name(arg, ...)`: arguments are identifiers, numbers, texts or nested calls; one trailing comma is fine. */
  private call(nameTok: Token, depth: number): Operand {
    if (depth > MAX_FUNCTION_DEPTH) {
      throw new FilterError(`too deeply nested function calls (max ${MAX_FUNCTION_DEPTH})`, nameTok.pos);
    }
    this.lexer.next(); // the `(` right after the name
    const args: Operand[] = [];
    for (;;) {
      const tok = this.lexer.next();
      if (tok.kind === 'rparen') break;
      const arg = this.tryOperand(tok, depth + 1);
      if (arg === null) throw new FilterError('expected a function argument', tok.pos, describe(tok, this.src));
      if (args.push(arg) > MAX_FUNCTION_ARGS) {
        throw new FilterError(`too many function arguments (max ${MAX_FUNCTION_ARGS})`, tok.pos);
      }
      const sep = this.lexer.next();
      if (sep.kind === 'rparen') break;
      if (sep.kind !== 'comma') throw new FilterError('expected , or )', sep.pos, describe(sep, this.src));
    }
    return { kind: 'function', name: nameTok.value, args, pos: nameTok.pos };
  }
}
