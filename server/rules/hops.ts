// The joins a path can take: a relation (single: one row; multiple: json_each then the target row), a
// back-relation `<collection>_via_<field>`, and the items of a multi-valued column (`:each`). For a
// restricted client filter, every joined collection must be listable and its list rule becomes part of
// the join condition, so rows the caller cannot list read as missing (NULL).
import { isMultiple, type Collection, type Field, type RelationField } from '../core/types.js';
import { FilterError, quote } from '../filter/errors.js';
import type { Hop } from './plan.js';
import { alias, column, ident, jsonArray, sql, TRUE, type Frag } from './sql.js';
import type { State, Where } from './state.js';

export function nonFilterable(where: Where, name: string): FilterError {
  return new FilterError(`non-filterable field ${quote(name)}`, where.pos);
}

/** A restricted filter may join only collections whose list rule is not null (superusers only). */
export function requireListable(state: State, target: Collection, where: Where): void {
  if (state.restricted && target.listRule === null) {
    throw new FilterError(`fields of ${quote(target.name)} can be filtered only by superusers`, where.pos);
  }
}

function guarded(state: State, target: Collection, self: string, match: Frag, where: Where): Frag {
  const rule = state.restricted ? state.listRule(target, self, where.pos) : null;
  return rule === null ? match : sql`${match} AND (${rule})`;
}

export function relationTarget(state: State, field: RelationField, where: Where): Collection {
  const target = state.ctx.lookup(field.collectionId);
  if (target === undefined) throw new FilterError(`missing related collection of ${quote(field.name)}`, where.pos);
  return target;
}

/**
 * A select/relation column as a JSON array. A multiple one is stored as a JSON array (storage
 * conventions), read as is: checking it first doubles the cost of json_each on large lists. A single
 * one holds a plain value, read as PocketBase does ('' → [], 'x' → ["x"]).
 */
export function storedItems(field: Field, value: Frag): Frag {
  return isMultiple(field) ? value : jsonArray(value);
}

/** The items of a select/relation column as rows: read them as `<alias>.value`. */
export function eachHop(key: string, field: Field): Hop {
  return {
    key,
    multi: true,
    source: (_self, parent) => ({ from: sql`json_each(${storedItems(field, column(parent, field.name))})`, on: TRUE }),
  };
}

/** `rel.` → the related row(s). */
export function relationHops(state: State, field: RelationField, target: Collection, key: string, where: Where): Hop[] {
  requireListable(state, target, where);
  if (!isMultiple(field)) {
    return [{
      key,
      multi: false,
      source: (self, parent) => ({
        from: ident(target.name),
        on: guarded(state, target, self, sql`${column(self, 'id')} = ${column(parent, field.name)}`, where),
      }),
    }];
  }
  return [eachHop(`${key}#each`, field), {
    key,
    multi: false,
    source: (self, parent) => ({
      from: ident(target.name),
      on: guarded(state, target, self, sql`${column(self, 'id')} = ${alias(parent)}.value`, where),
    }),
  }];
}

/** A back-relation segment, or null when `name` does not have the `<collection>_via_<field>` shape. */
export function backRelationHop(state: State, current: Collection, name: string, key: string, where: Where): { hop: Hop; target: Collection } | null {
  const at = name.lastIndexOf('_via_');
  if (at <= 0) return null;
  const target = state.ctx.lookup(name.slice(0, at));
  const rel = target?.fields.find((f) => f.name === name.slice(at + 5));
  if (target === undefined || rel === undefined || rel.type !== 'relation' || state.ctx.lookup(rel.collectionId)?.id !== current.id) {
    throw new FilterError(`invalid back-relation ${quote(name)}`, where.pos);
  }
  if (state.restricted && rel.hidden) throw nonFilterable(where, `${target.name}.${rel.name}`);
  requireListable(state, target, where);
  // One row per record only when the relation is single and unique (PocketBase's exception).
  const unique = target.indexes.some((ix) => ix.unique === true && ix.fields.length === 1 && ix.fields[0] === rel.id);
  const multiple = isMultiple(rel);
  const hop: Hop = {
    key,
    multi: multiple || !unique,
    source: (self, parent) => {
      const match = multiple
        ? sql`${column(parent, 'id')} IN (SELECT value FROM json_each(${storedItems(rel, column(self, rel.name))}))`
        : sql`${column(self, rel.name)} = ${column(parent, 'id')}`;
      return { from: ident(target.name), on: guarded(state, target, self, match, where) };
    },
  };
  return { hop, target };
}
