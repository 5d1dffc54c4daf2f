// Record paths: `field`, `rel.field`, `rel.rel2.field`, `rel.id`, `<coll>_via_<field>.field`,
// `json.a.0`, `point.lat`, each with an optional modifier. Every name is checked against the fields of
// the collection it is read from (the allow-list) before it is quoted into SQL.
import { isListField, isMultiple, type Collection, type Field } from '../model/types.js';
import { FilterError } from '../filter/filter-error.js';
import { MAX_RELATION_DEPTH } from '../filter/limits.js';
import { backRelationHop, eachHop, nonFilterable, relationHops, relationTarget } from './hops.js';
import { invalidModifier, type Modifier, type Path } from './identifiers.js';
import { sized } from '../filter/guard.js';
import { planValue, type Hop, type Plan } from '../filter/path-values.js';
import { alias, column, sql, ZERO, type Frag } from '../filter/sql.js';
import type { Affinity, SqlType } from '../filter/dialect.js';
import { unknownField, type RecordScope, type Site } from './scope.js';
import { lower, type Value } from '../filter/values.js';

/** Where a path starts: the filtered row, the signed-in record, a `@collection` join... */
export interface Root {
  collection: Collection;
  /** Namespace of the root's join keys ('' for the filtered row). */
  key: string;
  /** Alias of the root row when it is the caller's row; '' when `hops` reach the root row. */
  alias: string;
  hops: Hop[];
}

interface Walk {
  scope: RecordScope;
  root: Root;
  hops: Hop[];
  site: Site;
}

function finish(walk: Walk, read: Plan['read'], kind: Plan['kind'] = 'column', missing?: Frag, type: SqlType = 'text', affinity?: Affinity): Value {
  return planValue({ rootAlias: walk.root.alias, hops: walk.hops, read, kind, missing, type, affinity }, walk.scope.aliases);
}


/** Values that only take `:lower` (json paths, ids, back-relations). */
function plainModifier(walk: Walk, value: Value, modifier: Modifier | null): Value {
  if (modifier === null) return value;
  if (modifier === 'lower') return lower(value, walk.scope.dialect);
  throw invalidModifier(walk.site, modifier);
}

export function resolveRecordPath(scope: RecordScope, root: Root, path: Path, site: Site): Value {
  const { segments, modifier } = path;
  const walk: Walk = { scope, root, hops: [...root.hops], site };
  let collection = root.collection;
  let relations = 0;
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i];
    const key = `${root.key}/${segments.slice(0, i + 1).join('.')}`;
    const rest = segments.slice(i + 1);
    const field = collection.fields.find((f) => f.name === name);
    if (field === undefined) {
      const back = backRelationHop(scope, collection, name, key, site);
      if (back === null) throw unknownField(site);
      if (++relations > MAX_RELATION_DEPTH) throw tooDeep(site);
      walk.hops.push(back.hop);
      collection = back.target;
      // A bare back-relation reads the related ids.
      if (rest.length === 0) return plainModifier(walk, finish(walk, (a) => column(a, 'id'), 'column', undefined, 'text', 'text'), modifier);
      continue;
    }
    if (scope.restricted && field.hidden) throw nonFilterable(site, name);
    if (rest.length === 0) return fieldValue(walk, collection, field, key, modifier);
    if (field.type === 'relation') {
      const target = relationTarget(scope, field, site);
      if (rest.length === 1 && rest[0] === 'id') return relationId(walk, field, key, modifier);
      if (++relations > MAX_RELATION_DEPTH) throw tooDeep(site);
      walk.hops.push(...relationHops(scope, field, target, key, site));
      collection = target;
      continue;
    }
    if (field.type === 'json') return plainModifier(walk, jsonPath(walk, field, rest), modifier);
    if (field.type === 'geoPoint' && rest.length === 1 && (rest[0] === 'lat' || rest[0] === 'lon')) {
      return plainModifier(walk, jsonPath(walk, field, rest), modifier);
    }
    throw unknownField(site);
  }
  throw unknownField(site);
}


function tooDeep(site: Site): FilterError {
  return new FilterError(`max nested relations reached (${MAX_RELATION_DEPTH})`, site.pos);
}

