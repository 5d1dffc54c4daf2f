// The joins a path can take: a relation (single: one row; multiple: json_each then the target row), a
// back-relation `<collection>_via_<field>`, and the items of a multi-valued column (`:each`). For a
// restricted client filter, every joined collection must be listable and its list rule becomes part of
// the join condition, so rows the caller cannot list read as missing (NULL).
import { backRelation } from '../model/back-relation.js';
import { isLocked } from '../model/rule.js';
import { isMultiple, type Collection, type Field, type RelationField } from '../model/types.js';
import { FilterError, quote } from '../filter/filter-error.js';
import type { Hop } from '../filter/path-values.js';
import { alias, column, sql, table, type Frag } from '../filter/sql.js';
import type { Dialect } from '../filter/dialect.js';
import { chargedItems } from '../filter/guard.js';
import type { RecordScope, Site } from './scope.js';

export function nonFilterable(site: Site, name: string): FilterError {
  return new FilterError(`non-filterable field ${quote(name)}`, site.pos);
}

/** A restricted filter may join only collections whose list rule is not null (superusers only). */
export function requireListable(scope: RecordScope, target: Collection, site: Site): void {
  if (scope.restricted && isLocked(target.listRule)) {
    throw new FilterError(`fields of ${quote(target.name)} can be filtered only by superusers`, site.pos);
  }
}

function guarded(scope: RecordScope, target: Collection, self: string, match: Frag, site: Site): Frag {
  const rule = scope.restricted ? scope.listRule(target, self, site.pos) : null;
  return rule === null ? match : sql`${match} AND (${rule})`;
}

export function relationTarget(scope: RecordScope, field: RelationField, site: Site): Collection {
  const target = scope.lookup(field.collectionId);
  if (target === undefined) throw new FilterError(`missing related collection of ${quote(field.name)}`, site.pos);
  return target;
}

/**
 * A select/relation column as a JSON array. A multiple one is stored as a JSON array (storage
 * conventions), read as is: checking it first doubles the cost of json_each on large lists. A single
 * one holds a plain value, read as PocketBase does ('' → [], 'x' → ["x"]).
 */
export function storedItems(dialect: Dialect, field: Field, value: Frag): Frag {
  return isMultiple(field) ? value : dialect.jsonArrayOf(value);
}

/** The items of a select/relation column as rows: read them as `<alias>.value`. */
export function eachHop(scope: RecordScope, key: string, field: Field): Hop {
  const { dialect } = scope;
  return {
    key,
    multi: true,
    source: (_self, parent) => ({ from: dialect.jsonEach(storedItems(dialect, field, column(parent, field.name))), on: dialect.true }),
  };
}

/** `rel.` → the related row(s). */
export function relationHops(scope: RecordScope, field: RelationField, target: Collection, key: string, site: Site): Hop[] {
  requireListable(scope, target, site);
  if (!isMultiple(field)) {
    return [{
      key,
      multi: false,
      source: (self, parent) => ({
        from: table(target.name),
        on: guarded(scope, target, self, sql`${column(self, 'id')} = ${column(parent, field.name)}`, site),
      }),
    }];
  }
  return [eachHop(scope, `${key}#each`, field), {
    key,
    multi: false,
    source: (self, parent) => ({
      from: table(target.name),
      on: guarded(scope, target, self, sql`${column(self, 'id')} = ${alias(parent)}.value`, site),
    }),
  }];
}

/** A back-relation segment, or null when `name` does not have the `<collection>_via_<field>` shape. */
export function backRelationHop(scope: RecordScope, current: Collection, name: string, key: string, site: Site): { hop: Hop; target: Collection } | null {
  const back = backRelation(name, current, scope.lookup);
  if (back === null) return null;
  if (back === undefined) throw new FilterError(`invalid back-relation ${quote(name)}`, site.pos);
  const { target, field: rel, multiple, unique } = back;
  if (scope.restricted && rel.hidden) throw nonFilterable(site, `${target.name}.${rel.name}`);
  requireListable(scope, target, site);
  const hop: Hop = {
    key,
    multi: !unique,
    source: (self, parent) => {
      // guarded, each row's list of ids is charged before it is read (no join row stands for its items)
      const items = scope.guarded ? chargedItems(column(self, rel.name)) : column(self, rel.name);
      const match = multiple
        ? sql`${column(parent, 'id')} IN (SELECT value FROM ${scope.dialect.jsonEach(storedItems(scope.dialect, rel, items))})`
        : sql`${column(self, rel.name)} = ${column(parent, 'id')}`;
      return { from: table(target.name), on: guarded(scope, target, self, match, site) };
    },
  };
  return { hop, target };
}
