// What one compilation carries around. Built by resolver.ts; a list rule compiled inside a client filter
// gets its own State sharing the alias allocator, so nested subqueries never reuse an alias.
import type { Collection } from '../core/types.js';
import { FilterError, quote } from '../filter/errors.js';
import type { CompileContext } from './resolver.js';
import type { AliasAllocator, JoinSet } from './joins.js';
import type { Frag } from './sql.js';

export interface State {
  readonly ctx: CompileContext;
  /** A client filter or sort from a non-superuser: hidden fields refused, list rules applied to joins. */
  readonly restricted: boolean;
  readonly now: Date;
  readonly aliases: AliasAllocator;
  /** The shared joins of this compilation's multi-valued paths. */
  readonly joins: JoinSet;
  /**
   * The list rule of a collection a restricted filter joins, compiled against the joined row `alias`:
   * null when the rule is "" (everyone). Throws when the rule is null (superusers only).
   */
  listRule(collection: Collection, alias: string, pos: number): Frag | null;
}

/** Where an identifier sits in the source, for error messages. */
export interface Where {
  name: string;
  pos: number;
}

export function unknownField(where: Where, name = where.name): FilterError {
  return new FilterError(`unknown field ${quote(name)}`, where.pos);
}
