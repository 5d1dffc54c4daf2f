// A back-relation `<collection>_via_<field>`: from a record, the records of another collection whose
// relation field points at it (PocketBase's indirect expand and filter path). The one reading of the
// name, for expand (core/expand.ts) and filters and rules (rules/hops.ts).
import { isMultiple, type Collection, type Lookup, type RelationField } from './types.js';

export interface BackRelation {
  /** The collection whose records point back. */
  target: Collection;
  /** Its relation field pointing at the current collection. */
  field: RelationField;
  /** The field holds several ids. */
  multiple: boolean;
  /** Single and under a unique index of its own: at most one record points back (PocketBase's exception to "many"). */
  unique: boolean;
}

/** The two names in `<collection>_via_<field>` (split at the last `_via_`), or null when `name` has not that shape. */
export function backRelationParts(name: string): { collection: string; field: string } | null {
  const at = name.lastIndexOf('_via_');
  return at <= 0 ? null : { collection: name.slice(0, at), field: name.slice(at + 5) };
}

/**
 * What `name` reaches from `current`: null when it has not the back-relation shape, `undefined` when it
 * has but names no relation field of another collection pointing at `current`.
 */
export function backRelation(name: string, current: Collection, lookup: Lookup): BackRelation | null | undefined {
  const parts = backRelationParts(name);
  if (parts === null) return null;
  const target = lookup(parts.collection);
  const field = target?.fields.find((f) => f.name === parts.field);
  if (target === undefined || field === undefined || field.type !== 'relation' || lookup(field.collectionId)?.id !== current.id) return undefined;
  const multiple = isMultiple(field);
  const unique = !multiple && target.indexes.some((ix) => ix.unique === true && ix.fields.length === 1 && ix.fields[0] === field.id);
  return { target, field, multiple, unique };
}
