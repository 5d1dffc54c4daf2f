// The interface between the filter language and a domain (PocketBase's search.FieldResolver). The
// language handles literals, placeholders, macros, functions, operators, groups and sort syntax; every
// other identifier goes to the resolver, which maps it to SQL (a Value) or refuses it with a FilterError.
import type { IdentifierOperand } from './ast.js';
import type { Dialect } from './dialect.js';
import type { AliasAllocator } from './joins.js';
import type { Frag } from './sql.js';
import type { Value } from './values.js';

export interface FieldResolver {
  /** An identifier that is not a literal or a macro → its value, or a FilterError at `identifier.pos`. */
  resolve(identifier: IdentifierOperand): Value;
  /** The `@rowid` sort key: the rowid of the filtered row. */
  rowid(): Frag;
}

/** What one compilation of a condition or a sort runs with. */
export interface CompileScope {
  resolver: FieldResolver;
  /** Shared with the resolver and with nested compilations, so no two subqueries reuse an alias. */
  aliases: AliasAllocator;
  /** Time for the datetime macros. */
  now: Date;
  /** Values of `{:name}` placeholders (server-side filters only). */
  params?: Record<string, unknown>;
  /** Deadline checks in the emitted SQL (guard.ts); none without, and none for a dialect without guards. */
  guard?: boolean;
  /** The SQL written (dialect.ts); SQLite when omitted. */
  dialect?: Dialect;
}
