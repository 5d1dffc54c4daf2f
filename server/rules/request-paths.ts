// `@request.*` and `@collection.*`. Request values are bound as static parameters; a value the request
// lacks (no auth, missing key) is NULL, never an error, as in PocketBase. Paths through a related record
// (`@request.auth.org.name`, `@request.body.rel.name`) and `@collection` joins become record paths.
import { isListField, isMultiple, type Collection, type Field } from '../model/types.js';
import { FilterError, quote } from '../filter/filter-error.js';
import { invalidModifier, type Modifier, type Path } from './identifiers.js';
import type { Hop } from '../filter/path-values.js';
import { resolveRecordPath, type Root } from './record-paths.js';
import { alias, column, param, sql, table } from '../filter/sql.js';
import type { RecordScope, Site } from './scope.js';
import { bool, fromJs, lower, staticValue, toSqlValue, type Value } from '../filter/values.js';

function unknownIdentifier(site: Site): FilterError {
  return new FilterError(`unknown identifier ${quote(site.name)}`, site.pos);
}

/** A static value with `:lower` applied; other modifiers are refused. */
function plainStatic(value: unknown, modifier: Modifier | null, site: Site): Value {
  if (modifier === null) return fromJs(value);
  // A static value's lower case is computed here, the same on every engine.
  if (modifier === 'lower') return lower(fromJs(value));
  throw invalidModifier(site, modifier);
}

export function resolveRequest(scope: RecordScope, path: Path, site: Site): Value {
  const [, part, ...rest] = path.segments;
  const request = scope.request;
  switch (part) {
    case 'context':
    case 'method':
      if (rest.length > 0) throw unknownIdentifier(site);
      return plainStatic(part === 'method' ? request.method.toUpperCase() : request.context, path.modifier, site);
    case 'headers':
    case 'query': {
      if (rest.length !== 1) throw unknownIdentifier(site);
      const map = part === 'query' ? request.query : request.headers;
      const present = Object.hasOwn(map, rest[0]);
      if (path.modifier === 'isset') return bool(present);
      return plainStatic(present ? map[rest[0]] : undefined, path.modifier, site);
    }
    case 'body':
      return resolveBody(scope, rest, path.modifier, site);
    case 'auth':
      return resolveAuth(scope, rest, path.modifier, site);
    default:
      throw unknownIdentifier(site);
  }
}

