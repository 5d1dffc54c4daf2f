// A view collection's `viewQuery` read as text: SQLite's tokens (strings, quoted identifiers and
// comments understood), the checks that keep it one read-only SELECT, and the shape PocketBase's
// field inference reads (core/view.go `parseQueryToFields`): the main SELECT's columns with their
// aliases, and the tables of its FROM clause with theirs. What the query may read is decided by how it
// is realised (views.ts), not here.

export interface Token {
  kind: 'ident' | 'string' | 'number' | 'punct' | 'param' | 'blob';
  /** The identifier's name (quotes removed), lower case for comparisons in `lower`. */
  text: string;
  lower: string;
  /** Whether the identifier was quoted ("x", `x`, [x]): never a keyword. */
  quoted: boolean;
  /** Quoted with double quotes (SQLite reads such a name as a text when no column has it). */
  doubleQuoted?: boolean;
}

export class ViewQueryError extends Error {}

const PUNCT = ['->>', '||', '<=', '>=', '==', '!=', '<>', '<<', '>>', '->'];

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const push = (kind: Token['kind'], value: string, quoted = false) => out.push({ kind, text: value, lower: value.toLowerCase(), quoted });
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) throw new ViewQueryError('unterminated comment');
      i = end + 2;
    } else if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new ViewQueryError(ch === "'" ? 'unterminated string' : 'unterminated quoted identifier');
        if (text[j] === close) {
          if (close !== ']' && text[j + 1] === close) {
            value += close;
            j += 2;
            continue;
          }
          break;
        }
        value += text[j++];
      }
      const blob = ch === "'" && out.length > 0 && /^x$/i.test(out[out.length - 1].text) && !out[out.length - 1].quoted && text[i - 1]?.toLowerCase() === 'x';
      if (blob) out.pop();
      push(blob ? 'blob' : ch === "'" ? 'string' : 'ident', value, ch !== "'");
      if (ch === '"') out[out.length - 1].doubleQuoted = true;
      i = j + 1;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(text[j])) j++;
      push('ident', text.slice(i, j));
      i = j;
    } else if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < text.length && /[0-9A-Za-z_.]/.test(text[j])) j++;
      push('number', text.slice(i, j));
      i = j;
    } else if (ch === '?' || ch === ':' || ch === '@' || ch === '$') {
      throw new ViewQueryError('a view query cannot have parameters');
    } else {
      const op = PUNCT.find((p) => text.startsWith(p, i)) ?? ch;
      push('punct', op);
      i += op.length;
    }
  }
  return out;
}

const KEYWORDS_ENDING_FROM = new Set(['where', 'group', 'having', 'order', 'limit', 'window', 'union', 'except', 'intersect']);
const JOIN_WORDS = new Set(['natural', 'left', 'right', 'full', 'inner', 'outer', 'cross', 'join']);
/** Tables no view may name, whatever they hold (system tables; their data is refused at the mechanism too, see views.ts). */
const FORBIDDEN_NAMES = /^(sqlite_|pragma_)/;

const isWord = (t: Token | undefined, word: string): boolean => t !== undefined && t.kind === 'ident' && !t.quoted && t.lower === word;

