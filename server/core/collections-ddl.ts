// SQL for collection tables, their indexes and their `_collections` rows. Tables are named after the
// collection, columns after fields. Everything runs inside the caller's transaction.
import { ApiError, badRequest, fieldError, type ErrorData } from '../errors.js';
import type { WriteTx } from '../store/db.js';
import { specFor } from './fields/index.js';
import { ident } from '../filter/sql.js';
import type { Dialect } from '../rules/compile.js';
import { storeFailure } from './store-failures.js';
import { maintainedIndexes, maintainedIndexSql } from './maintained-indexes.js';
import type { Collection, Field, IndexDef } from '../model/types.js';
import { isMultiple } from '../model/types.js';
import { LoopSlice } from '../loop-slice.js';

export function columnSql(field: Field): string {
  return `${ident(field.name)} ${specFor(field).column(field)}`;
}

/** The statements that create a collection's table (without its indexes) on the store's engine. */
export function createTableSql(dialect: Dialect, table: string, fields: Field[]): string[] {
  if (dialect.tableSql !== undefined) return dialect.tableSql({ name: table, fields, indexes: [] });
  return [`CREATE TABLE ${ident(table)} (${fields.map(columnSql).join(', ')})`];
}

export function indexSql(dialect: Dialect, c: Collection, index: IndexDef): string {
  const cols = index.fields.map((fid) => {
    const field = c.fields.find((f) => f.id === fid);
    if (!field) throw new Error(`index ${index.name} names unknown field ${fid}`);
    return field.name;
  });
  if (dialect.indexSql !== undefined) return dialect.indexSql(c.name, { name: index.name, unique: index.unique === true }, cols);
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${ident(index.name)} ON ${ident(c.name)} (${cols.map(ident).join(', ')})`;
}

export async function createCollectionTable(dialect: Dialect, tx: WriteTx, c: Collection): Promise<void> {
  for (const statement of createTableSql(dialect, c.name, c.fields)) await tx.run(statement);
  await createIndexes(dialect, tx, c);
}

export async function createIndexes(dialect: Dialect, tx: WriteTx, c: Collection): Promise<void> {
  for (const index of maintainedIndexes(c)) await tx.run(maintainedIndexSql(dialect, c, index));
  for (const index of c.indexes) await tx.run(indexSql(dialect, c, index));
}

export async function dropIndexes(dialect: Dialect, tx: WriteTx, table: string): Promise<void> {
  const rows = await tx.all<{ name: string }>(dialect.indexNames, [dialect.storedName(table)]);
  for (const row of rows) await tx.run(`DROP INDEX ${ident(row.name)}`);
}

/** How to carry a column's values over when a field keeps its id but changes shape. */
function carryExpr(dialect: Dialect, prev: Field, next: Field): string {
  const col = ident(prev.name);
  const wasMulti = isMultiple(prev);
  const isMulti = isMultiple(next);
  // single ↔ multiple changes migrate stored values, keeping the last item when shrinking (PocketBase)
  if (wasMulti && !isMulti) return dialect.lastItem(col);
  if (!wasMulti && isMulti) return dialect.listOf(col);
  return col;
}

/**
 * Rebuilds the table for a new field list (SQLite's recommended way to change columns): a new table
 * is filled from the old one, fields matched by id, then swapped in. Runs inside the caller's
 * transaction, so a failure (for example a unique index over duplicates) leaves everything as it was.
 */
export async function rebuildTable(dialect: Dialect, tx: WriteTx, prev: Collection, next: Collection): Promise<void> {
  const tmp = `_tmp_${next.id}`;
  for (const statement of createTableSql(dialect, tmp, next.fields)) await tx.run(statement);
  // On SQLite the indexes Deskbase keeps (`created`, auth emails) are made on the empty table and
  // filled as the rows are copied in slices: a CREATE INDEX over the full table is one statement (the
  // `created` index of 100k rows ~100 ms, 400k rows ~400 ms). The user's indexes follow the copy, so a
  // unique one over duplicates still fails naming itself.
  const early = dialect.name === 'sqlite' ? maintainedIndexes(next) : [];
  for (const index of early) await tx.run(maintainedIndexSql(dialect, { ...next, name: tmp }, index));
  const carried = next.fields
    .map((f) => ({ next: f, prev: prev.fields.find((p) => p.id === f.id) }))
    .filter((pair): pair is { next: Field; prev: Field } => pair.prev !== undefined);
  if (carried.length > 0) {
    const cols = carried.map((p) => p.next.name);
    const exprs = carried.map((p) => carryExpr(dialect, p.prev, p.next));
    if (dialect.name === 'sqlite') await copyInSlices(tx, tmp, prev.name, cols, exprs);
    else for (const statement of dialect.copyRows(tmp, prev.name, cols, exprs)) await tx.run(statement);
  }
  await tx.run(`DROP TABLE ${ident(prev.name)}`);
  for (const statement of dialect.renameTable(tmp, next.name)) await tx.run(statement);
  if (early.length === 0) await createIndexes(dialect, tx, next);
  else for (const index of next.indexes) await tx.run(indexSql(dialect, next, index));
}

/** Rows per statement of a rebuild's copy on SQLite: a few ms of work for posts-like rows. */
const COPY_ROWS = 500;

/**
 * SQLite runs on the event loop: one `INSERT ... SELECT` of a 100k-row table held it for seconds. The
 * rows are copied in `_rowid_` order, COPY_ROWS per statement, each keeping its `_rowid_` (so the
 * table's order stays as it was), with a turn of the loop once a slice has run. All of it inside the
 * caller's transaction: readers see the table as it was until the commit.
 */
async function copyInSlices(tx: WriteTx, into: string, from: string, columns: readonly string[], exprs: readonly string[]): Promise<void> {
  const copy = `INSERT INTO ${ident(into)} (_rowid_, ${columns.map(ident).join(', ')}) SELECT _rowid_, ${exprs.join(', ')} FROM ${ident(from)} WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ${COPY_ROWS}`;
  const slice = new LoopSlice();
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const { changes } = await tx.run(copy, [after]);
    if (changes === 0) return;
    const last = await tx.get<{ at: number }>(`SELECT max(_rowid_) AS at FROM ${ident(into)}`);
    after = Number(last?.at);
    if (slice.due) await slice.pause();
  }
}

/** Field and index definitions only; rules and names can change without touching the table. */
function tableShape(c: Collection): string {
  return JSON.stringify([c.fields.map((f) => ({ ...f, help: undefined, presentable: undefined, hidden: undefined, required: undefined })), c.indexes]);
}

/** Renames, rebuilds or re-indexes the table of `prev` into the shape of `next`, as much as changed. */
export async function changeTable(dialect: Dialect, tx: WriteTx, prev: Collection, next: Collection): Promise<void> {
  if (next.name !== prev.name) for (const statement of dialect.renameTable(prev.name, next.name)) await tx.run(statement);
  if (tableShape(next) !== tableShape(prev)) {
    await dropIndexes(dialect, tx, next.name);
    await rebuildTable(dialect, tx, { ...prev, name: next.name }, next);
  } else if (next.name !== prev.name) {
    await dropIndexes(dialect, tx, next.name);
    await createIndexes(dialect, tx, next);
  }
}

/** The collection's definition as stored in `_collections` (what the registry loads on start). */
export async function saveDefinition(dialect: Dialect, tx: WriteTx, c: Collection): Promise<void> {
  await tx.run(dialect.upsert('_collections', ['id', 'name', 'data'], ['id']), [c.id, c.name, JSON.stringify(c)]);
}

export async function dropCollectionTable(tx: WriteTx, c: Collection): Promise<void> {
  await tx.run(c.type === 'view' ? `DROP VIEW IF EXISTS ${ident(c.name)}` : `DROP TABLE ${ident(c.name)}`);
  await tx.run('DELETE FROM "_collections" WHERE "id" = ?', [c.id]);
}

/**
 * A failing DDL statement (typically a unique index over duplicates) as a 400 that shows SQLite's
 * reason, naming an index as the user named it (PostgreSQL stores names past 63 bytes shortened:
 * `dialect.storedName`).
 */
export function ddlFailure(dialect: Dialect, err: unknown, c: Collection, update: boolean): never {
  if (err instanceof ApiError) throw err;
  let message = err instanceof Error ? err.message : String(err);
  const failure = storeFailure(err);
  if (failure?.kind === 'unique' && failure.index !== undefined) {
    const stored = failure.index;
    const given = c.indexes.find((i) => dialect.storedName(i.name) === stored)?.name;
    if (given !== undefined && given !== stored) message = message.split(stored).join(given);
  }
  const m = failure?.kind === 'unique' || /index/i.test(message);
  const data: ErrorData = {};
  if (m && c.indexes.length > 0) data.indexes = fieldError('validation_invalid_index_expression', `Failed to create the index: ${message}`);
  throw badRequest(`${update ? 'Failed to update collection' : 'Failed to create collection'}. Raw error: ${message}`, data);
}
