// The SQL dialect: everything the filter compiler (and the record resolver in server/rules/) writes
// differently for SQLite (sql.js, the desktop) and PostgreSQL 15 (the team server). One object per
// engine; compilation takes one through `CompileScope.dialect` and defaults to SQLITE, whose output is
// exactly the SQL the compiler wrote before dialects existed. Core's own statements (tables, indexes,
// upserts, list pages, sessions...; docs/architecture.md "The SQL dialect") take it too, through
// CoreEnv.dialect, and on SQLite stay what core wrote before.
//
// What differs, and how PostgreSQL is made to select the same rows in the same order as SQLite:
// - truth: SQLite's `1` / 0-1 integers; PostgreSQL's `TRUE` and booleans (bool columns and boolean
//   results such as `:changed` are read as 0/1 integers, so `published = true` binds 1 on both);
// - null-safe equality: `IS` / `IS NOT` → `IS NOT DISTINCT FROM` / `IS DISTINCT FROM`;
// - types: SQLite compares values of any type (affinities, then NULL < numbers < texts); PostgreSQL
//   needs one type per comparison. Each Value carries its type (`SqlType`) and SQLite's affinity
//   (`Affinity`), and `operands` applies SQLite's rules: a NUMERIC side reads a numeric text as a
//   number, a TEXT column turns a number without affinity into text, and otherwise both sides become
//   rows (rank, number, text) that PostgreSQL orders as SQLite orders mixed types; a JSON value (json
//   field, `json.a.b`) is read once per row and ranked the same way, or written as SQLite writes it
//   where it meets text. Nothing a filter can say raises a PostgreSQL error: casts are guarded;
// - collation: texts compare and sort in byte order (`COLLATE "C"`, SQLite's BINARY), whatever the
//   database's default collation is;
// - NULLs sort first ascending and last descending (`NULLS FIRST` / `NULLS LAST`), as in SQLite;
// - `~` / `:lower`: SQLite's LIKE and LOWER fold ASCII letters only, PostgreSQL's ILIKE and LOWER fold
//   all of Unicode: folding is `translate()` over A-Z on both sides of a plain LIKE;
// - JSON: `json_each` / `json_array_length` / `json_extract` → `json_array_elements_text`,
//   `json_array_length`, `#>`; JSON is stored as text (the stored bytes, key order included, stay
//   what the API returns) and a CHECK constraint keeps it valid, so every `::json` read succeeds.
//   `json`, not `jsonb`: it keeps a value's own text (an object at a path reads as the stored text,
//   as json_extract gives it, where jsonb would reorder keys and add spaces), and casting text to
//   json only validates it;
// - placeholders: `?` → `$1`, `$2`... (`statement`);
// - identifiers: PostgreSQL truncates names past 63 bytes, so two long names could meet; a longer name
//   is written as its first 52 bytes, `_` and 10 characters of its SHA-256 (`postgresName`), stable
//   across processes, in the DDL and in every statement (`statement`);
// - deadline guards (guard.ts) exist for sql.js, which cannot interrupt a statement; PostgreSQL
//   enforces the query budget itself (`statement_timeout`), so no guard is emitted for it;
// - `strftime()` is SQLite's function: on PostgreSQL it is written with to_char and date arithmetic
//   for the formats and modifiers that mean the same (strftime-postgres.ts); any other is refused with
//   a FilterError (a 400) naming it.
import { createHash } from 'node:crypto';
import { param, sql, type Frag, type SqlValue } from './sql.js';
import { postgresStrftime, type StrftimeBuild } from './strftime-postgres.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * What a value's SQL gives, when known: a text, a number, or (`json`) a JSON value (SQLite's
 * json_extract result; a `json` value on PostgreSQL). Unknown is read as text.
 */
export type SqlType = 'text' | 'number' | 'json';

/**
 * SQLite's affinity of a value, which decides how it meets a value of another type: a column of a
 * number (or bool, or declared JSON) field has NUMERIC affinity, a text column TEXT; expressions
 * (json_extract, json_each's items, LOWER, `:length`...) and bound values have none.
 */
export type Affinity = 'numeric' | 'text';

/** One side of a comparison, as the dialect sees it. */
export interface Operand {
  sql: Frag;
  type?: SqlType;
  affinity?: Affinity;
  /** The bound value when the side is a literal, request value or macro (its SQL is then `?`, `''` or NULL). */
  static?: { value: SqlValue };
}

