// The schema as PocketBase (v0.23+) exports it: the JSON `PUT /api/collections/import` takes here and
// in PocketBase, with indexes as `CREATE INDEX` strings (index-sql.ts). Deskbase's system collection
// `_superusers` is left out (every install has its own); `identityFields` travels as PocketBase's
// `passwordAuth`, with the other auth options (auth-options.ts).
import { shownAuthOptions } from '../auth-options.js';
import type { Collection } from '../../model/types.js';
import { buildIndexSql } from './index-sql.js';

export type ExportedCollection = Record<string, unknown>;

export function exportCollection(c: Collection): ExportedCollection {
  const names = new Map(c.fields.map((f) => [f.id, f.name]));
  const indexes = c.indexes.map((i) => buildIndexSql({
    unique: i.unique === true, name: i.name, table: c.name, columns: i.fields.map((id) => names.get(id) ?? id),
  }));
  const out: ExportedCollection = {
    id: c.id, name: c.name, type: c.type, system: c.system, fields: c.fields, indexes,
    listRule: c.listRule, viewRule: c.viewRule, createRule: c.createRule, updateRule: c.updateRule, deleteRule: c.deleteRule,
  };
  if (c.type === 'view') out.viewQuery = c.viewQuery ?? '';
  if (c.type === 'auth') {
    out.authRule = c.authRule ?? '';
    out.manageRule = c.manageRule ?? null;
    Object.assign(out, shownAuthOptions(c)); // passwordAuth carries identityFields
  }
  return out;
}

/** Every collection but the system ones, or those named in `only` (ids or names), in a stable order. */
export function exportSchema(all: Collection[], only: string[] | null): ExportedCollection[] {
  const wanted = only === null ? null : new Set(only.map((s) => s.toLowerCase()));
  return all
    .filter((c) => (wanted === null ? !c.system : wanted.has(c.id.toLowerCase()) || wanted.has(c.name.toLowerCase())))
    .sort((a, b) => a.created.localeCompare(b.created) || a.name.localeCompare(b.name))
    .map(exportCollection);
}
