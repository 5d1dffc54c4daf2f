// Deleting a record clears the relation fields that point at it, or deletes the referring record when
// its field has cascadeDelete and nothing is left; a required relation left empty aborts the whole
// delete (PocketBase's cascade rules). Runs inside the caller's transaction, and reports each record it deletes
// or changes.
import { badRequest } from '../../errors.js';
import type { WriteTx } from '../../store/db.js';
import { isoNow } from '../ids.js';
import { getRow } from '../records-read.js';
import type { Registry } from '../collection-registry.js';
import type { Sessions } from '../session-store.js';
import type { RecordChange } from './changes.js';
import { ident } from '../../filter/sql.js';
import type { Dialect } from '../../rules/compile.js';
import type { Collection, RelationField, Row, SqlValue } from '../../model/types.js';
import { isMultiple } from '../../model/types.js';

function relationIds(field: RelationField, stored: SqlValue): string[] {
  if (stored === null || stored === '') return [];
  if (!isMultiple(field)) return [String(stored)];
  try {
    const parsed: unknown = JSON.parse(String(stored));
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function referrers(dialect: Dialect, tx: WriteTx, owner: Collection, field: RelationField, id: string): Promise<Row[]> {
  const col = ident(field.name);
  const table = ident(owner.name);
  return isMultiple(field)
    ? tx.all<Row>(`SELECT * FROM ${table} WHERE EXISTS (SELECT 1 FROM ${dialect.jsonItems(`${table}.${col}`)} WHERE json_each.value = ?)${dialect.rowOrder()}`, [id])
    : tx.all<Row>(`SELECT * FROM ${table} WHERE ${col} = ?${dialect.rowOrder()}`, [id]);
}

/**
 * Who refers to a record through one relation field, for one delete. The first question per field is
 * the query above (a delete that cascades no further costs what it did). From the second on, a long
 * cascade would scan the table once per deleted record (6,000 records: seconds), so the field's
 * referrers are indexed by the id they name in one scan, and each answer re-reads its candidates by
 * primary key: during a delete relation values only lose ids, so the index holds every current
 * referrer, and the re-read drops those that no longer refer. The answer is the query's: the same rows,
 * as they are now, in the same (rowid) order.
 */
class Referrers {
  private asked = new Set<RelationField>();
  private indexes = new Map<RelationField, Map<string, string[]>>();

  constructor(private readonly tx: WriteTx, private readonly dialect: Dialect) {}

  async of(owner: Collection, field: RelationField, id: string): Promise<Row[]> {
    let index = this.indexes.get(field);
    if (index === undefined) {
      if (!this.asked.has(field)) {
        this.asked.add(field);
        return referrers(this.dialect, this.tx, owner, field, id);
      }
      index = await this.build(owner, field);
      this.indexes.set(field, index);
    }
    const rows: Row[] = [];
    for (const rowId of index.get(id) ?? []) {
      const row = await getRow(this.tx, owner, rowId);
      if (row !== undefined && relationIds(field, row[field.name]).includes(id)) rows.push(row);
    }
    return rows;
  }

  private async build(owner: Collection, field: RelationField): Promise<Map<string, string[]>> {
    const col = ident(field.name);
    const table = ident(owner.name);
    const { dialect } = this;
    const pairs = isMultiple(field)
      ? await this.tx.all<{ id: string; ref: SqlValue }>(`SELECT t."id" AS id, json_each.value AS ref FROM ${table} AS t, ${dialect.jsonItems(`t.${col}`)}${dialect.rowOrder('t')}`)
      : await this.tx.all<{ id: string; ref: SqlValue }>(`SELECT "id" AS id, ${col} AS ref FROM ${table} WHERE ${col} != ''${dialect.rowOrder()}`);
    const index = new Map<string, string[]>();
    for (const { id, ref } of pairs) {
      const list = index.get(String(ref));
      if (list === undefined) index.set(String(ref), [id]);
      else if (list[list.length - 1] !== id) list.push(id); // an id listed twice in one value: one referrer
    }
    return index;
  }
}

/** What one delete's walk shares: the transaction, the collections, who refers to whom, what it did. */
interface Walk {
  tx: WriteTx;
  registry: Registry;
  sessions: Sessions;
  referring: Referrers;
  visited: Set<string>;
  changes: RecordChange[];
}

/** One record being deleted: where its walk over the relation fields pointing at it has got to. */
interface Frame {
  id: string;
  /** (owner, field) pairs whose relation targets `c`, in PocketBase's order: owners by name, fields in order. */
  pairs: { owner: Collection; field: RelationField }[];
  pair: number;
  /** The referring rows of the current pair, read when the walk reached it (as the recursion did). */
  rows: Row[] | null;
  row: number;
}

/**
 * Deletes `row` of `c` and processes what refers to it, depth first exactly as a recursive walk would
 * (a cascaded record is deleted, and its own references processed, before the next referring record),
 * but on an explicit stack: a 6,000-deep chain of cascades is as safe as a short one.
 */
export async function deleteWithReferences(dialect: Dialect, tx: WriteTx, registry: Registry, sessions: Sessions, c: Collection, row: Row, changes: RecordChange[]): Promise<void> {
  const walk: Walk = { tx, registry, sessions, referring: new Referrers(tx, dialect), visited: new Set(), changes };
  const stack: Frame[] = [await open(walk, c, row)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.pair >= frame.pairs.length) {
      stack.pop();
      continue;
    }
    const { owner, field } = frame.pairs[frame.pair];
    frame.rows ??= await walk.referring.of(owner, field, frame.id);
    if (frame.row >= frame.rows.length) {
      frame.pair++;
      frame.rows = null;
      frame.row = 0;
      continue;
    }
    const row = frame.rows[frame.row++];
    const rowId = String(row.id);
    if (walk.visited.has(`${owner.id}/${rowId}`)) continue;
    const remaining = relationIds(field, row[field.name]).filter((v) => v !== frame.id);
    if (remaining.length === 0 && field.cascadeDelete) {
      // read again: a deeper step of the walk may have changed it since its pair was read
      const current = (await getRow(walk.tx, owner, rowId)) ?? row;
      stack.push(await open(walk, owner, current));
      continue;
    }
    if (remaining.length === 0 && field.required) {
      throw badRequest('Failed to delete record. Make sure that the record is not part of a required relation reference.');
    }
    await clearReference(walk, owner, field, row, remaining);
  }
}

/** Deletes one record (and its sessions) and starts its walk. */
async function open(walk: Walk, c: Collection, row: Row): Promise<Frame> {
  const { tx } = walk;
  const id = String(row.id);
  walk.visited.add(`${c.id}/${id}`);
  await tx.run(`DELETE FROM ${ident(c.name)} WHERE "id" = ?`, [id]);
  if (c.type === 'auth') {
    await walk.sessions.endAllFor(tx, c.id, id);
    // its OAuth2 links go with it (PocketBase's external auths cascade)
    await tx.run('DELETE FROM "_externalAuths" WHERE "collectionRef" = ? AND "recordRef" = ?', [c.id, id]);
  }
  walk.changes.push({ action: 'delete', collection: c, before: row, after: null });
  const pairs: Frame['pairs'] = [];
  // a view's relation fields store nothing: deleting what they show changes no view (PocketBase skips them too)
  for (const owner of walk.registry.all().filter((o) => o.type !== 'view').sort((a, b) => a.name.localeCompare(b.name))) {
    for (const field of owner.fields) if (field.type === 'relation' && field.collectionId === c.id) pairs.push({ owner, field });
  }
  return { id, pairs, pair: 0, rows: null, row: 0 };
}

/** The referring record keeps its other ids, saved without validation (its `updated` moves on). */
async function clearReference(walk: Walk, owner: Collection, field: RelationField, row: Row, remaining: string[]): Promise<void> {
  const { tx } = walk;
  const rowId = String(row.id);
  const value = isMultiple(field) ? JSON.stringify(remaining) : (remaining[remaining.length - 1] ?? '');
  const sets = [`${ident(field.name)} = ?`];
  const params: SqlValue[] = [value];
  for (const f of owner.fields) {
    if (f.type === 'autodate' && f.onUpdate) {
      sets.push(`${ident(f.name)} = ?`);
      params.push(isoNow());
    }
  }
  const table = ident(owner.name);
  await tx.run(`UPDATE ${table} SET ${sets.join(', ')} WHERE "id" = ?`, [...params, rowId]);
  walk.changes.push({ action: 'update', collection: owner, before: row, after: (await getRow(tx, owner, rowId)) ?? null });
}
