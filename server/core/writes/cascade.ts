// Deleting a record clears the relation fields that point at it, or deletes the referring record when
// its field has cascadeDelete and nothing is left; a required relation left empty aborts the whole
// delete (PocketBase's cascade rules). Runs inside the caller's transaction, and reports each record it deletes
// or changes.
import { deleteAccountRows } from '../account-rows.js';
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
import { LoopSlice } from '../../loop-slice.js';

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

/** Deletes waiting for their statement: one `DELETE ... IN (...)` per collection and this many ids. */
const DELETE_CHUNK = 500;

/**
 * Who refers to a record through one relation field, for one walk. The first question per field is
 * the query above (a delete that cascades no further costs what it did). From the second on, a long
 * cascade would scan the table once per deleted record (6,000 records: seconds), so the field's
 * referring rows are read in one scan, indexed by the id they name, and kept: the walk keeps every
 * row it has read as it is now (`rows`: it changes them itself, through `changed`), so an answer needs
 * no statement. During a walk relation values only lose ids, so the index holds every current
 * referrer; those that no longer refer are dropped. The answer is the query's: the same rows, as they
 * are now, in the same (rowid) order. On PostgreSQL, where each statement is a round trip, a 6,000-deep
 * cascade so costs a few statements instead of 18,000.
 */
class Referrers {
  private asked = new Set<RelationField>();
  private indexes = new Map<RelationField, Map<string, string[]>>();
  /** Rows read by the walk, as they are now, by `<collection id>/<record id>`. */
  private rows = new Map<string, Row>();
  /** Rows the walk deleted (their statement may still wait: reads still return them). */
  private gone = new Set<string>();

  constructor(private readonly tx: WriteTx, private readonly dialect: Dialect) {}

  async of(owner: Collection, field: RelationField, id: string): Promise<Row[]> {
    let index = this.indexes.get(field);
    if (index === undefined) {
      if (!this.asked.has(field)) {
        this.asked.add(field);
        return this.kept(owner, await referrers(this.dialect, this.tx, owner, field, id));
      }
      index = await this.build(owner, field);
      this.indexes.set(field, index);
    }
    const rows: Row[] = [];
    for (const rowId of index.get(id) ?? []) {
      const row = await this.current(owner, rowId);
      if (row !== undefined && relationIds(field, row[field.name]).includes(id)) rows.push(row);
    }
    return rows;
  }

  /** The row as it is now (read once, then kept). */
  async current(owner: Collection, id: string): Promise<Row | undefined> {
    if (this.gone.has(`${owner.id}/${id}`)) return undefined;
    const known = this.rows.get(`${owner.id}/${id}`);
    if (known !== undefined) return known;
    const row = await getRow(this.tx, owner, id);
    if (row !== undefined) this.rows.set(`${owner.id}/${id}`, row);
    return row;
  }

  /** The walk changed a row (null: deleted it). */
  changed(owner: Collection, id: string, row: Row | null): void {
    const key = `${owner.id}/${id}`;
    if (row === null) {
      this.rows.delete(key);
      this.gone.add(key);
    } else this.rows.set(key, row);
  }

  private kept(owner: Collection, rows: Row[]): Row[] {
    for (const row of rows) {
      const key = `${owner.id}/${String(row.id)}`;
      if (!this.gone.has(key)) this.rows.set(key, row);
    }
    return rows;
  }

