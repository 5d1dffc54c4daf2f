// A view collection's query on the team server (PostgreSQL 15). The user writes SQLite SQL (what
// PocketBase takes); view-query.ts has tokenized and checked it. Here it is written again, token by
// token, as PostgreSQL reads it, and what it may read is checked in PostgreSQL's own catalog:
//
// - names: SQLite compares names ignoring case, PostgreSQL folds unquoted names to lower case and
//   keeps quoted ones. Every name a collection, a field or an alias of the query spells is written
//   quoted as it spells it (`authorId` stays `"authorId"`); keywords and function names are left as
//   written; backticks and brackets become double quotes;
// - translated: IFNULL → COALESCE; round(x[, n]) over numeric (half away from zero, as SQLite);
//   printf('%.Nf', x) → round(x, N); strftime with literal format and modifiers as the filter compiler
//   writes it (strftime-postgres.ts); json_extract of a JSON-holding field at a literal path → `#>>`
//   (a text); json_each over a field of several values → json_array_elements_text; GROUP_CONCAT →
//   string_agg; json_object/json_array → json_build_object/json_build_array; max/min of two values →
//   GREATEST/LEAST; `==` → `=`; `a IS b` / `a IS NOT b` (null-safe equality) → IS [NOT] DISTINCT FROM;
//   LIKE → ILIKE (SQLite's LIKE ignores case); CAST's SQLite types (REAL → double precision, INTEGER →
//   bigint); a bool field compared with 1/0 → TRUE/FALSE; a double-quoted name nothing in its SELECT
//   has → a text (SQLite's fallback); a subquery in FROM without an alias given one; and a main
//   GROUP BY on a collection's `id` grouped by that collection's other columns too (SQLite lets a
//   grouped query show them; PostgreSQL only by the key of a table, which the projection hides);
// - refused at save time, naming the construct (a 400 on viewQuery): SQLite functions PostgreSQL has
//   not (datetime, iif, typeof...), the translated ones used otherwise, COLLATE, GLOB,
//   REGEXP, blobs, `->`, `~`, and PostgreSQL syntax a SELECT of SQLite cannot mean (FOR UPDATE, INTO,
//   LATERAL, TABLESAMPLE, ONLY); what PostgreSQL itself refuses answers its own message;
// - what it reads: every collection it names is shadowed, as on the desktop, by a projection of its
//   non-hidden columns (an auth record's email only when visible); schema-qualified and `pg_*` names
//   are refused; once the view exists, its dependencies in pg_depend (the tables, views and columns its
//   stored query uses) may name only collections' tables and views and no hidden column, and the plan
//   of a read of it may scan only collections' tables (catalogs are pinned: pg_depend omits them); each
//   function it calls by name must be built in, not volatile, and reach nothing past the query's rows
//   (no pg_* administration, large objects, files, settings, sleeps, other queries or databases), nor
//   make a value as large as an argument asks.
// Texts compare in byte order: the projected columns are `text COLLATE "C"`, and the view's values
// keep that collation. Every read of the view is a read of the store: a READ ONLY transaction under
// the query budget's statement_timeout (store-postgres/store.ts).
import { ident } from '../filter/sql.js';
import type { WriteTx } from '../store/db.js';
import { isMultiple, type Collection, type Field } from '../model/types.js';
import { POSTGRES } from '../rules/compile.js';
import { QueryTimeoutError } from '../store/deadline.js';
import { NOT_COLUMNS, ViewQueryError, type ParsedViewQuery, type Token } from './view-query.js';

const ENGINE = 'the team server runs PostgreSQL';
const OUTSIDE = 'it reaches past the rows of the collections the view reads';

/** SQLite functions without a PostgreSQL twin of the same meaning (refused, named). */
const UNTRANSLATED = new Set(('json_tree json_type json_valid json_patch json_set json_insert json_replace json_remove '
  + 'json_group_array json_group_object json_quote json jsonb datetime date time julianday unixepoch timediff format iif instr '
  + 'typeof total hex unhex quote char unicode glob likely unlikely likelihood randomblob zeroblob random changes last_insert_rowid '
  + 'total_changes sqlite_version soundex load_extension').split(' '));

/** Words PostgreSQL reads in a SELECT that SQLite's SELECT has not, or means otherwise. */
const REFUSED_WORDS = new Map(Object.entries({
  collate: 'COLLATE', glob: 'GLOB', regexp: 'REGEXP', match: 'MATCH', indexed: 'INDEXED BY', for: 'FOR (row locks)', into: 'INTO',
  lateral: 'LATERAL', tablesample: 'TABLESAMPLE', only: 'ONLY', fetch: 'FETCH',
}));

/** CAST's SQLite type names as PostgreSQL's (SQLite's INTEGER is 64 bits, its REAL a double). */
const CAST_TYPES: Record<string, string> = {
  real: 'double precision', double: 'double precision', float: 'double precision', integer: 'bigint', int: 'bigint', bigint: 'bigint',
  text: 'text', numeric: 'numeric', decimal: 'numeric', boolean: 'boolean', bool: 'boolean', varchar: 'text',
};

/** Keywords written as they are (never quoted): view-query.ts's words that cannot name a column, and a few more. */
const KEYWORDS = new Set([...NOT_COLUMNS, 'current_timestamp', 'current_date', 'current_time', 'escape', 'ilike', 'similar', 'any', 'some', 'array']);

const refuse = (what: string): never => {
  throw new ViewQueryError(`${what} is SQLite SQL that this server cannot run as written (${ENGINE})`);
};

const isPunct = (t: Token | undefined, text: string) => t !== undefined && t.kind === 'punct' && t.text === text;
const isWord = (t: Token | undefined, word: string) => t !== undefined && t.kind === 'ident' && !t.quoted && t.lower === word;

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The collections whose tables views may read: user collections that store records (as views.ts). */
function readable(c: Collection): boolean {
  return c.type !== 'view' && !c.system;
}