export interface Dialect {
  readonly name: DialectName;
  /** The condition that is always true (a blank rule; `ON` of a join that needs no condition). */
  readonly true: Frag;
  /** Whether guarded compilation emits deadline checks (filter/guard.ts). */
  readonly guards: boolean;
  /** Whether a text may hold U+0000 (PostgreSQL's text cannot: a write holding one is refused, naming the field). */
  readonly storesNul: boolean;
  /**
   * Whether the engine reads a collection (table) or field (column) of this name as its own, so that a
   * statement naming it would reach something else: SQLite's `sqlite_` tables; PostgreSQL's catalog
   * relations (pg_catalog is searched before public: `pg_settings` would be the catalog's) and its
   * system columns (`ctid`, `xmin`...). Such a name is refused when a collection is saved
   * (core/collections-input.ts) and when a desktop folder is moved up (core/transfer/desktop-folder.ts).
   */
  reserves(kind: 'table' | 'column', name: string): boolean;
  /**
   * `strftime()` written for an engine without SQLite's: a builder over the time value, or why the
   * format or a modifier cannot be written (the compiler refuses the filter, naming it). Absent:
   * the engine has SQLite's own.
   */
  readonly strftime?: (format: string, modifiers: readonly string[]) => StrftimeBuild | string;
  /** `a IS b` (`negate`: `a IS NOT b`): equality where NULL equals NULL. */
  same(a: Frag, b: Frag, negate: boolean): Frag;
  /**
   * Both sides of a comparison, brought to one type. `ordering`: the operator is `>`, `>=`, `<` or `<=`
   * (SQLite applies a column's affinity to them, not to the null-normalised `=` of two columns).
   */
  operands(left: Operand, right: Operand, ordering?: boolean): [Frag, Frag];
  /** `COALESCE(x, '')` as text. */
  orEmpty(x: Frag): Frag;
  /** `x` is '' or NULL (`negate`: neither). */
  isEmpty(x: Frag, negate: boolean): Frag;
  /** `text LIKE pattern ESCAPE '\'`, ASCII letters folded; `fixed`: the pattern's value when it is bound. */
  like(text: Frag, pattern: Frag, negate: boolean, fixed?: string): Frag;
  /** ASCII-only lower case of any value that is not static, as text. */
  lower(x: Operand): Frag;
  /** Any value as text (`~` reads both sides so). */
  text(x: Operand): Frag;
  /** Any value as a number (geoDistance's arguments). */
  number(x: Operand): Frag;
  /** A FROM item over the items of a JSON array (text), whose rows are read as `<alias>.value`. */
  jsonEach(array: Frag): Frag;
  jsonArrayLength(array: Frag): Frag;
  /** A single stored value as a JSON array text: '' or NULL → [], anything else → a one-item array. */
  jsonArrayOf(value: Frag): Frag;
  /** The JSON value at `path` (object keys and array indexes) of a stored JSON column. */
  jsonPath(column: Frag, path: readonly string[]): Frag;
  /** A stored boolean column as 0/1. */
  boolColumn(column: Frag): Frag;
  /** A condition as a 0/1 value. */
  boolValue(condition: Frag): Frag;
  /** Scalar greatest/least of two values (geoDistance's clamp). */
  greatest(a: Frag, b: Frag): Frag;
  least(a: Frag, b: Frag): Frag;
  /** One ORDER BY term: SQLite's order (NULLs first ascending, texts in byte order). */
  orderTerm(x: Frag, type: SqlType | undefined, desc: boolean): Frag;
  /** A complete statement's text as the engine takes it (placeholders, long identifiers). */
  statement(text: string): string;
  /** A table or column name as the engine stores it (long names shortened on PostgreSQL). */
  storedName(name: string): string;

  // What core/ writes (collections, records, sessions, sign-in): statement texts with `?` placeholders
  // and quoted names, which the store puts through `statement()`.
  /**
   * The join of a list's page of row keys back to its rows (a deferred join), `ON` following: SQLite's
   * `CROSS JOIN`, whose outer loop keeps the keys' order. Absent: the engine reads a page in one pass
   * (PostgreSQL: a join keeps no order, and its sorter needs no such help).
   */
  readonly keyJoin?: string;
  /** `column` equal to one bound value (`?`) ignoring ASCII case only (SQLite's NOCASE; a sign-in e-mail). */
  equalsNoCase(column: string): string;
  /** The key of the unique index over `column` that `equalsNoCase` uses. */
  noCaseKey(column: string): string;
  /**
   * What a statement reading one table's rows (as `alias`, when it has one) ends with to read them in
   * insertion order: nothing on SQLite, whose scans go in rowid order; `ORDER BY "_rowid_"` on PostgreSQL.
   */
  rowOrder(alias?: string): string;
  /** A FROM item over the items (as text) of a stored JSON list, each read as `json_each.value`. */
  jsonItems(list: string): string;
  /** A top-level key of a stored JSON object as text (byte-ordered), NULL when absent. */
  jsonText(column: string, key: string): string;
  /** A top-level boolean key of a stored JSON object as the engine's truth value (a bool column). */
  jsonFlag(column: string, key: string): string;
  /** A bound value (`?`) typed as a column of a field of `fieldType` holds it (a row built from values: `(SELECT ? AS "a")`). */
  typedParam(fieldType: string): string;
  /** Insert one row (`?` per column) or, when a row with the same `key` exists, replace its other columns. */
  upsert(table: string, columns: readonly string[], key: readonly string[]): string;
  /** The names of the indexes made by CREATE INDEX on one table (one `?`: the table's name as given). */
  readonly indexNames: string;
  /** A stored JSON list's last item as text, '' when empty (a multiple field made single). */
  lastItem(list: string): string;
  /** A single stored value as a one-item JSON list, '[]' for '' or NULL (a single field made multiple). */
  listOf(value: string): string;
  /**
   * A collection's table when the engine's columns are not core's own (SQLite's, from the field specs):
   * the CREATE TABLE and what else the table needs, without the collection's indexes. Absent: core's.
   */
  readonly tableSql?: (model: TableModel) => string[];
  /** One index over plain columns (`CREATE [UNIQUE] INDEX`); absent: core's own. */
  readonly indexSql?: (table: string, index: { name: string; unique: boolean }, columns: readonly string[]) => string;
  /**
   * Copies the rows of a table being rebuilt into its new table (fields matched by id, `exprs` reading
   * them), keeping their order (`_rowid_`) and the order of rows inserted after.
   */
  copyRows(into: string, from: string, columns: readonly string[], exprs: readonly string[]): string[];
  /**
   * After rows were inserted with their own `_rowid_`s (a table rebuilt, a desktop moved up): what makes
   * the next insert continue after them. Nothing on SQLite (its rowid does); PostgreSQL's identity is set.
   */
  continueRowOrder(table: string): string[];
  /** Renames a collection's table, and whatever is named after it (its keys' constraints on PostgreSQL). */
  renameTable(from: string, to: string): string[];
}

