// What the record resolver carries through one compilation, and where an identifier sits in the source.
// A list rule compiled inside a client filter gets its own scope sharing the alias allocator, so nested
// subqueries never reuse an alias.
import type { Collection, Lookup, RequestInfo } from '../model/types.js';
import { FilterError, quote } from '../filter/filter-error.js';
import type { Dialect } from '../filter/dialect.js';
import type { AliasAllocator } from '../filter/joins.js';
import type { Frag } from '../filter/sql.js';

export interface RecordScope {
  /** The collection whose rows are filtered. */
  readonly collection: Collection;
  /** SQL alias of the filtered row in the caller's query. */
  readonly alias: string;
  /** Other collections by id or name (relations, back-relations, @collection). */
  readonly lookup: Lookup;
  /** The values `@request.*` reads. */
  readonly request: RequestInfo;
  /** A client filter or sort from a non-superuser: hidden fields refused, list rules applied to joins. */
  readonly restricted: boolean;
  readonly aliases: AliasAllocator;
  /** The SQL checks the query deadline (filter/guard.ts): large JSON values call the guard before parsing. */
  readonly guarded: boolean;
  /** The SQL written (filter/dialect.ts). */
  readonly dialect: Dialect;
  /**
   * The list rule of a collection a restricted filter joins, compiled against the joined row `alias`:
   * null when the rule is "" (everyone). Throws when the rule is null (superusers only).
   */
  listRule(collection: Collection, alias: string, pos: number): Frag | null;
}

/** An identifier and its offset in the source, for error messages. */
export interface Site {
  name: string;
  pos: number;
}

export function unknownField(site: Site, name = site.name): FilterError {
  return new FilterError(`unknown field ${quote(name)}`, site.pos);
}