  private async build(owner: Collection, field: RelationField): Promise<Map<string, string[]>> {
    const col = ident(field.name);
    const table = ident(owner.name);
    const { dialect } = this;
    const index = new Map<string, string[]>();
    const rows = await this.tx.all<Row>(`SELECT * FROM ${table} WHERE ${col} IS NOT NULL AND ${col} != ''${dialect.rowOrder()}`);
    for (const row of rows) {
      const id = String(row.id);
      const key = `${owner.id}/${id}`;
      // a row the walk deleted is still read while its statement waits
      if (!this.gone.has(key)) this.rows.set(key, row);
      for (const ref of new Set(relationIds(field, row[field.name]))) {
        const list = index.get(ref);
        if (list === undefined) index.set(ref, [id]);
        else list.push(id);
      }
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
  /** Deletes not sent yet, by collection: the walk reads none of these rows again (`visited`). */
  pending: Map<Collection, string[]>;
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
 * Deletes records with their cascades in one transaction, depth first exactly as a recursive walk
 * would (a cascaded record is deleted, and its own references processed, before the next referring
 * record), on an explicit stack: a 6,000-deep chain of cascades is as safe as a short one. One walk
 * may delete several records (a truncate): what it has read and deleted is shared. `finish()` sends
 * the deletes still waiting; the transaction must not commit before it. A long walk gives the event
 * loop a turn every slice (`LoopSlice`), so other requests are answered while it runs.
 */
export class Cascade {
  private readonly walk: Walk;
  private readonly slice = new LoopSlice();

  constructor(dialect: Dialect, tx: WriteTx, registry: Registry, sessions: Sessions, changes: RecordChange[]) {
    this.walk = { tx, registry, sessions, referring: new Referrers(tx, dialect), visited: new Set(), changes, pending: new Map() };
  }

  /** Whether the walk has deleted this record already (a cascade from an earlier one). */
  deleted(c: Collection, id: string): boolean {
    return this.walk.visited.has(`${c.id}/${id}`);
  }

  /** The record as it is now, unless the walk deleted it. */
  current(c: Collection, id: string): Promise<Row | undefined> {
    return this.deleted(c, id) ? Promise.resolve(undefined) : this.walk.referring.current(c, id);
  }

  async delete(c: Collection, row: Row): Promise<void> {
    const walk = this.walk;
    const stack: Frame[] = [await open(walk, c, row)];
    while (stack.length > 0) {
      if (this.slice.due) await this.slice.pause();
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
        // as it is now: a deeper step of the walk may have changed it since its pair was read
        const current = (await walk.referring.current(owner, rowId)) ?? row;
        stack.push(await open(walk, owner, current));
        continue;
      }
      if (remaining.length === 0 && field.required) {
        throw badRequest('Failed to delete record. Make sure that the record is not part of a required relation reference.');
      }
      await clearReference(walk, owner, field, row, remaining);
    }
  }

  /** Sends the deletes still waiting. */
  async finish(): Promise<void> {
    for (const [c, ids] of this.walk.pending) {
      await flush(this.walk.tx, c, ids);
      if (this.slice.due) await this.slice.pause();
    }
    this.walk.pending.clear();
  }
}

/** Deletes `row` of `c` and processes what refers to it (see Cascade). */
export async function deleteWithReferences(dialect: Dialect, tx: WriteTx, registry: Registry, sessions: Sessions, c: Collection, row: Row, changes: RecordChange[]): Promise<void> {
  const cascade = new Cascade(dialect, tx, registry, sessions, changes);
  await cascade.delete(c, row);
  await cascade.finish();
}

async function flush(tx: WriteTx, c: Collection, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
    const chunk = ids.slice(i, i + DELETE_CHUNK);
    await tx.run(`DELETE FROM ${ident(c.name)} WHERE "id" IN (${chunk.map(() => '?').join(', ')})`, chunk);
  }
}

/** Deletes one record (and its sessions) and starts its walk. */
async function open(walk: Walk, c: Collection, row: Row): Promise<Frame> {
  const { tx } = walk;
  const id = String(row.id);
  walk.visited.add(`${c.id}/${id}`);
  walk.referring.changed(c, id, null);
  const pending = walk.pending.get(c) ?? [];
  walk.pending.set(c, pending);
  pending.push(id);
  if (pending.length >= DELETE_CHUNK) {
    await flush(tx, c, pending.splice(0));
  }
  if (c.type === 'auth') {
    await walk.sessions.endAllFor(tx, c.id, id);
    // its OAuth2 links, mailed tokens, codes, MFA steps and devices go with it (PocketBase's cascade)
    await deleteAccountRows(tx, c.id, id);
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
  const after = (await getRow(tx, owner, rowId)) ?? null;
  walk.referring.changed(owner, rowId, after);
  walk.changes.push({ action: 'update', collection: owner, before: row, after });
}