const ASC = sql` ASC`;
const DESC = sql` DESC`;

export const SQLITE: Dialect = {
  name: 'sqlite',
  true: { text: '1', params: [] },
  guards: true,
  storesNul: true,
  reserves: (kind, name) => kind === 'table' && name.toLowerCase().startsWith('sqlite_'),
  same: (a, b, negate) => (negate ? sql`${a} IS NOT ${b}` : sql`${a} IS ${b}`),
  operands: (left, right) => [left.sql, right.sql],
  orEmpty: (x) => sql`COALESCE(${x}, '')`,
  isEmpty: (x, negate) => (negate ? sql`(${x} IS NOT '' AND ${x} IS NOT NULL)` : sql`(${x} = '' OR ${x} IS NULL)`),
  like: (text, pattern, negate) => (negate ? sql`${text} NOT LIKE ${pattern} ESCAPE '\\'` : sql`${text} LIKE ${pattern} ESCAPE '\\'`),
  lower: (x) => sql`LOWER(${x.sql})`,
  text: (x) => x.sql,
  number: (x) => x.sql,
  jsonEach: (array) => sql`json_each(${array})`,
  jsonArrayLength: (array) => sql`json_array_length(${array})`,
  // Nested CASE, not AND: json_type() throws on invalid JSON and SQLite does not promise short-circuits.
  jsonArrayOf: (value) => sql`(CASE WHEN json_valid(${value}) THEN (CASE WHEN json_type(${value}) = 'array' THEN ${value} ELSE json_array(${value}) END) WHEN ${value} = '' OR ${value} IS NULL THEN '[]' ELSE json_array(${value}) END)`,
  jsonPath: (column, path) => {
    const doc = sql`(CASE WHEN json_valid(${column}) THEN ${column} ELSE json_quote(${column}) END)`;
    return path.length === 0 ? sql`json_extract(${doc}, '$')` : sql`json_extract(${doc}, ${param(sqlitePath(path))})`;
  },
  boolColumn: (column) => column,
  boolValue: (condition) => condition,
  greatest: (a, b) => sql`max(${a}, ${b})`,
  least: (a, b) => sql`min(${a}, ${b})`,
  orderTerm: (x, _type, desc) => sql`${x}${desc ? DESC : ASC}`,
  statement: (text) => text,
  storedName: (name) => name,
  keyJoin: 'CROSS JOIN',
  rowOrder: () => '',
  jsonItems: (list) => `json_each(${list})`,
  jsonText: (column, key) => `json_extract(${column}, '$.${checkedName(key)}')`,
  jsonFlag: (column, key) => `json_extract(${column}, '$.${checkedName(key)}')`,
  typedParam: () => '?',
  equalsNoCase: (column) => `${column} COLLATE NOCASE = ?`,
  noCaseKey: (column) => `${column} COLLATE NOCASE`,
  upsert: (table, columns) => `INSERT OR REPLACE INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  indexNames: `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`,
  lastItem: (list) => `COALESCE(json_extract(${list}, '$[#-1]'), '')`,
  listOf: (value) => `CASE WHEN ${value} IS NULL OR ${value} = '' THEN '[]' ELSE json_array(${value}) END`,
  copyRows: (into, from, columns, exprs) => [`INSERT INTO ${quoted(into)} (${columns.map(quoted).join(', ')}) SELECT ${exprs.join(', ')} FROM ${quoted(from)}`],
  continueRowOrder: () => [],
  renameTable: (from, to) => [`ALTER TABLE ${quoted(from)} RENAME TO ${quoted(to)}`],
};

/** A checked name in double quotes (what filter/sql.ts's ident() writes). */
function quoted(name: string): string {
  return `"${checkedName(name)}"`;
}

function sqlitePath(path: readonly string[]): string {
  return `$${path.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('')}`;
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const FOLD: Frag = { text: `'${UPPER}', '${UPPER.toLowerCase()}'`, params: [] };
const BYTES: Frag = { text: 'COLLATE "C"', params: [] };

function asciiLower(text: Frag): Frag {
  return sql`translate(${text}, ${FOLD})`;
}

/** Texts compare in byte order whatever the column's or the database's collation. */
function byteOrder(x: Frag): Frag {
  return sql`(${x} ${BYTES})`;
}

const NUMERIC_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
/**
 * A text PostgreSQL reads as a number without ever raising an error: NUMERIC_TEXT with at most three
 * exponent digits (a longer exponent reads as a text on PostgreSQL, where SQLite takes ±Infinity or 0).
 */
const NUMBER_RE = '[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?';
const NUMERIC_PATTERN: Frag = param(`^\\s*${NUMBER_RE}\\s*$`);

/**
 * A text that matches NUMERIC_PATTERN as a double, through numeric so that nothing overflows:
 * past double's range it is ±Infinity, below its smallest normal value 0.
 */
function textToNumber(x: Frag): Frag {
  const n = sql`CAST(${x} AS numeric)`;
  return sql`(CASE WHEN abs(${n}) > 1.7976931348623157e308 THEN (CASE WHEN ${n} > 0 THEN CAST('Infinity' AS double precision) ELSE CAST('-Infinity' AS double precision) END) WHEN abs(${n}) < 2.2250738585072014e-308 THEN CAST(0 AS double precision) ELSE CAST(${n} AS double precision) END)`;
}

/** A text as SQLite's math functions read it: a number if it reads as one, else NULL. */
function textAsNumber(x: Frag): Frag {
  return sql`(CASE WHEN ${x} ~ ${NUMERIC_PATTERN} THEN ${textToNumber(x)} END)`;
}

/** A bound value as a typed PostgreSQL expression. */
function typedStatic(value: SqlValue, as: 'text' | 'number'): Frag {
  if (value === null) return as === 'text' ? sql`CAST(NULL AS text)` : sql`CAST(NULL AS double precision)`;
  if (as === 'number') return sql`CAST(${param(typeof value === 'number' ? value : Number(value))} AS double precision)`;
  // A number read as text the way SQLite converts it (integers without `.0`).
  return sql`CAST(${param(typeof value === 'number' ? String(value) : value)} AS text)`;
}

/**
 * Text (a column, or a bound value) as json. Through `text` first: a driver that types its parameters
 * from the statement (postgres.js) would otherwise take a bound JSON text for a value to encode as JSON.
 */
function json(x: Frag): Frag {
  return sql`CAST(${nulFree(sql`CAST(${x} AS text)`)} AS json)`;
}

/**
 * JSON text with each escaped U+0000 (a `\u0000` whose backslash is not itself escaped) read as U+FFFD: PostgreSQL's json
 * holds one but fails reading it out as text ("unsupported Unicode escape sequence"), and writes refuse
 * it (core/writes/write-sql.ts, unstorableErrors), but a value stored before (moved up from a desktop)
 * must not make every filter on its field fail: it matches as the replacement character instead.
 */
function nulFree(text: Frag): Frag {
  return sql`(CASE WHEN strpos(${text}, '\\u0000') > 0 THEN regexp_replace(${text}, '(?<!\\\\)((?:\\\\\\\\)*)\\\\u0000', '\\1\\\\ufffd', 'g') ELSE ${text} END)`;
}


/** A JSON number (true/false as 1/0, as json_extract gives them), NULL otherwise. */
function jsonNumber(x: Frag): Frag {
  return sql`(CASE json_typeof(${x}) WHEN 'number' THEN (CASE WHEN ${x} #>> '{}' ~ ${NUMERIC_PATTERN} THEN ${textToNumber(sql`${x} #>> '{}'`)} END) WHEN 'boolean' THEN (CASE WHEN ${x} #>> '{}' = 'true' THEN 1 ELSE 0 END) END)`;
}

/** A JSON string, object or array as SQLite's json_extract gives it as text; NULL for numbers, booleans, null. */
function jsonString(x: Frag): Frag {
  return sql`(CASE WHEN json_typeof(${x}) IN ('string', 'object', 'array') THEN ${x} #>> '{}' END)`;
}

type Target = 'text' | 'number' | 'json';

/** `ordering`: '' is a text like any other (only `=` / `!=` treat it as NULL's twin). */
function typeOf(o: Operand, ordering = false): Target | 'empty' {
  if (o.static !== undefined) {
    const v = o.static.value;
    if (v === null || (v === '' && !ordering)) return 'empty';
    return typeof v === 'number' ? 'number' : 'text';
  }
  return o.type ?? 'text';
}

/** One side read as `as`. */
function pgAs(o: Operand, as: 'text' | 'number' | 'any-text'): Frag {
  const t = typeOf(o);
  if (o.static !== undefined) return as === 'number' ? typedStatic(o.static.value, 'number') : byteOrder(typedStatic(o.static.value, 'text'));
  if (t === 'json') return as === 'number' ? jsonNumber(o.sql) : as === 'text' ? jsonString(o.sql) : jsonAsText(o.sql);
  if (as === 'number') return t === 'number' ? o.sql : textAsNumber(o.sql);
  return t === 'text' ? byteOrder(o.sql) : byteOrder(sql`CAST(${o.sql} AS text)`);
}

/**
 * `body` over `x` computed once: PostgreSQL would otherwise evaluate (parse) a JSON read at every place
 * `body` names it. OFFSET 0 keeps the subquery from being pulled up, which would copy `x` back in.
 */
function once(x: Frag, body: (ref: Frag) => Frag): Frag {
  return sql`(SELECT ${body(sql`_j.j`)} FROM (SELECT ${x} AS j OFFSET 0) AS _j)`;
}

/** A JSON value as SQLite turns json_extract's result into text: numbers as numbers, true as 1. */
function jsonAsText(x: Frag): Frag {
  return once(x, (j) => sql`(CASE json_typeof(${j}) WHEN 'boolean' THEN (CASE WHEN ${j} #>> '{}' = 'true' THEN '1' ELSE '0' END) WHEN 'number' THEN CAST(${jsonNumber(j)} AS text) WHEN 'null' THEN NULL ELSE ${j} #>> '{}' END)`);
}

/**
 * A side of a comparison with a JSON value, as SQLite orders values of any type: a row (rank, number,
 * text) where NULL has no row, numbers (true and false as 1 and 0) rank 1 and texts (JSON strings,
 * objects and arrays) rank 2. PostgreSQL compares rows element by element, so a JSON value compares
 * with a number or a text the way json_extract's result does on SQLite: `meta.rank > 1` holds for any
 * text rank, `meta.rank = 1` for a number 1 or `true` only.
 */
function ranked(o: Operand, affinity = false, emptyAsNull = false): Frag {
  const t = typeOf(o);
  if (affinity && t === 'text' && o.static === undefined) {
    // A text column against a number column: SQLite's NUMERIC affinity reads a numeric text as a number.
    const x = o.sql;
    return sql`(CASE WHEN ${x} IS NULL THEN NULL WHEN ${x} ~ ${NUMERIC_PATTERN} THEN ROW(1, ${textToNumber(x)}, ${byteOrder(sql`CAST('' AS text)`)}) ELSE ROW(2, CAST(0 AS double precision), ${byteOrder(x)}) END)`;
  }
  if (t === 'json') {
    return once(o.sql, (x) => {
      // SQL NULL and JSON null have no rank (the comparison is NULL, as on SQLite). With `affinity`
      // (against a number column), a string that reads as a number is one.
      const numericString = affinity ? sql`json_typeof(${x}) = 'string' AND ${x} #>> '{}' ~ ${NUMERIC_PATTERN}` : sql`FALSE`;
      const rank = sql`(CASE WHEN ${numericString} THEN 1 ELSE (CASE json_typeof(${x}) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 END) END)`;
      const number = sql`COALESCE(CASE WHEN ${numericString} THEN ${textToNumber(sql`${x} #>> '{}'`)} ELSE ${jsonNumber(x)} END, CAST(0 AS double precision))`;
      const text = byteOrder(sql`COALESCE(CASE WHEN ${numericString} THEN NULL ELSE ${jsonString(x)} END, CAST('' AS text))`);
      return sql`(CASE WHEN ${rank} IS NOT NULL THEN ROW(${rank}, ${number}, ${text}) END)`;
    });
  }
  if (t === 'number') {
    const n = sql`CAST(${pgAs(o, 'number')} AS double precision)`;
    return sql`(CASE WHEN ${n} IS NOT NULL THEN ROW(1, ${n}, ${byteOrder(sql`CAST('' AS text)`)}) END)`;
  }
  const text = pgAs(o, 'text');
  const present = emptyAsNull ? sql`COALESCE(${text}, '') <> ''` : sql`${text} IS NOT NULL`;
  return sql`(CASE WHEN ${present} THEN ROW(2, CAST(0 AS double precision), ${byteOrder(text)}) END)`;
}

function pgOperands(left: Operand, right: Operand, ordering = false): [Frag, Frag] {
  const lt = typeOf(left, ordering);
  const rt = typeOf(right, ordering);
  if (lt === 'empty' || rt === 'empty') return [pgAs(left, 'any-text'), pgAs(right, 'any-text')];
  if (lt === 'json' || rt === 'json') {
    // json_extract's result has no affinity: a text column's TEXT affinity makes it a text, a number
    // column's NUMERIC affinity reads a string that looks like a number as one.
    const other = lt === 'json' ? right : left;
    if (other.static === undefined && typeOf(other) !== 'json' && other.affinity === 'text') {
      const json = lt === 'json' ? left : right;
      const pair: [Frag, Frag] = [byteOrder(jsonAsText(json.sql)), pgAs(other, 'text')];
      return lt === 'json' ? pair : [pair[1], pair[0]];
    }
    const numeric = other.static === undefined && other.affinity === 'numeric';
    return [ranked(left, lt === 'json' && numeric), ranked(right, rt === 'json' && numeric)];
  }
  if (lt === 'number' && rt === 'number') return [pgAs(left, 'number'), pgAs(right, 'number')];
  if (lt !== 'number' && rt !== 'number') return [pgAs(left, 'text'), pgAs(right, 'text')];
  // A number against a text, as SQLite's affinities decide it.
  const [num, text] = lt === 'number' ? [left, right] : [right, left];
  let pair: [Frag, Frag];
  if (num.affinity === 'numeric') {
    // A number column gives the other side NUMERIC affinity: a text that reads as a number is one.
    if (text.static !== undefined && NUMERIC_TEXT.test(String(text.static.value))) pair = [pgAs(num, 'number'), pgAs(text, 'number')];
    // Otherwise every number is below every text.
    else if (ordering || text.static !== undefined) pair = [ranked(num), ranked(text, true)];
    // The `=` of two columns compares their null-normalised values (COALESCE), which have no affinity:
    // a number never equals a text, and NULL equals '' (so '' ranks as NULL here).
    else pair = [ranked(num), ranked(text, false, true)];
  } else if (text.affinity === 'text') {
    // A number without affinity (bound, or an expression) takes a text column's TEXT affinity.
    pair = [pgAs(num, 'text'), pgAs(text, 'text')];
  } else {
    // Neither has affinity: no conversion, every number below every text.
    pair = ordering || num.static !== undefined || text.static !== undefined ? [ranked(num), ranked(text)] : [ranked(num), ranked(text, false, true)];
  }
  return lt === 'number' ? pair : [pair[1], pair[0]];
}

const PG_MAX_IDENTIFIER_BYTES = 63;

/** A name PostgreSQL keeps whole: names past 63 bytes become their first 52 bytes, `_` and a hash. */
export function postgresName(name: string): string {
  if (Buffer.byteLength(name) <= PG_MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  // `\w` names are ASCII, so characters are bytes.
  return `${name.slice(0, PG_MAX_IDENTIFIER_BYTES - hash.length - 1)}_${hash}`;
}

/**
 * SQLite text → PostgreSQL text: `?` outside quotes becomes `$n`, a quoted identifier past 63 bytes
 * becomes its `postgresName`. String literals and quoted identifiers are skipped whole, so a `?` in
 * either is left alone. The SQL it takes is Deskbase's own: no `E''` strings, dollar quotes, comments
 * or jsonb `?` operators, which this scan would misread.
 */
function pgStatement(text: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(c, j);
        if (k === -1) throw new Error(`unterminated ${c} in SQL`);
        if (text[k + 1] === c) j = k + 2;
        else {
          j = k;
          break;
        }
      }
      const body = text.slice(i + 1, j);
      out += c === '"' ? `"${postgresName(body)}"` : text.slice(i, j + 1);
      i = j;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  return out;
}

/** Rows given their `_rowid_` leave the identity behind: the next insert continues after them. */
const POSTGRES_CONTINUE = (table: string): string[] => [
  `SELECT setval(pg_get_serial_sequence('${quoted(postgresName(table))}', '${ROW_ORDER_COLUMN}'), COALESCE(MAX("${ROW_ORDER_COLUMN}"), 0) + 1, false) FROM ${quoted(table)}`,
];

/** PostgreSQL's system columns, present in every table (a column of one of these names cannot be made). */
const PG_SYSTEM_COLUMNS = new Set(['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid']);

export const POSTGRES: Dialect = {
  name: 'postgres',
  true: { text: 'TRUE', params: [] },
  guards: false,
  storesNul: false,
  reserves: (kind, name) => (kind === 'table' ? name.toLowerCase().startsWith('pg_') : PG_SYSTEM_COLUMNS.has(name.toLowerCase())),
  strftime: (format, modifiers) => postgresStrftime(format, modifiers, (x) => pgAs(x, 'any-text')),
  same: (a, b, negate) => (negate ? sql`${a} IS DISTINCT FROM ${b}` : sql`${a} IS NOT DISTINCT FROM ${b}`),
  operands: pgOperands,
  orEmpty: (x) => sql`COALESCE(CAST(${x} AS text), '')`,
  isEmpty: (x, negate) => (negate ? sql`COALESCE(CAST(${x} AS text), '') <> ''` : sql`COALESCE(CAST(${x} AS text), '') = ''`),
  like: (text, pattern, negate, fixed) => {
    const t = asciiLower(sql`CAST(${text} AS text)`);
    const p = asciiLower(sql`CAST(${pattern} AS text)`);
    const plain = negate ? sql`${t} NOT LIKE ${p} ESCAPE '\\'` : sql`${t} LIKE ${p} ESCAPE '\\'`;
    // A bound pattern ending in a lone escape: PostgreSQL raises an error, SQLite matches nothing. (A
    // pattern read from the row always ends in the `%` compare.ts wraps it in.)
    if (fixed !== undefined && /(^|[^\\])(\\\\)*\\$/.test(fixed)) return sql`(CASE WHEN ${t} IS NOT NULL THEN ${negate ? sql`TRUE` : sql`FALSE`} END)`;
    return plain;
  },
  lower: (x) => byteOrder(asciiLower(pgAs(x, 'any-text'))),
  text: (x) => pgAs(x, 'any-text'),
  number: (x) => pgAs(x, 'number'),
  jsonEach: (array) => sql`json_array_elements_text(${json(array)})`,
  jsonArrayLength: (array) => sql`json_array_length(${json(array)})`,
  jsonArrayOf: (value) => sql`(CASE WHEN ${value} IS NULL OR ${value} = '' THEN '[]' ELSE CAST(json_build_array(${value}) AS text) END)`,
  jsonPath: (column, path) => {
    const doc = json(column);
    if (path.length === 0) return doc;
    return sql`(${doc} #> CAST(CAST(${param(`{${path.map((s) => `"${s}"`).join(',')}}`)} AS text) AS text[]))`;
  },
  boolColumn: (column) => sql`CAST(${column} AS integer)`,
  boolValue: (condition) => sql`(CASE WHEN ${condition} THEN 1 ELSE 0 END)`,
  // SQLite's max(a, b) and min(a, b) are NULL when an argument is; GREATEST and LEAST skip NULLs.
  greatest: (a, b) => sql`(CASE WHEN ${a} IS NOT NULL AND ${b} IS NOT NULL THEN GREATEST(${a}, ${b}) END)`,
  least: (a, b) => sql`(CASE WHEN ${a} IS NOT NULL AND ${b} IS NOT NULL THEN LEAST(${a}, ${b}) END)`,
  orderTerm: (x, type, desc) => {
    const tail = desc ? sql` DESC NULLS LAST` : sql` ASC NULLS FIRST`;
    if (type === 'number') return sql`${x}${tail}`;
    if (type !== 'json') return sql`${byteOrder(sql`CAST(${x} AS text)`)}${tail}`;
    // SQLite orders json_extract's results NULL, numbers (true/false as 1/0), then texts.
    const rank = sql`(CASE WHEN ${x} IS NULL OR json_typeof(${x}) = 'null' THEN 0 WHEN json_typeof(${x}) IN ('number', 'boolean') THEN 1 ELSE 2 END)`;
    return sql`${rank}${desc ? DESC : ASC}, ${jsonNumber(x)}${tail}, ${byteOrder(jsonString(x))}${tail}`;
  },
  statement: pgStatement,
  storedName: postgresName,
  rowOrder: (alias) => ` ORDER BY ${alias === undefined ? '' : `${checkedAlias(alias)}.`}"${ROW_ORDER_COLUMN}"`,
  // named as SQLite's table-valued function is, so the statement around it reads `json_each.value` on both
  jsonItems: (list) => `json_array_elements_text(CAST(CAST(${list} AS text) AS json)) AS json_each(value)`,
  jsonText: (column, key) => `((CAST(${column} AS json) ->> '${checkedName(key)}') COLLATE "C")`,
  jsonFlag: (column, key) => `COALESCE((CAST(${column} AS json) ->> '${checkedName(key)}') = 'true', FALSE)`,
  // a bool through text: a driver typing the parameter from the statement sends 1/0 and true/false as
  // '1', 'true'..., which PostgreSQL reads as booleans (typed boolean, postgres.js would send 1 as false)
  typedParam: (fieldType) => (fieldType === 'number' ? 'CAST(? AS double precision)' : fieldType === 'bool' ? 'CAST(CAST(? AS text) AS boolean)' : 'CAST(? AS text)'),
  // `<> ''` as the index's predicate says (a value to match is never ''), so the partial index serves it
  equalsNoCase: (column) => `(translate(${column}, '${UPPER}', '${UPPER.toLowerCase()}') = translate(CAST(? AS text), '${UPPER}', '${UPPER.toLowerCase()}') AND ${column} != '')`,
  noCaseKey: (column) => `translate(${column}, '${UPPER}', '${UPPER.toLowerCase()}')`,
  upsert: (table, columns, key) => {
    const rest = columns.filter((c) => !key.includes(c));
    const set = rest.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${rest.map((c) => `${quoted(c)} = EXCLUDED.${quoted(c)}`).join(', ')}`;
    return `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT (${key.map(quoted).join(', ')}) ${set}`;
  },
  // The table's name as stored (postgresName): a bound value is not a quoted name, so statement() leaves it.
  indexNames: `SELECT i.indexname AS name FROM pg_indexes AS i WHERE i.schemaname = current_schema() AND i.tablename = CAST(? AS text) AND NOT EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conname = i.indexname AND k.connamespace = CAST(current_schema() AS regnamespace))`,
  // Text holding a JSON list (the CHECK of postgresTableSql keeps it one): its last item as text.
  lastItem: (list) => `COALESCE((CAST(${list} AS json) ->> (json_array_length(CAST(${list} AS json)) - 1)), '')`,
  listOf: (value) => `(CASE WHEN ${value} IS NULL OR ${value} = '' THEN '[]' ELSE CAST(json_build_array(${value}) AS text) END)`,
  tableSql: (model) => postgresTableSql({ ...model, indexes: [] }),
  indexSql: (table, index, columns) =>
    // NULLS FIRST: read forwards the index gives SQLite's ascending order, backwards its descending one.
    `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${quoted(index.name)} ON ${quoted(table)} (${columns.map((c) => `${quoted(c)} NULLS FIRST`).join(', ')})`,
  copyRows: (into, from, columns, exprs) => [
    `INSERT INTO ${quoted(into)} ("${ROW_ORDER_COLUMN}", ${columns.map(quoted).join(', ')}) SELECT "${ROW_ORDER_COLUMN}", ${exprs.join(', ')} FROM ${quoted(from)}`,
    ...POSTGRES_CONTINUE(into),
  ],
  continueRowOrder: (table) => POSTGRES_CONTINUE(table),
  renameTable: (from, to) => [
    `ALTER TABLE ${quoted(from)} RENAME TO ${quoted(to)}`,
    ...tableConstraints.map((suffix) => `ALTER TABLE ${quoted(to)} RENAME CONSTRAINT ${quoted(constraintName(from, suffix))} TO ${quoted(constraintName(to, suffix))}`),
  ],
};

export function dialectOf(name: DialectName | undefined): Dialect {
  return name === 'postgres' ? POSTGRES : SQLITE;
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL tables: how a collection is laid out (the store creates them with these statements).

/** What the table layout reads of a collection (server/model's Collection fits it). */
export interface TableModel {
  name: string;
  fields: readonly { id: string; name: string; type: string; maxSelect?: number; primaryKey?: boolean }[];
  indexes: readonly { name: string; fields: readonly string[]; unique?: boolean }[];
}

/** The column standing for SQLite's `_rowid_`: the order rows were inserted in, `@rowid` and the tie-break of every list. */
export const ROW_ORDER_COLUMN = '_rowid_';

function isMultiValued(field: TableModel['fields'][number]): boolean {
  return (field.type === 'select' || field.type === 'relation' || field.type === 'file') && (field.maxSelect ?? 0) > 1;
}

const TEXT = 'text COLLATE "C"';

/**
 * A field's column on PostgreSQL. Texts (dates included: ISO 8601 texts compare in time order, as on
 * SQLite) are `text COLLATE "C"`; numbers `double precision`; booleans `boolean`; JSON (json fields,
 * geoPoints, multiple select/relation/file lists) is text holding the JSON as stored, kept valid by a
 * CHECK, so reads can cast it to json and the API returns the stored bytes.
 */
function postgresColumn(field: TableModel['fields'][number]): string {
  const name = `"${postgresName(checkedName(field.name))}"`;
  if (isKey(field)) return `${name} ${TEXT} NOT NULL`;
  const asJson = (typeof_: string) => `CHECK (json_typeof(CAST(${name} AS json)) = '${typeof_}')`;
  switch (field.type) {
    case 'number':
      return `${name} double precision DEFAULT 0 NOT NULL`;
    case 'bool':
      return `${name} boolean DEFAULT FALSE NOT NULL`;
    case 'json':
      return `${name} ${TEXT} DEFAULT NULL CHECK (${name} IS NULL OR CAST(${name} AS json) IS NOT NULL)`;
    case 'geoPoint':
      return `${name} ${TEXT} DEFAULT '{"lon":0,"lat":0}' NOT NULL ${asJson('object')}`;
    default:
      return isMultiValued(field) ? `${name} ${TEXT} DEFAULT '[]' NOT NULL ${asJson('array')}` : `${name} ${TEXT} DEFAULT '' NOT NULL`;
  }
}

function isKey(field: TableModel['fields'][number]): boolean {
  return field.primaryKey === true || (field.name === 'id' && field.type === 'text');
}

/**
 * The constraints a table's keys make, named after the table (renameTable renames them with it), so
 * that a table renamed or rebuilt leaves no name behind for the next table of that name to meet.
 */
const tableConstraints = ['pkey', 'rowid_key'] as const;
function constraintName(table: string, suffix: (typeof tableConstraints)[number]): string {
  return `${table}_${suffix}`;
}

function checkedAlias(alias: string): string {
  if (!/^[A-Za-z_]\w*$/.test(alias)) throw new Error(`unsafe SQL alias ${JSON.stringify(alias)}`);
  return alias;
}

function checkedName(name: string): string {
  if (!/^\w+$/.test(name)) throw new Error(`unsafe SQL identifier ${JSON.stringify(name)}`);
  return name;
}

/**
 * The statements that create a collection's table on PostgreSQL, with the collection's own indexes:
 * the row order column first (an identity, so rows keep the order they were inserted in, and a moved
 * desktop keeps its `_rowid_`s when given), then one column per field. Names past 63 bytes are
 * shortened (`postgresName`), the same way every statement's are.
 */
export function postgresTableSql(model: TableModel): string[] {
  const table = `"${postgresName(checkedName(model.name))}"`;
  const key = model.fields.find(isKey);
  const columns = [
    `"${ROW_ORDER_COLUMN}" bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL`,
    ...model.fields.map(postgresColumn),
    `CONSTRAINT "${postgresName(constraintName(model.name, 'rowid_key'))}" UNIQUE ("${ROW_ORDER_COLUMN}")`,
    ...(key === undefined ? [] : [`CONSTRAINT "${postgresName(constraintName(model.name, 'pkey'))}" PRIMARY KEY ("${postgresName(key.name)}")`]),
  ];
  const statements = [`CREATE TABLE ${table} (${columns.join(', ')})`];
  for (const index of model.indexes) {
    const cols = index.fields.map((id) => {
      const field = model.fields.find((f) => f.id === id);
      if (field === undefined) throw new Error(`index ${index.name} names unknown field ${id}`);
      // NULLS FIRST: read forwards the index gives SQLite's ascending order, backwards its descending one.
      return `"${postgresName(checkedName(field.name))}" NULLS FIRST`;
    });
    statements.push(`CREATE ${index.unique === true ? 'UNIQUE ' : ''}INDEX "${postgresName(checkedName(index.name))}" ON ${table} (${cols.join(', ')})`);
  }
  return statements;
}