/** The index of the token closing the parenthesis opened at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].kind !== 'punct') continue;
    if (tokens[i].text === '(') depth++;
    else if (tokens[i].text === ')' && --depth === 0) return i;
  }
  throw new ViewQueryError('unbalanced parentheses');
}

/** Splits tokens[start, end) at depth-0 tokens `isSeparator` accepts (runs of separators count once). */
function splitTop(tokens: Token[], start: number, end: number, isSeparator: (t: Token) => boolean): Token[][] {
  const parts: Token[][] = [];
  let current: Token[] = [];
  for (let i = start; i < end; i++) {
    const t = tokens[i];
    if (t.kind === 'punct' && t.text === '(') {
      const close = closing(tokens, i);
      current.push(...tokens.slice(i, close + 1));
      i = close;
    } else if (isSeparator(t)) {
      if (current.length > 0) parts.push(current);
      current = [];
    } else current.push(t);
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

export interface QueryColumn {
  /** The expression's tokens (without its alias). */
  expr: Token[];
  /** What SQLite names the column when it is a plain reference or aliased (else null: PRAGMA tells). */
  alias: string | null;
}

export interface QueryTable {
  /** A table or view name (null: a subquery or a table-valued function). */
  name: string | null;
  alias: string;
}

export interface ParsedViewQuery {
  /** The query as it goes inside the view: trimmed, without trailing semicolons. */
  text: string;
  tokens: Token[];
  columns: QueryColumn[];
  tables: QueryTable[];
}

/**
 * Checks that `query` is one read-only SELECT (or WITH ... SELECT) without parameters or schema
 * names, and reads its main SELECT's columns and FROM tables. Throws ViewQueryError with the reason.
 */
/**
 * Parentheses nested deeper than any real query needs: PostgreSQL's parser spends seconds on tens of
 * thousands of them, in one stretch its statement_timeout does not interrupt (and SQLite refuses an
 * expression deeper than 1,000); refused before either engine sees the query.
 */
export const MAX_NESTING = 256;

function refuseDeepNesting(tokens: readonly Token[]): void {
  let depth = 0;
  for (const t of tokens) {
    if (t.kind !== 'punct') continue;
    if (t.text === '(' && ++depth > MAX_NESTING) throw new ViewQueryError(`the query nests parentheses more than ${MAX_NESTING} deep`);
    if (t.text === ')') depth = Math.max(0, depth - 1);
  }
}

export function parseViewQuery(query: string): ParsedViewQuery {
  const text = query.trim().replace(/[;\s]+$/, '');
  if (text === '') throw new ViewQueryError('the query is empty');
  const tokens = tokenize(text);
  if (tokens.some((t) => t.kind === 'punct' && t.text === ';')) throw new ViewQueryError('multiple statements are not supported');
  refuseDeepNesting(tokens);
  if (!isWord(tokens[0], 'select') && !isWord(tokens[0], 'with')) throw new ViewQueryError('the query must be a single SELECT (or WITH ... SELECT)');
  tokens.forEach((t, i) => {
    if (t.kind !== 'ident') return;
    if (FORBIDDEN_NAMES.test(t.lower)) throw new ViewQueryError(`"${t.text}" cannot be read by a view`);
    const next = tokens[i + 1];
    const prev = tokens[i - 1];
    const qualifies = next?.kind === 'punct' && next.text === '.' && !(prev?.kind === 'punct' && prev.text === '.');
    // `main.posts` or `temp.x`: a schema name would reach past what the view is given (views.ts)
    if (qualifies && (t.lower === 'main' || t.lower === 'temp')) throw new ViewQueryError(`schema-qualified names ("${t.text}.") are not supported`);
  });
  refuseRecursion(tokens);
  let i = 0;
  if (isWord(tokens[0], 'with')) i = skipWith(tokens, 0).end;
  if (!isWord(tokens[i], 'select')) throw new ViewQueryError('the query must be a single SELECT (or WITH ... SELECT)');
  i++;
  if (isWord(tokens[i], 'distinct') || isWord(tokens[i], 'all')) i++;
  const isStop = (t: Token, words: Set<string>) => t.kind === 'ident' && !t.quoted && words.has(t.lower);
  let fromAt = tokens.length;
  let endAt = tokens.length;
  for (let j = i; j < tokens.length; j++) {
    const t = tokens[j];
    if (t.kind === 'punct' && t.text === '(') {
      j = closing(tokens, j);
      continue;
    }
    if (fromAt === tokens.length && isWord(t, 'from')) fromAt = j;
    else if (isStop(t, KEYWORDS_ENDING_FROM)) {
      endAt = j;
      break;
    }
  }
  const columns = splitTop(tokens, i, Math.min(fromAt, endAt), (t) => t.kind === 'punct' && t.text === ',').map(columnOf);
  const tables = fromAt < endAt ? splitTop(tokens, fromAt + 1, endAt, (t) => (t.kind === 'punct' && t.text === ',') || isStop(t, JOIN_WORDS)).map(tableOf) : [];
  return { text, tokens, columns, tables };
}

interface WithClause {
  /** The index after the clause. */
  end: number;
  /** Each common table expression: its name and the tokens (open, close) of its parenthesised body. */
  tables: { name: string; open: number; close: number }[];
}

/** Reads `WITH [RECURSIVE] name[(cols)] AS [NOT] [MATERIALIZED] (...), ...` starting at `start`. */
function skipWith(tokens: Token[], start: number): WithClause {
  let i = start + 1;
  const tables: WithClause['tables'] = [];
  if (isWord(tokens[i], 'recursive')) i++;
  for (;;) {
    if (tokens[i]?.kind !== 'ident') throw new ViewQueryError('malformed WITH clause');
    const name = tokens[i].lower;
    i++;
    if (tokens[i]?.text === '(' && tokens[i].kind === 'punct') i = closing(tokens, i) + 1;
    if (!isWord(tokens[i], 'as')) throw new ViewQueryError('malformed WITH clause');
    i++;
    if (isWord(tokens[i], 'not')) i++;
    if (isWord(tokens[i], 'materialized')) i++;
    if (!(tokens[i]?.kind === 'punct' && tokens[i].text === '(')) throw new ViewQueryError('malformed WITH clause');
    const close = closing(tokens, i);
    tables.push({ name, open: i, close });
    i = close + 1;
    if (tokens[i]?.kind === 'punct' && tokens[i].text === ',') {
      i++;
      continue;
    }
    return { end: i, tables };
  }
}

/**
 * Refuses a common table expression that names itself (SQLite makes it recursive, with or without
 * RECURSIVE), at any depth: its steps can read no collection, so no guard runs inside them and a
 * recursion without end would hold the server for good (views.ts guards the rows collections give).
 */
function refuseRecursion(tokens: Token[]): void {
  tokens.forEach((t, at) => {
    if (!isWord(t, 'with')) return;
    for (const cte of skipWith(tokens, at).tables) {
      const body = tokens.slice(cte.open + 1, cte.close);
      if (body.some((b) => b.kind === 'ident' && b.lower === cte.name)) {
        throw new ViewQueryError(`recursive common table expressions ("${cte.name}") are not supported: their work cannot be bounded`);
      }
    }
  });
}

const ALIAS_BEFORE = (t: Token) => t.kind === 'ident' || t.kind === 'string' || t.kind === 'number' || (t.kind === 'punct' && t.text === ')');

function columnOf(parts: Token[]): QueryColumn {
  const n = parts.length;
  if (n >= 3 && isWord(parts[n - 2], 'as')) return { expr: parts.slice(0, n - 2), alias: parts[n - 1].text };
  if (n >= 2 && parts[n - 1].kind === 'ident' && ALIAS_BEFORE(parts[n - 2]) && !isWord(parts[n - 1], 'end')) {
    return { expr: parts.slice(0, n - 1), alias: parts[n - 1].text };
  }
  if (n === 1 && parts[0].kind === 'ident') return { expr: parts, alias: parts[0].text };
  if (n === 3 && parts[0].kind === 'ident' && parts[1].text === '.' && parts[2].kind === 'ident') return { expr: parts, alias: parts[2].text };
  return { expr: parts, alias: null };
}

function tableOf(parts: Token[]): QueryTable {
  const on = parts.findIndex((t) => isWord(t, 'on') || isWord(t, 'using'));
  const item = on === -1 ? parts : parts.slice(0, on);
  const first = item[0];
  const isName = first?.kind === 'ident' && !(item[1]?.kind === 'punct' && item[1].text === '(');
  let alias = first?.text ?? '';
  if (item.length >= 3 && isWord(item[item.length - 2], 'as')) alias = item[item.length - 1].text;
  else if (item.length >= 2 && item[item.length - 1].kind === 'ident') alias = item[item.length - 1].text;
  return { name: isName ? first.text : null, alias };
}

/**
 * An upper bound of the size of the query's expressions once SQLite has flattened its subqueries,
 * table expressions and the views it names into one statement: each level's identifiers times (one
 * plus what the levels it reads weigh). Flattening copies a column's expression wherever the outer
 * level names it, so `SELECT x||x AS x FROM (...)` nested 22 times is 4 million nodes to prepare (a
 * 682-character query held the server 68 s and 4 GB, then again at every schema change). `viewWeight`
 * answers the weight of a view the query names (undefined: not a view).
 */
export const NOT_COLUMNS: ReadonlySet<string> = new Set(('select from where as and or not on join left right full inner outer cross natural using group by order '
  + 'having limit offset union all distinct except intersect case when then else end is null in exists like glob regexp match escape between '
  + 'asc desc nulls first last with recursive materialized values over partition window filter range rows groups unbounded preceding '
  + 'following current row exclude ties others no cast collate true false isnull notnull indexed').split(' '));

/** The weight past which a view's query is refused (about 100 ms to prepare here at its real size). */
export const MAX_FLATTENED_WEIGHT = 100_000;

export function flattenedWeight(tokens: Token[], viewWeight: (name: string) => number | undefined): number {
  const ctes = new Map<string, number>();
  // a WITH's tables are weighed in order: each may name the ones before it
  const level = (from: number, to: number): number => {
    let idents = 0;
    let reads = 0;
    for (let i = from; i < to; i++) {
      const t = tokens[i];
      if (t.kind === 'punct' && t.text === '(') {
        const close = closing(tokens, i);
        if (isWord(tokens[i + 1], 'select') || isWord(tokens[i + 1], 'with') || isWord(tokens[i + 1], 'values')) {
          reads += level(i + 1, close);
          i = close;
        }
        continue; // other parentheses (calls, lists) belong to this level
      }
      if (isWord(t, 'with')) {
        const clause = skipWith(tokens, i);
        for (const cte of clause.tables) ctes.set(cte.name, level(cte.open + 1, cte.close));
        i = clause.end - 1;
        continue;
      }
      if (t.kind !== 'ident') continue;
      const read = ctes.get(t.lower) ?? viewWeight(t.lower);
      if (read !== undefined) reads += read;
      // what can name a column: not a keyword, a function's name or a table's before its dot
      const next = tokens[i + 1];
      if (t.quoted || (!NOT_COLUMNS.has(t.lower) && !(next?.kind === 'punct' && (next.text === '(' || next.text === '.')))) idents++;
    }
    return Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, idents) * (1 + reads));
  };
  return level(0, tokens.length);
}

