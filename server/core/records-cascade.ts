// Deleting a record clears the relation fields that point at it, or deletes the referring record when
// its field has cascadeDelete and nothing is left; a required relation left empty aborts the whole
// delete (semantics.md §3.6). Runs inside the caller's transaction.
import { badRequest } from '../errors.js';
import type { WriteTx } from '../store/db.js';
import { specFor } from './fields/index.js';
import { isoNow } from './ids.js';
import type { Registry } from './registry.js';
import { ident } from '../filter/sql.js';
import type { Collection, Field, RelationField, Row, SqlValue } from './types.js';
import { isMultiple } from './types.js';

export function toStoredValue(field: Field, value: unknown): SqlValue {
  return specFor(field).toStored(value, field);
}

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

function referrers(tx: WriteTx, owner: Collection, field: RelationField, id: string): Row[] {
  const col = ident(field.name);
  const table = ident(owner.name);
  return isMultiple(field)
    ? tx.all<Row>(`SELECT * FROM ${table} WHERE EXISTS (SELECT 1 FROM json_each(${table}.${col}) WHERE json_each.value = ?)`, [id])
    : tx.all<Row>(`SELECT * FROM ${table} WHERE ${col} = ?`, [id]);
}

export function deleteWithReferences(tx: WriteTx, registry: Registry, c: Collection, id: string, visited: Set<string>): void {
  visited.add(`${c.id}/${id}`);
  tx.run(`DELETE FROM ${ident(c.name)} WHERE "id" = ?`, [id]);
  if (c.type === 'auth') tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ?', [c.id, id]);
  const owners = registry.all().sort((a, b) => a.name.localeCompare(b.name));
  for (const owner of owners) {
    for (const field of owner.fields) {
      if (field.type !== 'relation' || field.collectionId !== c.id) continue;
      for (const row of referrers(tx, owner, field, id)) {
        const rowId = String(row.id);
        if (visited.has(`${owner.id}/${rowId}`)) continue;
        const remaining = relationIds(field, row[field.name]).filter((v) => v !== id);
        if (remaining.length === 0 && field.cascadeDelete) {
          deleteWithReferences(tx, registry, owner, rowId, visited);
          continue;
        }
        if (remaining.length === 0 && field.required) {
          throw badRequest('Failed to delete record. Make sure that the record is not part of a required relation reference.');
        }
        const value = isMultiple(field) ? JSON.stringify(remaining) : (remaining[remaining.length - 1] ?? '');
        const sets = [`${ident(field.name)} = ?`];
        const params: SqlValue[] = [value];
        for (const f of owner.fields) {
          if (f.type === 'autodate' && f.onUpdate) {
            sets.push(`${ident(f.name)} = ?`);
            params.push(isoNow());
          }
        }
        tx.run(`UPDATE ${ident(owner.name)} SET ${sets.join(', ')} WHERE "id" = ?`, [...params, rowId]);
      }
    }
  }
}
