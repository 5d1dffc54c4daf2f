// Prepared statements cached per SQL text, and the two read helpers every query goes through.
import type { Database, Statement } from 'sql.js';
import { valueBytes } from './deadline.js';
import type { SqlValue } from '../model/types.js';
import type { TextBinder } from './text-binding.js';

export type Params = readonly SqlValue[];

/**
 * The one table-valued PRAGMA that writes: `pragma_optimize` runs ANALYZE (creates and fills
 * sqlite_stat1). As a SELECT it changes nothing SQLite counts, so a read would change memory without a
 * journal entry (transaction.ts journals a read only when the count moves or it is not a row
 * statement), and a later journaled statement on sqlite_stat1 would fail at replay. Found by trying
 * every `pragma_<name>(<argument>)` of SQLite's pragma list on a database and comparing its bytes
 * (test/store/write.test.ts). The statement form `PRAGMA optimize` is journaled as it runs.
 */
const WRITING_TABLE_FUNCTION = /pragma_optimize\b/i;
const WRITING_TABLE_FUNCTION_REFUSAL = 'pragma_optimize is not run as a table (it writes statistics SQLite does not count as changes): use PRAGMA optimize';

/**
 * `PRAGMA writable_schema` (statement or table): with it, SQL writes schema text into sqlite_master by
 * hand, past every check new SQL gets here (a view edited to run pragma_optimize, its name written in
 * pieces). Nothing of Deskbase's writes the schema that way.
 */
const WRITABLE_SCHEMA = /writable_schema/i;
const WRITABLE_SCHEMA_REFUSAL = 'PRAGMA writable_schema is refused: schema text written by hand escapes the checks new SQL gets; use CREATE, DROP or ALTER';

/** A view or trigger of a database whose SQL runs WRITING_TABLE_FUNCTION. */
export interface WritingSchemaObject {
  type: 'view' | 'trigger';
  name: string;
  sql: string;
}

/**
 * The views and triggers of `db` that run WRITING_TABLE_FUNCTION. New SQL naming it is refused
 * (`prepare`), but a database brought in whole (a restored archive, a data folder written by an older
 * version) may hold one made elsewhere: a SELECT on such a view (or a write firing such a trigger) would
 * change memory without a journal entry that replays it the same way. The name can only appear in the
 * object's SQL text as written (an identifier has no escapes), in any case, quoted or not.
 *
 * Checked on the text, not by `PRAGMA trusted_schema = OFF`: that refuses every virtual table and
 * every application-defined function a view or trigger uses unless it is registered SQLITE_INNOCUOUS,
 * which sql.js's create_function cannot say; so it refuses pragma_optimize, but also every view
 * collection (its projections call the query guard, filter/guard.ts GUARD_FUNCTION) and any view
 * over pragma_table_info (test/store/restore-schema.test.ts).
 */
export function writingSchemaObjects(db: Database): WritingSchemaObject[] {
  const found: WritingSchemaObject[] = [];
  const stmt = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') AND sql IS NOT NULL ORDER BY type, name");
  try {
    while (stmt.step()) {
      const [type, name, sql] = stmt.get() as [WritingSchemaObject['type'], string, string];
      if (WRITING_TABLE_FUNCTION.test(sql)) found.push({ type, name, sql });
    }
  } finally {
    stmt.free();
  }
  return found;
}

/** The objects as a refusal names them: `view "v", trigger "t"`. */
export function describeWritingObjects(objects: readonly WritingSchemaObject[]): string {
  return objects.map((o) => `${o.type} "${o.name}"`).join(', ');
}

/** The statement that drops `object` (its name quoted as SQLite quotes identifiers). */
export function dropStatement(object: WritingSchemaObject): string {
  return `DROP ${object.type === 'view' ? 'VIEW' : 'TRIGGER'} "${object.name.replaceAll('"', '""')}"`;
}

/** Prepared statements are cached per SQL text: parsing dominates small queries otherwise. */
export class StatementCache {
  private cache = new Map<string, Statement>();
  /** Column names of statements whose SQL names every column it returns (no `*`). */
  private names = new WeakMap<Statement, string[]>();
  /** `binder`: long texts bound natively (text-binding.ts); without it, sql.js binds everything. */
  constructor(private db: Database, private binder: TextBinder | null = null, private max = 500) {}