/** The widest field a view's `printf`/`format` may ask for (`%.2f` is what apps write). */
const MAX_FORMAT_WIDTH = 1000;

/**
 * The first `printf(...)` or `format(...)` call among `tokens` whose output size an argument or a
 * value read sets (a format that is not a literal, a `*` width, a width past MAX_FORMAT_WIDTH), as
 * its text; null when every call's format is a literal with small widths (its output is then bounded
 * by its arguments' sizes).
 */
export function unboundedFormatCall(tokens: Token[]): string | null {
  for (let i = 0; i + 2 < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind !== 'ident' || (t.lower !== 'printf' && t.lower !== 'format') || tokens[i + 1].text !== '(' || tokens[i + 1].kind !== 'punct') continue;
    const format = tokens[i + 2];
    const after = tokens[i + 3];
    // SQLite reads "%.2f" (double quotes) as a text when no column has that name; a name that could be a column is a value read
    const literal = (format.kind === 'string' || (format.kind === 'ident' && format.quoted && !/^\w+$/.test(format.text)))
      && after?.kind === 'punct' && (after.text === ',' || after.text === ')');
    const widths = literal ? [...format.text.matchAll(/%[-+ 0#,!]*(\d*)(?:\.(\d*))?/g)].flatMap((m) => [m[1], m[2] ?? '']) : [];
    if (!literal || format.text.includes('*') || widths.some((w) => w !== '' && Number(w) > MAX_FORMAT_WIDTH)) return `${t.lower}()`;
  }
  return null;
}

/** The SQL text of tokens, for the expression tests of field inference (`count(`, `cast(... as x)`). */
export function exprText(tokens: Token[]): string {
  return tokens.map((t) => (t.kind === 'string' ? `'${t.text}'` : t.text)).join(' ').replace(/\s*\(\s*/g, '(').replace(/\s*\)/g, ')').toLowerCase();
}
