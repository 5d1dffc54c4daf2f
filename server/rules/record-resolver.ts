// The domain's FieldResolver (PocketBase's RecordFieldResolver): identifiers of a collection's filter,
// rule or sort → SQL. Fields and relation paths of the filtered record, back-relations, `@request.*`,
// `@collection.*` and modifiers are resolved here; the language (server/filter) does the rest. For a
// restricted client filter, the list rules of joined collections are compiled here too, through the
// language's public entry, with a resolver of their own.
import type { Collection, Lookup, RequestInfo } from '../model/types.js';
import { isLocked, isOpen } from '../model/rule.js';
import type { IdentifierOperand } from '../filter/ast.js';
import { compileCondition } from '../filter/condition.js';
import type { Dialect } from '../filter/dialect.js';
import { FilterError, quote } from '../filter/filter-error.js';
import type { FieldResolver } from '../filter/field-resolver.js';
import type { AliasAllocator } from '../filter/joins.js';
import { parseFilter } from '../filter/parser.js';
import { alias, sql, type Frag } from '../filter/sql.js';
import type { Value } from '../filter/values.js';
import { splitIdentifier } from './identifiers.js';
import { resolveRecordPath } from './record-paths.js';
import { resolveCollection, resolveRequest } from './request-paths.js';
import type { RecordScope, Site } from './scope.js';

export interface RecordResolverOptions {
  collection: Collection;
  alias: string;
  lookup: Lookup;
  request: RequestInfo;
  restricted: boolean;
  aliases: AliasAllocator;
  now: Date;
  guarded: boolean;
  dialect: Dialect;
}

export function createRecordResolver(options: RecordResolverOptions): FieldResolver {
  const scope: RecordScope = {
    collection: options.collection,
    alias: options.alias,
    lookup: options.lookup,
    request: options.request,
    restricted: options.restricted,
    aliases: options.aliases,
    guarded: options.guarded,
    dialect: options.dialect,
    listRule: (collection, rowAlias, pos) => listRuleCondition(options, collection, rowAlias, pos),
  };
  return {
    resolve: (identifier) => resolveIdentifier(scope, identifier),
    rowid: () => sql`${alias(options.alias)}._rowid_`,
  };
}

function resolveIdentifier(scope: RecordScope, identifier: IdentifierOperand): Value {
  const site: Site = { name: identifier.name, pos: identifier.pos };
  const path = splitIdentifier(site);
  if (path.segments[0] === '@request') return resolveRequest(scope, path, site);
  if (path.segments[0] === '@collection') return resolveCollection(scope, path, site);
  if (site.name.startsWith('@') || site.name.startsWith('#')) {
    throw new FilterError(`unknown identifier ${quote(site.name)}`, site.pos);
  }
  return resolveRecordPath(scope, { collection: scope.collection, key: '', alias: scope.alias, hops: [] }, path, site);
}

/** The list rule of a collection a restricted client filter joins, over the joined row `rowAlias`. */
function listRuleCondition(parent: RecordResolverOptions, collection: Collection, rowAlias: string, pos: number): Frag | null {
  const rule = collection.listRule;
  if (isLocked(rule)) throw new FilterError(`fields of ${quote(collection.name)} can be filtered only by superusers`, pos);
  if (isOpen(rule)) return null;
  const options: RecordResolverOptions = { ...parent, collection, alias: rowAlias, restricted: false };
  try {
    const scope = { resolver: createRecordResolver(options), aliases: parent.aliases, now: parent.now, guard: parent.guarded, dialect: parent.dialect };
    return compileCondition(parseFilter(rule), scope);
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    throw new FilterError(`invalid list rule of ${quote(collection.name)} (${err.message})`, pos);
  }
}