  /** Binds `params` to `stmt` (reset first, as sql.js's bind does). */
  bind(stmt: Statement, params: Params): void {
    if (this.binder) this.binder(stmt, params);
    else stmt.bind(params as SqlValue[]);
  }

  prepare(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (stmt === undefined) {
      // checked once per SQL text (a kept statement was checked when first prepared)
      if (WRITING_TABLE_FUNCTION.test(sql)) throw new Error(WRITING_TABLE_FUNCTION_REFUSAL);
      if (WRITABLE_SCHEMA.test(sql)) throw new Error(WRITABLE_SCHEMA_REFUSAL);
      stmt = this.db.prepare(sql);
      if (this.cache.size >= this.max) {
        const [oldestSql, oldest] = this.cache.entries().next().value as [string, Statement];
        oldest.free();
        this.cache.delete(oldestSql);
      }
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * The names of the columns a statement returns, after its first step. Read once per statement when its
   * SQL names each column (no `*` but COUNT(*)'s: a schema change cannot change them, the statement would fail
   * instead); once per execution otherwise, since a `SELECT *` prepared before a schema change returns
   * the new columns after it (SQLite prepares it again).
   */
  columnNames(stmt: Statement, sql: string): string[] {
    let names = this.names.get(stmt);
    if (names === undefined) {
      names = stmt.getColumnNames();
      if (this.wildcards.has(stmt)) return names;
      if (namesEveryColumn(sql)) this.names.set(stmt, names);
      else this.wildcards.add(stmt);
    }
    return names;
  }

  /** Statements whose SQL has a `*` that may stand for columns (their names are read at every execution). */
  private wildcards = new WeakSet<Statement>();

  clear(): void {
    for (const stmt of this.cache.values()) stmt.free();
    this.cache.clear();
  }
}

/** `COUNT(*)`, whose `*` stands for no column: a list's total (records-read.ts countRows). */
const COUNT_ALL = /\bcount\(\*\)/gi;

/** Whether a statement's SQL names every column it returns: no `*` but those of COUNT(*). */
function namesEveryColumn(sql: string): boolean {
  return !sql.includes('*') || !sql.replace(COUNT_ALL, '').includes('*');
}

/** A row read: its values by column name, and their bytes (valueBytes each) told to `onRow`. */
function rowOf<T>(names: readonly string[], values: readonly unknown[], onRow?: (bytes: number) => void): T {
  const row: Record<string, unknown> = {};
  let bytes = 0;
  for (let i = 0; i < names.length; i++) {
    row[names[i]] = values[i];
    bytes += valueBytes(values[i]);
  }
  onRow?.(bytes);
  return row as T;
}

/**
 * sql.js's getAsObject() asks SQLite for every column name again on each row, which costs twice what
 * reading the values does; the names are read once per statement or execution instead (columnNames).
 */
export function queryAll<T>(cache: StatementCache, sql: string, params: Params = [], onRow?: (bytes: number) => void): T[] {
  const stmt = cache.prepare(sql);
  try {
    cache.bind(stmt, params);
    const rows: T[] = [];
    let names: string[] | null = null;
    while (stmt.step()) {
      names ??= cache.columnNames(stmt, sql);
      rows.push(rowOf<T>(names, stmt.get(), onRow));
    }
    return rows;
  } finally {
    stmt.reset();
  }
}

export function queryGet<T>(cache: StatementCache, sql: string, params: Params = [], onRow?: (bytes: number) => void): T | undefined {
  const stmt = cache.prepare(sql);
  try {
    cache.bind(stmt, params);
    if (!stmt.step()) return undefined;
    return rowOf<T>(cache.columnNames(stmt, sql), stmt.get(), onRow);
  } finally {
    stmt.reset();
  }
}

/** Executes one statement that returns no rows to the caller (a write, or DDL). */
export function runStatement(cache: StatementCache, sql: string, params: Params = []): void {
  const stmt = cache.prepare(sql);
  try {
    cache.bind(stmt, params);
    stmt.step();
  } finally {
    stmt.reset();
  }
}