/** The projection standing for collection `c` (views.ts `projection`, PostgreSQL's text). */
function projection(c: Collection, schemaName: string): string {
  const column = (f: Field) => (c.type === 'auth' && f.name === 'email' && c.fields.some((g) => g.name === 'emailVisibility')
    ? `CASE WHEN r."emailVisibility" THEN r."email" ELSE '' END AS "email"`
    : `r.${ident(f.name)}`);
  return `${ident(c.name)} AS NOT MATERIALIZED (SELECT ${c.fields.filter((f) => !f.hidden).map(column).join(', ')} FROM ${quote(schemaName)}.${ident(c.name)} AS r)`;
}

interface Names {
  /** Lower-case name → its spelling: collections, their fields, then the query's own aliases. */
  spelling: Map<string, string>;
}

function namesOf(parsed: ParsedViewQuery, schema: readonly Collection[]): Names {
  const spelling = new Map<string, string>();
  for (const c of schema) if (!spelling.has(c.name.toLowerCase())) spelling.set(c.name.toLowerCase(), c.name);
  for (const c of schema) for (const f of c.fields) if (!spelling.has(f.name.toLowerCase())) spelling.set(f.name.toLowerCase(), f.name);
  const t = parsed.tokens;
  t.forEach((tok, i) => {
    if (isWord(tok, 'as') && t[i + 1]?.kind === 'ident' && !(t[i + 1].quoted === false && KEYWORDS.has(t[i + 1].lower))) {
      if (!spelling.has(t[i + 1].lower)) spelling.set(t[i + 1].lower, t[i + 1].text);
    }
  });
  return { spelling };
}

/** How many commas the call whose parenthesis opens at `open` has at its own depth. */
function topLevelCommas(t: readonly Token[], open: number): number {
  let depth = 0;
  let n = 0;
  for (let i = open; i < t.length; i++) {
    if (isPunct(t[i], '(')) depth++;
    else if (isPunct(t[i], ')') && --depth === 0) return n;
    else if (depth === 1 && isPunct(t[i], ',')) n++;
  }
  return n;
}

const STOPS = new Set(['having', 'order', 'limit', 'window', 'union', 'except', 'intersect']);

/**
 * The main SELECT's GROUP BY items that group by a collection's `id` (`p.id`, or `id` over one
 * table), and the columns of that collection PostgreSQL then needs grouped too: the index of the last
 * token of the GROUP BY list (-1: none) and the text to add after it.
 */
function groupByExtras(parsed: ParsedViewQuery, schema: readonly Collection[], name: (t: Token) => string): { at: number; text: string } {
  const t = parsed.tokens;
  const none = { at: -1, text: '' };
  let depth = 0;
  let selects = 0;
  let start = -1;
  let end = t.length;
  for (let i = 0; i < t.length; i++) {
    if (isPunct(t[i], '(')) depth++;
    else if (isPunct(t[i], ')')) depth--;
    else if (depth !== 0) continue;
    else if (isWord(t[i], 'select')) selects++;
    else if (selects > 1) break;
    else if (start === -1 && isWord(t[i], 'group') && isWord(t[i + 1], 'by')) start = i + 2;
    else if (start !== -1 && t[i].kind === 'ident' && !t[i].quoted && STOPS.has(t[i].lower)) {
      end = i;
      break;
    }
  }
  if (start === -1) return none;
  const extra: string[] = [];
  let item: Token[] = [];
  const items: Token[][] = [];
  depth = 0;
  for (let i = start; i < end; i++) {
    if (isPunct(t[i], '(')) depth++;
    if (isPunct(t[i], ')')) depth--;
    if (depth === 0 && isPunct(t[i], ',')) {
      items.push(item);
      item = [];
    } else item.push(t[i]);
  }
  items.push(item);
  for (const it of items) {
    let table;
    let aliasToken: Token | undefined;
    if (it.length === 3 && it[0].kind === 'ident' && isPunct(it[1], '.') && it[2].kind === 'ident' && it[2].lower === 'id') {
      aliasToken = it[0];
      table = parsed.tables.find((x) => x.alias.toLowerCase() === it[0].lower);
    } else if (it.length === 1 && it[0].kind === 'ident' && it[0].lower === 'id' && parsed.tables.length === 1) table = parsed.tables[0];
    const c = table?.name ? schema.find((x) => x.name.toLowerCase() === table.name!.toLowerCase()) : undefined;
    if (!c) continue;
    const prefix = aliasToken ? `${name(aliasToken)}.` : '';
    for (const f of c.fields) if (!f.hidden && f.name !== 'id') extra.push(`${prefix}${quote(f.name)}`);
  }
  return extra.length === 0 ? none : { at: end - 1, text: extra.join(', ') };
}

/** The indexes of the last token of each main SELECT column that is a plain name (`x` or `t.x`) without an alias. */
function plainColumnEnds(t: readonly Token[]): Set<number> {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < t.length; i++) {
    if (isPunct(t[i], '(')) depth++;
    else if (isPunct(t[i], ')')) depth--;
    else if (depth === 0 && isWord(t[i], 'select')) {
      start = i + 1;
      break;
    }
  }
  const out = new Set<number>();
  if (start === -1) return out;
  if (isWord(t[start], 'distinct') || isWord(t[start], 'all')) start++;
  let item = start;
  depth = 0;
  for (let i = start; i <= t.length; i++) {
    const end = i === t.length || (depth === 0 && (isPunct(t[i], ',') || isWord(t[i], 'from')));
    if (i < t.length && isPunct(t[i], '(')) depth++;
    else if (i < t.length && isPunct(t[i], ')')) depth--;
    if (!end) continue;
    const n = i - item;
    const plain = (n === 1 && t[item].kind === 'ident') || (n === 3 && t[item].kind === 'ident' && isPunct(t[item + 1], '.') && t[item + 2].kind === 'ident');
    if (plain && !(t[i - 1].kind === 'ident' && !t[i - 1].quoted && KEYWORDS.has(t[i - 1].lower))) out.add(i - 1);
    if (i === t.length || isWord(t[i], 'from')) break;
    item = i + 1;
  }
  return out;
}