/** A submitted value as compared: numeric strings of number fields are numbers (PocketBase casts them). */
function bodyValue(field: Field | undefined, value: unknown): unknown {
  if (field?.type === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return value;
}

function items(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null || value === '' ? [] : [value];
}

function resolveBody(scope: RecordScope, rest: string[], modifier: Modifier | null, site: Site): Value {
  if (rest.length === 0) throw unknownIdentifier(site);
  const { collection, request } = scope;
  const [key, ...more] = rest;
  const present = Object.hasOwn(request.body, key);
  const field = collection.fields.find((f) => f.name === key);
  const value = bodyValue(field, present ? request.body[key] : undefined);
  if (more.length > 0) {
    if (field?.type === 'relation') return bodySubmittedRelation(scope, field, value, more, modifier, site);
    return plainStatic(nested(value, more), modifier, site);
  }
  switch (modifier) {
    case null:
    case 'lower':
      return plainStatic(value, modifier, site);
    case 'isset':
      return bool(present);
    case 'changed':
      return changed(scope, field, present, value, site);
    case 'length':
      if (field !== undefined && !isListField(field)) throw invalidModifier(site, modifier);
      return staticValue(items(value).length);
    case 'each':
      return submittedItems(scope, `@request.body/${key}:each`, items(value));
  }
}

/** `@request.body.f:changed`: submitted and different from the stored value (no null fallback). */
function changed(scope: RecordScope, field: Field | undefined, present: boolean, value: unknown, site: Site): Value {
  if (field === undefined) throw new FilterError(`":changed" needs a field of the collection, not ${quote(site.name)}`, site.pos);
  if (!present) return bool(false);
  const { dialect } = scope;
  const submitted = { sql: param(toSqlValue(value)), static: { value: toSqlValue(value) } };
  const numeric = field.type === 'number' || field.type === 'bool';
  const stored = { sql: field.type === 'bool' ? dialect.boolColumn(column(scope.alias, field.name)) : column(scope.alias, field.name), type: numeric ? 'number' as const : 'text' as const, affinity: numeric ? 'numeric' as const : 'text' as const };
  const [a, b] = dialect.operands(submitted, stored);
  return { kind: 'exact', multi: false, type: 'number', build: () => dialect.boolValue(sql`(${dialect.same(a, b, true)})`) };
}

/** The submitted items as rows (one json_each over a bound JSON array), read as `<alias>.value`. */
function submittedItems(scope: RecordScope, key: string, list: unknown[]): Value {
  const json = param(JSON.stringify(list.map(toSqlValue)));
  const { dialect } = scope;
  return {
    kind: 'column',
    multi: true,
    build: (joins) => sql`${alias(joins.join(key, () => ({ from: dialect.jsonEach(json), on: dialect.true })))}.value`,
  };
}

/** `@request.body.x.a.b`: own keys only, so `x.__proto__` or `x.constructor` reads nothing (NULL). */
function nested(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** `@request.body.rel.field`: the related records of the submitted ids. */
function bodySubmittedRelation(scope: RecordScope, field: Field & { type: 'relation' }, value: unknown, more: string[], modifier: Modifier | null, site: Site): Value {
  const target = scope.lookup(field.collectionId);
  if (target === undefined) return fromJs(null);
  const ids = items(value).map(String);
  const key = `@request.body/${field.name}`;
  const hops: Hop[] = isMultiple(field)
    ? [
      { key: `${key}#each`, multi: true, source: () => ({ from: scope.dialect.jsonEach(param(JSON.stringify(ids))), on: scope.dialect.true }) },
      { key, multi: false, source: (self, parent) => ({ from: table(target.name), on: sql`${column(self, 'id')} = ${alias(parent)}.value` }) },
    ]
    : [{ key, multi: false, source: (self) => ({ from: table(target.name), on: sql`${column(self, 'id')} = ${param(ids[ids.length - 1] ?? '')}` }) }];
  return resolveRecordPath(scope, { collection: target, key, alias: '', hops }, { segments: more, modifier }, site);
}

const AUTH_STATIC = new Set(['id', 'collectionId', 'collectionName']);

/** `@request.auth.*`: the signed-in record's own columns are static; longer paths join from it. */
function resolveAuth(scope: RecordScope, rest: string[], modifier: Modifier | null, site: Site): Value {
  if (rest.length === 0) throw unknownIdentifier(site);
  const auth = scope.request.auth;
  if (auth === null) return fromJs(null);
  const first = rest[0];
  const field = auth.collection.fields.find((f) => f.name === first);
  if (rest.length === 1 && (modifier === null || modifier === 'lower')) {
    if (first === 'collectionId') return plainStatic(auth.collection.id, modifier, site);
    if (first === 'collectionName') return plainStatic(auth.collection.name, modifier, site);
    return plainStatic(field === undefined && !AUTH_STATIC.has(first) ? null : auth.record[first], modifier, site);
  }
  if (field === undefined) return fromJs(null);
  return resolveRecordPath(scope, authRoot(auth.collection, auth.record.id), { segments: rest, modifier }, site);
}

function authRoot(collection: Collection, id: unknown): Root {
  const hop: Hop = {
    key: '@request.auth',
    multi: false,
    source: (self) => ({ from: table(collection.name), on: sql`${column(self, 'id')} = ${param(toSqlValue(id))}` }),
  };
  return { collection, key: '@request.auth', alias: '', hops: [hop] };
}

/** `@collection.<nameOrId>[:alias].<path>`: every row of that collection (a multi-valued path). */
export function resolveCollection(scope: RecordScope, path: Path, site: Site): Value {
  const [, target, ...rest] = path.segments;
  if (target === undefined || rest.length === 0) throw unknownIdentifier(site);
  const [name, joinAlias = ''] = target.split(':');
  const collection = scope.lookup(name);
  if (collection === undefined) throw new FilterError(`unknown collection ${quote(name)}`, site.pos);
  const key = `@collection/${collection.id}:${joinAlias}`;
  const hop: Hop = { key, multi: true, source: () => ({ from: table(collection.name), on: scope.dialect.true }) };
  return resolveRecordPath(scope, { collection, key, alias: '', hops: [hop] }, { segments: rest, modifier: path.modifier }, site);
}
