// SQL for collection tables, their indexes and their `_collections` rows. Tables are named after the
// collection, columns after fields. Everything runs inside the caller's transaction.
import { ApiError, badRequest, fieldError, type ErrorData } from '../errors.js';
import type { WriteTx } from '../store/db.js';
import { specFor } from './fields/index.js';
import { ident } from '../filter/sql.js';
import { maintainedIndexes, maintainedIndexSql } from './maintained-indexes.js';
import type { Collection, Field, IndexDef } from '../model/types.js';
import { isMultiple } from '../model/types.js';

export function columnSql(field: Field): string {
  return `${ident(field.name)} ${specFor(field).column(field)}`;
}

export function createTableSql(table: string, fields: Field[]): string {
  return `CREATE TABLE ${ident(table)} (${fields.map(columnSql).join(', ')})`;
}

export function indexSql(c: Collection, index: IndexDef): string {
  const cols = index.fields.map((fid) => {
    const field = c.fields.find((f) => f.id === fid);
    if (!field) throw new Error(`index ${index.name} names unknown field ${fid}`);
    return ident(field.name);
  });
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${ident(index.name)} ON ${ident(c.name)} (${cols.join(', ')})`;
}

export async function createCollectionTable(tx: WriteTx, c: Collection): Promise<void> {
  await tx.run(createTableSql(c.name, c.fields));
  await createIndexes(tx, c);
}

export async function createIndexes(tx: WriteTx, c: Collection): Promise<void> {
  for (const index of maintainedIndexes(c)) await tx.run(maintainedIndexSql(c, index));
  for (const index of c.indexes) await tx.run(indexSql(c, index));
}

export async function dropIndexes(tx: WriteTx, table: string): Promise<void> {
  const rows = await tx.all<{ name: string }>(
    `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`,
    [table],
  );
  for (const row of rows) await tx.run(`DROP INDEX ${ident(row.name)}`);
}

/** How to carry a column's values over when a field keeps its id but changes shape. */
function carryExpr(prev: Field, next: Field): string {
  const col = ident(prev.name);
  const wasMulti = isMultiple(prev);
  const isMulti = isMultiple(next);
  // single ↔ multiple changes migrate stored values, keeping the last item when shrinking (PocketBase)
  if (wasMulti && !isMulti) return `COALESCE(json_extract(${col}, '$[#-1]'), '')`;
  if (!wasMulti && isMulti) return `CASE WHEN ${col} IS NULL OR ${col} = '' THEN '[]' ELSE json_array(${col}) END`;
  return col;
}

/**
 * Rebuilds the table for a new field list (SQLite's recommended way to change columns): a new table
 * is filled from the old one, fields matched by id, then swapped in. Runs inside the caller's
 * transaction, so a failure (for example a unique index over duplicates) leaves everything as it was.
 */
export async function rebuildTable(tx: WriteTx, prev: Collection, next: Collection): Promise<void> {
  const tmp = `_tmp_${next.id}`;
  await tx.run(createTableSql(tmp, next.fields));
  const carried = next.fields
    .map((f) => ({ next: f, prev: prev.fields.find((p) => p.id === f.id) }))
    .filter((pair): pair is { next: Field; prev: Field } => pair.prev !== undefined);
  if (carried.length > 0) {
    const cols = carried.map((p) => ident(p.next.name)).join(', ');
    const exprs = carried.map((p) => carryExpr(p.prev, p.next)).join(', ');
    await tx.run(`INSERT INTO ${ident(tmp)} (${cols}) SELECT ${exprs} FROM ${ident(prev.name)}`);
  }
  await tx.run(`DROP TABLE ${ident(prev.name)}`);
  await tx.run(`ALTER TABLE ${ident(tmp)} RENAME TO ${ident(next.name)}`);
  await createIndexes(tx, next);
}

/** Field and index definitions only; rules and names can change without touching the table. */
function tableShape(c: Collection): string {
  return JSON.stringify([c.fields.map((f) => ({ ...f, help: undefined, presentable: undefined, hidden: undefined, required: undefined })), c.indexes]);
}

/** Renames, rebuilds or re-indexes the table of `prev` into the shape of `next`, as much as changed. */
export async function changeTable(tx: WriteTx, prev: Collection, next: Collection): Promise<void> {
  if (next.name !== prev.name) await tx.run(`ALTER TABLE ${ident(prev.name)} RENAME TO ${ident(next.name)}`);
  if (tableShape(next) !== tableShape(prev)) {
    await dropIndexes(tx, next.name);
    await rebuildTable(tx, { ...prev, name: next.name }, next);
  } else if (next.name !== prev.name) {
    await dropIndexes(tx, next.name);
    await createIndexes(tx, next);
  }
}

/** The collection's definition as stored in `_collections` (what the registry loads on start). */
export async function saveDefinition(tx: WriteTx, c: Collection): Promise<void> {
  await tx.run('INSERT OR REPLACE INTO "_collections" ("id", "name", "data") VALUES (?, ?, ?)', [c.id, c.name, JSON.stringify(c)]);
}

export async function dropCollectionTable(tx: WriteTx, c: Collection): Promise<void> {
  await tx.run(c.type === 'view' ? `DROP VIEW IF EXISTS ${ident(c.name)}` : `DROP TABLE ${ident(c.name)}`);
  await tx.run('DELETE FROM "_collections" WHERE "id" = ?', [c.id]);
}

/** A failing DDL statement (typically a unique index over duplicates) as a 400 that shows SQLite's reason. */
export function ddlFailure(err: unknown, c: Collection, update: boolean): never {
  if (err instanceof ApiError) throw err;
  const message = err instanceof Error ? err.message : String(err);
  const m = /UNIQUE constraint failed|index/i.test(message);
  const data: ErrorData = {};
  if (m && c.indexes.length > 0) data.indexes = fieldError('validation_invalid_index_expression', `Failed to create the index: ${message}`);
  throw badRequest(`${update ? 'Failed to update collection' : 'Failed to create collection'}. Raw error: ${message}`, data);
}