/**
 * The field names (lower case) of the collections the SELECT holding token `at` reads (its FROM at the
 * same depth), or of every collection the query names when the token is in no SELECT's list; null
 * when that FROM reads a subquery or a table function, whose columns are not known here.
 */
function fieldsInScope(t: readonly Token[], at: number, schema: readonly Collection[]): Set<string> | null {
  const depthAt = (i: number) => {
    let d = 0;
    for (let j = 0; j < i; j++) if (isPunct(t[j], '(')) d++; else if (isPunct(t[j], ')')) d--;
    return d;
  };
  const depth = depthAt(at);
  const tables = new Set<string>();
  let d = depth;
  let inFrom = false;
  for (let j = at + 1; j < t.length; j++) {
    if (isPunct(t[j], '(')) {
      // a subquery or table function in FROM: its columns are not known here
      if (inFrom && d === depth && (isWord(t[j - 1], 'from') || isWord(t[j - 1], 'join') || isPunct(t[j - 1], ',') || (t[j - 1]?.kind === 'ident' && !KEYWORDS.has(t[j - 1].lower)))) return null;
      d++;
    } else if (isPunct(t[j], ')')) {
      if (--d < depth) break;
    } else if (d === depth && t[j].kind === 'ident' && !t[j].quoted && ['where', 'group', 'having', 'order', 'limit', 'union', 'except', 'intersect', 'window'].includes(t[j].lower)) break;
    else if (d === depth && isWord(t[j], 'from')) inFrom = true;
    else if (inFrom && t[j].kind === 'ident') tables.add(t[j].lower);
  }
  const read = schema.filter((c) => tables.has(c.name.toLowerCase()));
  const named = read.length > 0 ? read : schema.filter((c) => t.some((x) => x.kind === 'ident' && x.lower === c.name.toLowerCase()));
  return new Set(named.flatMap((c) => c.fields.map((f) => f.name.toLowerCase())));
}

/**
 * The indexes of the 0s and 1s a bool field's column is compared with (`p.published = 1`, `0 != x.flag`):
 * SQLite's booleans are those numbers, PostgreSQL's are TRUE and FALSE.
 */
function boolLiterals(t: readonly Token[], schema: readonly Collection[]): Set<number> {
  const named = new Set(t.filter((x) => x.kind === 'ident').map((x) => x.lower));
  const fields = schema.filter((c) => named.has(c.name.toLowerCase())).flatMap((c) => c.fields);
  const isBool = (name: string) => fields.some((f) => f.name.toLowerCase() === name) && fields.every((f) => f.name.toLowerCase() !== name || f.type === 'bool');
  const out = new Set<number>();
  const compare = (x: Token | undefined) => x !== undefined && x.kind === 'punct' && ['=', '==', '!=', '<>'].includes(x.text);
  const bit = (x: Token | undefined) => x !== undefined && x.kind === 'number' && (x.text === '0' || x.text === '1');
  t.forEach((x, i) => {
    if (!bit(x)) return;
    // column op bit: the column is the name before the operator (after its table's dot, if any)
    if (compare(t[i - 1]) && t[i - 2]?.kind === 'ident' && isBool(t[i - 2].lower)) out.add(i);
    // bit op column
    if (compare(t[i + 1]) && t[i + 2]?.kind === 'ident' && !isPunct(t[i + 3], '.') && !isPunct(t[i + 3], '(') && isBool(t[i + 2].lower)) out.add(i);
    if (compare(t[i + 1]) && t[i + 2]?.kind === 'ident' && isPunct(t[i + 3], '.') && t[i + 4]?.kind === 'ident' && isBool(t[i + 4].lower)) out.add(i);
  });
  return out;
}

/** The index of the `)` closing the parenthesis at `open`. */
function closingParen(t: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    if (isPunct(t[i], '(')) depth++;
    else if (isPunct(t[i], ')') && --depth === 0) return i;
  }
  return t.length - 1;
}

/**
 * strftime(format, time, modifiers...) between tokens `at` (its name) and `close`, written as the
 * filter compiler writes it for PostgreSQL (filter/strftime-postgres.ts through the dialect): a
 * literal format, a time that is a column (`x`, `t.x`), a literal text or absent ('now'), literal
 * modifiers. Its bound values become literals (a view has no parameters).
 */
function strftimeText(t: readonly Token[], at: number, close: number, name: (tok: Token) => string): string {
  const args: Token[][] = [[]];
  for (let i = at + 2, depth = 0; i < close; i++) {
    if (isPunct(t[i], '(')) depth++;
    else if (isPunct(t[i], ')')) depth--;
    if (depth === 0 && isPunct(t[i], ',')) args.push([]);
    else args[args.length - 1].push(t[i]);
  }
  const literal = (a: Token[] | undefined) => (a !== undefined && a.length === 1 && a[0].kind === 'string' ? a[0].text : undefined);
  const [format, time, ...rest] = args;
  const modifiers = rest.map(literal);
  const column = time !== undefined && ((time.length === 1 && time[0].kind === 'ident') || (time.length === 3 && time[0].kind === 'ident' && isPunct(time[1], '.') && time[2].kind === 'ident'));
  if (literal(format) === undefined || (time !== undefined && !column && literal(time) === undefined) || modifiers.some((m) => m === undefined)) {
    refuse('strftime() other than of a literal format over a column or a literal time, with literal modifiers');
  }
  const build = POSTGRES.strftime!(literal(format)!, modifiers as string[]);
  if (typeof build === 'string') refuse(`strftime(): ${build}`);
  const operand = time === undefined ? undefined
    : column ? { sql: { text: time.map((x) => (x.kind === 'ident' ? name(x) : x.text)).join(''), params: [] }, type: 'text' as const }
      : { sql: { text: '?', params: [literal(time)!] }, type: 'text' as const, static: { value: literal(time)! } };
  return inlineParams((build as Exclude<typeof build, string>)(operand));
}

