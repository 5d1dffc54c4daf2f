// Deadline checks inside the SQL the compiler emits. sql.js cannot interrupt a statement, so guarded
// SQL calls GUARD_FUNCTION (which the server registers, and which throws once the request's query
// budget is spent) wherever work can pile up:
//  - once per row of every join the compiler emits (relations, back-relations, @collection, :each),
//    written `(guard() OR alias._rowid_)`: the column reference keeps SQLite from hoisting the call out
//    of the loop when it turns a LEFT JOIN into an inner one, and `OR` never reads it;
//  - once per filtered row when the condition can cost more than a few comparisons per row (ROW_GUARD);
//  - before each evaluation over a large value that no row guard can split (`~` on long texts goes to
//    LIKE_FUNCTION, which checks as it goes; `:lower` and JSON reads of large values call the guard).
// Unguarded compilation (tests, tools) emits none of this, and the same SQL as before.
import type { Group } from './ast.js';
import { likeMatches } from './like-match.js';
import { alias as aliasFrag, param, sql, type Frag, type SqlValue } from './sql.js';

export const GUARD_FUNCTION = 'deskbase_guard';
export const LIKE_FUNCTION = 'deskbase_like';

/** Values longer than this many bytes call the guard before a `:lower` or a JSON parse reads them. */
export const LARGE_VALUE_BYTES = 64 * 1024;

/** How many expressions a condition may have before it gets a row guard without a `~`. */
export const ROW_GUARD_EXPRESSIONS = 16;

/**
 * Character comparisons SQLite's LIKE may spend on one row of a condition, all `~` terms together
 * (about 0.5 ms at worst here); a text whose length times its pattern's would pass its share goes to
 * LIKE_FUNCTION instead. LIKE compares a pattern at every position of the text, so a long pattern full
 * of near-matches over a long text costs their product, and nothing can interrupt it.
 */
export const LIKE_WORK_PER_ROW = 200_000;

export interface ConditionShape {
  expressions: number;
  likes: number;
}

/** Counts a parsed condition's expressions and `~` / `!~` terms (what its cost per row grows with). */
export function shapeOf(root: Group): ConditionShape {
  const shape: ConditionShape = { expressions: 0, likes: 0 };
  const groups: Group[] = [root];
  for (let group = groups.pop(); group !== undefined; group = groups.pop()) {
    for (const { node } of group.items) {
      if (node.kind === 'group') groups.push(node);
      else {
        shape.expressions++;
        if (node.op.endsWith('~')) shape.likes++;
      }
    }
  }
  return shape;
}

/** Whether a condition of this shape gets a row guard. */
export function needsRowGuard(shape: ConditionShape): boolean {
  return shape.likes > 0 || shape.expressions > ROW_GUARD_EXPRESSIONS;
}

/**
 * The SQL functions guarded SQL calls, for the server to register: `check` throws once the running
 * statement's budget is spent (SQLite then fails the statement with that error).
 */
export function guardFunctions(check: () => void): Record<string, (...args: (SqlValue | Uint8Array)[]) => SqlValue> {
  return {
    [GUARD_FUNCTION]: () => {
      check();
      return 1;
    },
    [LIKE_FUNCTION]: (text, pattern) => {
      const found = likeMatches(text, pattern, check);
      return found === null ? null : found ? 1 : 0;
    },
  };
}

const GUARD: Frag = { text: `${GUARD_FUNCTION}()`, params: [] };
const LIKE: Frag = { text: LIKE_FUNCTION, params: [] };

/** The guard for each row the join aliased `rowAlias` produces. */
export function loopGuard(rowAlias: string): Frag {
  return sql`(${GUARD} OR ${aliasFrag(rowAlias)}._rowid_)`;
}

/**
 * The guard for the filtered row, on every row: a call costs about as much as any cheaper-looking
 * sampling expression SQLite could evaluate instead (docs/architecture.md, "Decisions of the compiler").
 */
export const ROW_GUARD: Frag = GUARD;

/** `LIKE_FUNCTION(text, pattern)`: the same as `text LIKE pattern ESCAPE '\\'`, checking the deadline as it goes. */
export function likeCall(text: Frag, pattern: Frag): Frag {
  return sql`${LIKE}(${text}, ${pattern})`;
}

/** `value`, calling the guard first when it is a large text or blob. */
export function sized(value: Frag): Frag {
  return sql`(CASE WHEN octet_length(${value}) > ${param(LARGE_VALUE_BYTES)} AND NOT ${GUARD} THEN NULL ELSE ${value} END)`;
}