/** `rel.id` reads the stored ids without joining the related collection (PocketBase's shortcut). */
function relationId(walk: Walk, field: Field, key: string, modifier: Modifier | null): Value {
  if (!isMultiple(field)) return plainModifier(walk, finish(walk, (a) => column(a, field.name), 'column', undefined, 'text', 'text'), modifier);
  walk.hops.push(eachHop(walk.scope, `${key}#each`, field));
  return plainModifier(walk, finish(walk, (a) => sql`${alias(a)}.value`), modifier);
}

/** `json.a.b.0` → json_extract(col, '$.a.b[0]'), compared without the null fallback. */
function jsonPath(walk: Walk, field: Field, rest: string[]): Value {
  return finish(walk, (a) => walk.scope.dialect.jsonPath(jsonColumn(walk.scope, a, field), rest), 'exact', undefined, 'json');
}

/** A json column; guarded, a large value calls the deadline guard before SQLite parses it. */
function jsonColumn(scope: RecordScope, rowAlias: string, field: Field): Frag {
  return scope.guarded ? sized(column(rowAlias, field.name)) : column(rowAlias, field.name);
}

/** The plain value of a field, as the comparison sees it. */
function readField(scope: RecordScope, collection: Collection, field: Field, rowAlias: string): Frag {
  const col = column(rowAlias, field.name);
  if (field.type === 'json') return scope.dialect.jsonPath(jsonColumn(scope, rowAlias, field), []);
  if (field.type === 'bool') return scope.dialect.boolColumn(col);
  // A client cannot probe e-mails their owners keep hidden (PocketBase adds `emailVisibility = TRUE`).
  if (scope.restricted && collection.type === 'auth' && field.name === 'email') {
    return sql`(CASE WHEN ${scope.dialect.boolColumn(column(rowAlias, 'emailVisibility'))} = 1 THEN ${col} END)`;
  }
  return col;
}

/**
 * SQLite's affinity of a field's plain read: its column's (number and bool NUMERIC, declared JSON lists
 * NUMERIC too, texts TEXT); none for what is read through an expression (json_extract, a hidden
 * e-mail's CASE).
 */
function affinityOf(scope: RecordScope, collection: Collection, field: Field): Affinity | undefined {
  if (field.type === 'json') return undefined;
  if (scope.restricted && collection.type === 'auth' && field.name === 'email') return undefined;
  if (field.type === 'number' || field.type === 'bool' || field.type === 'geoPoint' || isMultiple(field)) return 'numeric';
  return 'text';
}

/** What a field's plain value is in SQL. */
function typeOf(field: Field): SqlType {
  if (field.type === 'json') return 'json';
  return field.type === 'number' || field.type === 'bool' ? 'number' : 'text';
}

function fieldValue(walk: Walk, collection: Collection, field: Field, key: string, modifier: Modifier | null): Value {
  const read = (a: string) => readField(walk.scope, collection, field, a);
  const listLike = isListField(field);
  const { dialect } = walk.scope;
  const kind = field.type === 'json' ? 'exact' : 'column';
  switch (modifier) {
    case null:
      return finish(walk, read, kind, undefined, typeOf(field), affinityOf(walk.scope, collection, field));
    case 'lower':
      return lower(finish(walk, read, kind, undefined, typeOf(field)), dialect);
    case 'length':
      if (!listLike) throw invalidModifier(walk.site, modifier);
      // A missing related row (NULL) has no items, as in PocketBase.
      return finish(walk, (a) => dialect.jsonArrayLength(isMultiple(field) ? sql`COALESCE(${read(a)}, '[]')` : dialect.jsonArrayOf(read(a))), 'column', ZERO, 'number');
    case 'each':
      if (!listLike) throw invalidModifier(walk.site, modifier);
      if (!isMultiple(field)) return finish(walk, read, 'column', undefined, 'text', affinityOf(walk.scope, collection, field));
      walk.hops.push(eachHop(walk.scope, `${key}:each`, field));
      return finish(walk, (a) => sql`${alias(a)}.value`);
    case 'isset':
    case 'changed':
      throw invalidModifier(walk.site, modifier);
  }
}