/** A fragment's text with its bound values written in as literals (`?` outside quotes, in order). */
function inlineParams(frag: { text: string; params: readonly unknown[] }): string {
  let out = '';
  let n = 0;
  const text = frag.text;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      out += text.slice(i, end + 1);
      i = end;
    } else if (c === '?') {
      const v = frag.params[n++];
      out += typeof v === 'number' ? String(v) : v === null || v === undefined ? 'NULL' : `'${String(v).replace(/'/g, "''")}'`;
    } else out += c;
  }
  if (n !== frag.params.length) throw new Error('strftime: parameters and placeholders differ');
  return out;
}

/** The parens of printf('%.Nf', x) and json_each(list) written for PostgreSQL (`Paren.fn`). */
const PRINTF_ROUND = '(printf)';
const JSON_ITEMS = '(json_each)';

/** The paren of `round(x[, digits])` (`Paren.fn`). */
const ROUND_DIGITS = '(round)';

/** The paren of a subquery in FROM or JOIN (`Paren.fn`). */
const FROM_SUBQUERY = '(from)';

/** A literal JSON path as keys (`$.a.b[0]` → a, b, 0); null when it is not one of plain keys and indexes. */
function jsonPathKeys(path: string): string[] | null {
  if (!/^\$(\.\w+|\[\d+\])*$/.test(path)) return null;
  return [...path.matchAll(/\.(\w+)|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]);
}

/**
 * json_extract is written for PostgreSQL only over a column of a field that holds JSON (json, geoPoint,
 * multiple values: kept valid JSON on the team server, so the cast never fails at read time) at a
 * literal path; it then gives text (SQLite gives numbers as numbers).
 */
function checkJsonExtract(t: readonly Token[], at: number, jsonColumns: ReadonlySet<string>): void {
  let close = at + 1;
  for (let depth = 0; close < t.length; close++) {
    if (isPunct(t[close], '(')) depth++;
    else if (isPunct(t[close], ')') && --depth === 0) break;
  }
  const arg = t.slice(at + 2, close - 2);
  const path = t[close - 1];
  const column = (arg.length === 1 || (arg.length === 3 && arg[0].kind === 'ident' && isPunct(arg[1], '.'))) && arg[arg.length - 1].kind === 'ident' && jsonColumns.has(arg[arg.length - 1].lower);
  if (!column || path?.kind !== 'string' || !isPunct(t[close - 2], ',') || jsonPathKeys(path.text) === null) {
    refuse("json_extract() other than of a json field's column at a literal path ('$.a.b')");
  }
}

interface Paren {
  /** The function whose call it opens (lower case), or ''. */
  fn: string;
  /** In a CAST: whether its AS was passed (what follows is the type). In GROUP_CONCAT: whether its separator was. */
  passed: boolean;
  /** printf('%.Nf', x): N. */
  digits?: string;
}

/**
 * The query as PostgreSQL text (see the top of this file), with the main GROUP BY completed. Throws
 * ViewQueryError naming what it cannot write. `schemaNames`: the database's schemas and its own name,
 * which a view may not qualify a name with.
 */
export function postgresQueryText(parsed: ParsedViewQuery, schema: readonly Collection[], schemaNames: ReadonlySet<string>): string {
  const t = parsed.tokens;
  const names = namesOf(parsed, schema);
  const name = (tok: Token) => quote(names.spelling.get(tok.lower) ?? (tok.quoted ? tok.text : tok.lower));
  const groupExtra = groupByExtras(parsed, schema, name);
  // a name is a JSON column when every collection the query names that has a field of that name keeps JSON in it
  const namedLower = new Set(t.filter((x) => x.kind === 'ident').map((x) => x.lower));
  const holdsJson = (f: Field) => f.type === 'json' || f.type === 'geoPoint' || isMultiple(f);
  const fieldsNamed = schema.filter((c) => namedLower.has(c.name.toLowerCase())).flatMap((c) => c.fields);
  const listColumns = new Set(fieldsNamed.filter(isMultiple).map((f) => f.name.toLowerCase()).filter((n) => fieldsNamed.every((f) => f.name.toLowerCase() !== n || isMultiple(f))));
  const jsonColumns = new Set(fieldsNamed.filter(holdsJson).map((f) => f.name.toLowerCase()).filter((n) => fieldsNamed.every((f) => f.name.toLowerCase() !== n || holdsJson(f))));
  const out: string[] = [];
  const parens: Paren[] = [];
  const truths = boolLiterals(t, schema);
  const namedAsWritten = plainColumnEnds(t);
  /** Tokens (a json_each's alias) after which its column list goes. */
  const valueAfter = new Set<number>();
  // SQLite reads "x" as the text 'x' when nothing has that name: a double-quoted name the query names
  // nowhere else, and no collection or field has
  const aliases = new Set(t.filter((x, i) => x.kind === 'ident' && (isWord(t[i - 1], 'as') || isPunct(t[i + 1], '.'))).map((x) => x.lower));
  const isText = (x: Token, at: number) => x.doubleQuoted === true && !aliases.has(x.lower)
    && !schema.some((c) => c.name.toLowerCase() === x.lower) && fieldsInScope(t, at, schema)?.has(x.lower) === false;
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    const next = t[i + 1];
    const prev = t[i - 1];
    const top = parens[parens.length - 1];
    if (tok.kind === 'string') {
      out.push(`'${tok.text.replace(/'/g, "''")}'`);
    } else if (tok.kind === 'number' && truths.has(i)) {
      out.push(tok.text === '1' ? 'TRUE' : 'FALSE');
    } else if (tok.kind === 'ident' && isText(tok, i) && !isPunct(next, '(') && !isPunct(next, '.') && !isPunct(prev, '.') && !isWord(prev, 'as')) {
      out.push(`'${tok.text.replace(/'/g, "''")}'`);
    } else if (tok.kind === 'number') {
      if (!/^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(tok.text)) refuse(`the number ${tok.text}`);
      out.push(tok.text);
    } else if (tok.kind === 'blob') {
      refuse("a blob literal (X'..')");
    } else if (tok.kind === 'param') {
      refuse('a parameter');
    } else if (tok.kind === 'punct') {
      const p = tok.text;
      if (p === '(') {
        const subquery = (isWord(prev, 'from') || isWord(prev, 'join')) && (isWord(next, 'select') || isWord(next, 'with') || isWord(next, 'values'));
        const fn = subquery ? FROM_SUBQUERY : prev?.kind === 'ident' && !prev.quoted ? prev.lower : '';
        parens.push({ fn, passed: false });
        out.push('(');
        if (fn === 'round') {
          // PostgreSQL rounds a double half to even and to digits only a numeric: round(CAST(x AS numeric)[, n]),
          // half away from zero as SQLite
          parens[parens.length - 1].fn = ROUND_DIGITS;
          out.push('CAST(');
        }
        if (fn === 'group_concat') {
          if (isWord(next, 'distinct')) {
            out.push('DISTINCT');
            i++;
          }
          out.push('CAST(');
        }
      } else if (p === ')') {
        const closed = parens.pop();
        if (closed?.fn === ROUND_DIGITS && !closed.passed) out.push('AS numeric)');
        if (closed?.fn === PRINTF_ROUND) out.push(`AS numeric), ${closed.digits}`);
        if (closed?.fn === JSON_ITEMS) {
          out.push('AS json)', ')');
          // named as SQLite names the table-valued function, or as the query aliases it
          const alias = isWord(next, 'as') ? i + 2 : next?.kind === 'ident' && (next.quoted || !KEYWORDS.has(next.lower)) ? i + 1 : -1;
          if (alias === -1) out.push('AS "json_each"("value")');
          else valueAfter.add(alias);
          continue;
        }
        if (closed?.fn === 'group_concat') out.push(...(closed.passed ? [] : ["AS text), ','"]), ')', 'AS text)');
        else out.push(')');
        // SQLite reads a subquery in FROM without an alias; PostgreSQL 15 needs one
        if (closed?.fn === FROM_SUBQUERY && !(next?.kind === 'ident' && (isWord(next, 'as') || next.quoted || !KEYWORDS.has(next.lower)))) out.push(`AS "_subquery${i}"`);
      } else if (p === ',' && top?.fn === ROUND_DIGITS && !top.passed) {
        top.passed = true;
        out.push('AS numeric),');
      } else if (p === ',' && top?.fn === 'json_extract' && !top.passed) {
        // json_extract(column, '$.a.b') → (CAST(column AS json) #>> '{a,b}'): the path was checked at the call
        top.passed = true;
        out.push(`AS json) #>> '{${jsonPathKeys(next!.text)!.join(',')}}'`);
        i++;
      } else if (p === ',' && top?.fn === 'group_concat' && !top.passed) {
        top.passed = true;
        out.push('AS text),');
      } else if (p === '==') out.push('=');
      else if (p === '->' || p === '->>' || p === '~') refuse(`the ${p} operator`);
      else out.push(p);
    } else {
      // an identifier or a keyword
      const lower = tok.lower;
      if (!tok.quoted && isPunct(next, '(')) {
        // a function call, or a keyword before a parenthesis (IN, EXISTS, OVER, AS...)
        if (lower === 'printf') {
          // printf('%.2f', x), the one format apps write (wanderer's trails_filter): x rounded to N digits,
          // a number (JSON reads SQLite's text of it as the same number); any other format is refused
          const format = t[i + 2];
          const digits = format !== undefined && (format.kind === 'string' || format.doubleQuoted === true) ? /^%\.(\d{1,2})f$/.exec(format.text)?.[1] : undefined;
          if (digits === undefined || !isPunct(t[i + 3], ',') || topLevelCommas(t, i + 1) !== 1) refuse("printf() other than printf('%.Nf', x)");
          out.push('round', '(', 'CAST(');
          parens.push({ fn: PRINTF_ROUND, passed: false, digits });
          i += 3;
          continue;
        }
        if (lower === 'strftime') {
          const close = closingParen(t, i + 1);
          out.push(strftimeText(t, i, close, name));
          i = close;
          continue;
        }
        if (lower === 'json_each') {
          // json_each over a field of several values (always a JSON list on the team server): its items as `value`
          const arg = t[i + 2];
          const list = arg?.kind === 'ident' && (isPunct(t[i + 3], ')') ? listColumns.has(arg.lower) : isPunct(t[i + 3], '.') && t[i + 4]?.kind === 'ident' && isPunct(t[i + 5], ')') && listColumns.has(t[i + 4].lower));
          if (!list) refuse('json_each() other than over a field of several values (select, relation, file)');
          out.push('json_array_elements_text', '(', 'CAST(');
          parens.push({ fn: JSON_ITEMS, passed: false });
          i += 1;
          continue;
        }
        if (UNTRANSLATED.has(lower)) refuse(`the function ${lower}()`);
        if (lower.startsWith('pg_')) throw new ViewQueryError(`a view cannot call ${lower}(): ${OUTSIDE}`);
        if (lower === 'ifnull') out.push('COALESCE');
        else if (lower === 'group_concat') out.push('CAST(string_agg');
        else if (lower === 'json_extract') {
          checkJsonExtract(t, i, jsonColumns);
          out.push('(CAST');
        } else if (lower === 'json_object') out.push('json_build_object');
        else if (lower === 'json_array') out.push('json_build_array');
        // SQLite's max(a, b) of two or more values is PostgreSQL's GREATEST/LEAST
        else if ((lower === 'max' || lower === 'min') && topLevelCommas(t, i + 1) > 0) out.push(lower === 'max' ? 'GREATEST' : 'LEAST');
        else if (lower === 'substring') out.push('substr');
        else if (lower === 'like') out.push('ILIKE');
        else if (lower === 'cast' || KEYWORDS.has(lower)) out.push(tok.text);
        else out.push(lower);
      } else if (!tok.quoted && REFUSED_WORDS.has(lower)) {
        refuse(REFUSED_WORDS.get(lower)!);
      } else if (lower.startsWith('pg_')) {
        // PostgreSQL's catalogs and administration functions (pinned objects: pg_depend does not list them)
        throw new ViewQueryError(`"${tok.text}" cannot be read by a view`);
      } else if (isPunct(next, '.') && schemaNames.has(lower)) {
        throw new ViewQueryError(`schema-qualified names ("${tok.text}.") are not supported`);
      } else if (top?.fn === 'cast' && top.passed) {
        const type = Object.hasOwn(CAST_TYPES, lower) ? CAST_TYPES[lower] : undefined;
        out.push(type ?? refuse(`CAST to ${tok.text}`));
      } else if (!tok.quoted && lower === 'as' && top?.fn === 'cast') {
        top.passed = true;
        out.push('AS');
      } else if (!tok.quoted && lower === 'like') {
        out.push('ILIKE');
      } else if (!tok.quoted && lower === 'is' && !['null', 'true', 'false', 'distinct', 'unknown'].some((w) => isWord(t[i + (isWord(next, 'not') ? 2 : 1)], w))) {
        // SQLite's IS compares any two values, NULLs equal; PostgreSQL's only meets NULL, TRUE, FALSE
        if (isWord(next, 'not')) {
          out.push('IS DISTINCT FROM');
          i++;
        } else out.push('IS NOT DISTINCT FROM');
      } else if (!tok.quoted && KEYWORDS.has(lower)) {
        out.push(tok.text);
      } else {
        // a name: as a collection, field or alias spells it; an alias after AS as written
        out.push(isWord(prev, 'as') ? quote(tok.text) : name(tok));
      }
    }
    if (valueAfter.has(i)) out.push('("value")');
    // SQLite names a plain column of the main SELECT as the query writes it (`n.BODYTEXT`: BODYTEXT)
    if (namedAsWritten.has(i)) out.push('AS', quote(tok.text));
    if (groupExtra.at === i) out.push(',', groupExtra.text);
  }
  return out.join(' ');
}

/** Functions a view may not call even when built in and not volatile: they reach past the query's rows. */
const OUTSIDE_ROWS = /^(pg_|lo_|dblink|query_to_|table_to_|cursor_to_|schema_to_|database_to_|current_setting|set_config|txid_|has_|inet_|to_reg|obj_description|col_description|shobj_description|version$|current_database$|current_schemas?$)/;

/**
 * Functions whose result is as large as an argument asks (up to 1 GB), made in one piece the team
 * server's node then receives whole: the desktop refuses randomblob/zeroblob for the same reason.
 */
const ARGUMENT_SIZED = new Set(['repeat', 'lpad', 'rpad', 'array_fill']);

/** A JSON number, true, false or null, with JSON's white space around it (a PostgreSQL regular expression). */
const JSON_SCALAR = '^[ \\t\\n\\r]*(-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?|true|false|null)[ \\t\\n\\r]*$';

/** The first OID of objects not built in (PostgreSQL's FirstNormalObjectId). */
const FIRST_USER_OID = 16384;

interface Dependency {
  kind: string;
  name: string | null;
  schema: string | null;
  relkind: string | null;
  column: string | null;
  volatile: string | null;
  oid: number;
}

/**
 * Refuses a view whose stored query (its rewrite rule's dependencies in pg_depend) uses a table or
 * view that is not a collection's, a hidden column, or a function that is not built in, is volatile
 * (side effects, sleeps, sequences) or reaches past the query's rows (OUTSIDE_ROWS).
 */
async function checkDependencies(tx: WriteTx, view: string, schema: readonly Collection[]): Promise<void> {
  const deps = await tx.all<Dependency>(`SELECT CAST(d.refclassid AS regclass)::text AS kind, d.refobjid::bigint AS oid,
      COALESCE(c.relname, p.proname) AS name, COALESCE(cn.nspname, pn.nspname) AS schema, CAST(c.relkind AS text) AS relkind,
      a.attname AS column, CAST(p.provolatile AS text) AS volatile
    FROM pg_depend AS d JOIN pg_rewrite AS rw ON d.classid = CAST('pg_rewrite' AS regclass) AND d.objid = rw.oid
      LEFT JOIN pg_class AS c ON d.refclassid = CAST('pg_class' AS regclass) AND c.oid = d.refobjid
      LEFT JOIN pg_namespace AS cn ON cn.oid = c.relnamespace
      LEFT JOIN pg_attribute AS a ON c.oid IS NOT NULL AND d.refobjsubid > 0 AND a.attrelid = c.oid AND a.attnum = d.refobjsubid
      LEFT JOIN pg_proc AS p ON d.refclassid = CAST('pg_proc' AS regclass) AND p.oid = d.refobjid
      LEFT JOIN pg_namespace AS pn ON pn.oid = p.pronamespace
    WHERE rw.ev_class = (SELECT k.oid FROM pg_class AS k WHERE k.relname = CAST(? AS text) AND k.relnamespace = CAST(current_schema() AS regnamespace))
      AND d.refobjid <> rw.ev_class`, [POSTGRES.storedName(view)]);
  const tables = new Map<string, Collection>();
  for (const c of schema) if (readable(c) || c.type === 'view') tables.set(POSTGRES.storedName(c.name), c);
  const why = OUTSIDE;
  for (const d of deps) {
    if (d.kind === 'pg_class') {
      const c = d.name === null ? undefined : tables.get(d.name);
      if (c === undefined || d.schema === 'pg_catalog' || d.schema === 'information_schema' || (c.type === 'view' ? d.relkind !== 'v' : d.relkind !== 'r')) {
        throw new ViewQueryError(`a view cannot read "${d.name ?? 'that table'}"`);
      }
      const field = d.column === null ? undefined : c.fields.find((f) => POSTGRES.storedName(f.name) === d.column);
      if (field?.hidden) throw new ViewQueryError(`a view cannot read the hidden field "${c.name}.${field.name}"`);
    } else if (d.kind === 'pg_proc') {
      const fn = d.name ?? 'that function';
      if (Number(d.oid) >= FIRST_USER_OID || d.schema !== 'pg_catalog') throw new ViewQueryError(`a view cannot call ${fn}(): only PostgreSQL's own functions`);
      if (d.volatile === 'v') throw new ViewQueryError(`a view cannot call ${fn}(): it is volatile (its result or its effects are not those of the rows read)`);
      if (OUTSIDE_ROWS.test(fn)) throw new ViewQueryError(`a view cannot call ${fn}(): ${why}`);
    } else if (d.kind === 'pg_operator' || d.kind === 'pg_type' || d.kind === 'pg_collation') {
      if (Number(d.oid) >= FIRST_USER_OID) throw new ViewQueryError('a view can use only PostgreSQL\'s own types and operators');
    }
  }
}

/**
 * Refuses a call (`name(`, quoted or not) of a function PostgreSQL has with that name when any of its
 * versions is not built in, is volatile (side effects, sleeps, sequences, randomness) or reaches past
 * the query's rows (OUTSIDE_ROWS). Names PostgreSQL reads as syntax (COALESCE, NULLIF, GREATEST...)
 * have no function. Built-in functions are pinned, so pg_depend never lists them: the query's text
 * names every function it calls (`::` casts and operators of other types cannot be written).
 */
async function checkFunctions(tx: WriteTx, parsed: ParsedViewQuery): Promise<void> {
  const t = parsed.tokens;
  const called = [...new Set(t.filter((tok, i) => tok.kind === 'ident' && isPunct(t[i + 1], '(') && !(tok.quoted === false && KEYWORDS.has(tok.lower))).map((tok) => (tok.quoted ? tok.text : tok.lower)))];
  if (called.length === 0) return;
  const rows = await tx.all<{ name: string; volatile: string; builtin: number }>(`SELECT p.proname AS name, CAST(p.provolatile AS text) AS volatile,
      CASE WHEN p.oid < ${FIRST_USER_OID} AND n.nspname = 'pg_catalog' THEN 1 ELSE 0 END AS builtin
    FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
    WHERE p.proname IN (SELECT json_array_elements_text(CAST(CAST(? AS text) AS json)))`, [JSON.stringify(called)]);
  for (const name of called) {
    if (ARGUMENT_SIZED.has(name)) throw new ViewQueryError(`a view cannot call ${name}(): its cost is set by an argument, not by the rows read`);
  }
  for (const r of rows) {
    if (!r.builtin) throw new ViewQueryError(`a view cannot call ${r.name}(): only PostgreSQL's own functions`);
    if (r.volatile === 'v') throw new ViewQueryError(`a view cannot call ${r.name}(): it is volatile (its result or its effects are not those of the rows read)`);
    if (OUTSIDE_ROWS.test(r.name)) throw new ViewQueryError(`a view cannot call ${r.name}(): ${OUTSIDE}`);
  }
}

/**
 * Refuses a view whose plan (EXPLAIN of a read of it) scans a relation that is not a collection's
 * table: PostgreSQL's catalogs are pinned objects, which pg_depend does not list.
 */
async function checkPlan(tx: WriteTx, view: string, schema: readonly Collection[], schemaName: string): Promise<void> {
  const tables = new Set(schema.filter(readable).map((c) => POSTGRES.storedName(c.name)));
  const rows = await tx.all<{ plan: unknown }>(`EXPLAIN (VERBOSE, FORMAT JSON) SELECT * FROM ${ident(view)}`);
  const first = rows[0] as Record<string, unknown> | undefined;
  const raw = first === undefined ? [] : Object.values(first)[0];
  const plan = typeof raw === 'string' ? JSON.parse(raw) : raw;
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (typeof n['Relation Name'] === 'string') {
      const name = n['Relation Name'];
      if (n.Schema !== schemaName || !tables.has(name)) throw new ViewQueryError(`a view cannot read "${name}"`);
    }
    for (const value of Object.values(n)) if (typeof value === 'object') walk(value);
  };
  walk(plan);
}

/** The names a view may not qualify another name with: the database's schemas and its own name. */
async function qualifiers(tx: WriteTx): Promise<Set<string>> {
  const rows = await tx.all<{ name: string }>(`SELECT nspname AS name FROM pg_namespace UNION ALL SELECT current_database()`);
  return new Set(['pg_catalog', 'information_schema', 'public', 'pg_temp', ...rows.map((r) => r.name.toLowerCase())]);
}

/**
 * Creates (or re-creates) the PostgreSQL view of `c` over `schema`, with the fields `infer` makes of
 * its column names (views.ts, as on the desktop), and answers them. The view is then made again so
 * that its columns read as the fields say: a json field holds valid JSON text (SQLite's filters read a
 * text that is not JSON as a JSON string; PostgreSQL's cast to json would fail on it), so a column of
 * another type, or a text expression that is not a JSON number, true, false or null, becomes JSON
 * (`to_json`), while a column that is a json field of
 * what the view reads (`jsonSource`) already is; and an id that is not text (ROW_NUMBER()) is read as
 * text in byte order, as the filter compiler reads ids. Throws ViewQueryError with the reason.
 */
export async function realizePostgresView(
  tx: WriteTx, c: Collection, schema: readonly Collection[], parsed: ParsedViewQuery,
  infer: (columns: string[]) => Field[], jsonSource: (column: string) => boolean,
): Promise<Field[]> {
  return bounded(tx, () => realize(tx, c, schema, parsed, infer, jsonSource));
}

/**
 * What each statement of a view's save may take on PostgreSQL's clock (its statement_timeout): planning
 * a view of many joins takes PostgreSQL seconds, all of it inside the node's write turn, with every
 * write of the node queued behind it. A far bound, not a budget: a good view's statements take
 * milliseconds, and the 150 ms this was (the query budget) refused good saves when PostgreSQL shared a
 * busy machine (issue 28: a view's dependent check stopped at a load of 15).
 */
export const VIEW_SAVE_MS = 1_000;

/**
 * Each statement of a view's creation (its CREATE VIEW, the checks, the EXPLAIN that plans it) runs
 * under VIEW_SAVE_MS as its statement_timeout. Past it the save is refused with a 400 on viewQuery; the
 * transaction's own timeout is put back.
 */
async function bounded<T>(tx: WriteTx, fn: () => Promise<T>): Promise<T> {
  const before = (await tx.get<{ v: string }>(`SELECT current_setting('statement_timeout') AS v`))?.v ?? '0';
  await tx.get(`SELECT set_config('statement_timeout', CAST(? AS text), true) AS v`, [String(VIEW_SAVE_MS)]);
  try {
    return await fn();
  } catch (err) {
    if (err instanceof QueryTimeoutError || (err instanceof ViewQueryError && err.cause instanceof QueryTimeoutError)) {
      throw new ViewQueryError(`saving it needed more than ${VIEW_SAVE_MS} ms of database time and was stopped: the query is too heavy (fewer joins or subqueries)`);
    }
    throw err;
  } finally {
    await tx.get(`SELECT set_config('statement_timeout', CAST(? AS text), true) AS v`, [before]);
  }
}

async function realize(
  tx: WriteTx, c: Collection, schema: readonly Collection[], parsed: ParsedViewQuery,
  infer: (columns: string[]) => Field[], jsonSource: (column: string) => boolean,
): Promise<Field[]> {
  // a column SQLite names after its expression has no name PostgreSQL would give it: it needs an alias
  for (const col of parsed.columns) {
    const star = col.expr.length > 0 && isPunct(col.expr[col.expr.length - 1], '*');
    if (col.alias === null && !star) throw new ViewQueryError(`the column "${col.expr.map((x) => x.text).join(' ')}" needs an alias of letters, digits and _ (AS name)`);
  }
  const schemaName = (await tx.get<{ name: string }>(`SELECT current_schema() AS name`))?.name ?? 'public';
  const text = postgresQueryText(parsed, schema, await qualifiers(tx));
  await checkFunctions(tx, parsed);
  const named = new Set(parsed.tokens.filter((t) => t.kind === 'ident').map((t) => t.lower));
  const ctes = schema.filter((x) => readable(x) && named.has(x.name.toLowerCase())).map((x) => projection(x, schemaName));
  const body = `${ctes.length > 0 ? `WITH ${ctes.join(', ')} ` : ''}SELECT q."id" AS "_rowid_", q.* FROM (\n${text}\n) AS q`;
  const create = async (sql: string) => {
    // views over this one go with it: rebuildViews builds them again after it, in creation order
    await tx.run(`DROP VIEW IF EXISTS ${ident(c.name)} CASCADE`);
    try {
      await tx.run(`CREATE VIEW ${ident(c.name)} AS ${sql}`);
    } catch (err) {
      if (err instanceof QueryTimeoutError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new ViewQueryError(`${message} (${ENGINE}: the query is written for it as SQLite SQL translated; see docs)`);
    }
  };
  await create(body);
  await checkDependencies(tx, c.name, schema);
  await checkPlan(tx, c.name, schema, schemaName);
  const columns = await tx.all<{ name: string; type: string }>(`SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type FROM pg_attribute AS a
    WHERE a.attrelid = (SELECT k.oid FROM pg_class AS k WHERE k.relname = CAST(? AS text) AND k.relnamespace = CAST(current_schema() AS regnamespace))
      AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, [POSTGRES.storedName(c.name)]);
  const fields = infer(columns.map((r) => r.name).slice(1));
  const read = columns.slice(1).map((col, i) => {
    const field = fields[i];
    const ref = `w.${quote(col.name)}`;
    if (field.name === 'id' && col.type !== 'text') return `CAST(${ref} AS text) COLLATE "C" AS ${quote(col.name)}`;
    if (field.type !== 'json' || (col.type === 'text' && jsonSource(field.name))) return ref;
    if (col.type === 'json' || col.type === 'jsonb') return `CAST(${ref} AS text) AS ${quote(col.name)}`;
    // a text that is a JSON number, true, false or null stays one (the API reads SQLite's text so); any other a JSON string
    if (col.type === 'text') return `(CASE WHEN ${ref} ~ '${JSON_SCALAR}' THEN ${ref} ELSE CAST(to_json(${ref}) AS text) END) AS ${quote(col.name)}`;
    return `CAST(to_json(${ref}) AS text) AS ${quote(col.name)}`;
  });
  if (read.some((r, i) => r !== `w.${quote(columns[i + 1].name)}`)) await create(`SELECT w."_rowid_", ${read.join(', ')} FROM (${body}) AS w`);
  return fields;
}
