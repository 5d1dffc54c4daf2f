// Work counted inside the SQL the compiler emits. sql.js cannot interrupt a statement, so guarded SQL
// calls the server's charge functions (registered by core, counted by the store's budget: store/
// deadline.ts), which throw once the request's budget of work is spent, wherever work can pile up.
// Each call charges what the SQL around it may do, in work units (about a nanosecond of engine time on
// an idle machine): the count, not the clock, decides, so the same request on the same data gets the
// same answer on an idle and on a saturated machine (issue 28).
//  - GUARD_FUNCTION once per row of every join the compiler emits (relations, back-relations,
//    @collection, :each): GUARD_WORK. Written `(guard() OR alias._rowid_)`: the column reference keeps
//    SQLite from hoisting the call out of the loop when it turns a LEFT JOIN into an inner one, and `OR`
//    never reads it;
//  - GUARD_FUNCTION once per filtered row when the condition can cost more than a few comparisons per
//    row (a `~`, or more than ROW_GUARD_EXPRESSIONS expressions), once more per GUARD_WORK its
//    expressions weigh;
//  - CHARGE_FUNCTION (the work as its argument) before each evaluation a row's GUARD_WORK does not
//    cover: a `~` whose LIKE work passes LIKE_FREE_WORK (text length times pattern length, or the text's
//    length for a pattern that cannot backtrack), a `:lower` or JSON read of a value over
//    LARGE_VALUE_BYTES and a back-relation's list of ids (their length); `~` on long texts goes to
//    LIKE_FUNCTION, which charges as it goes.
// What no charge sees is bounded per charged row (LIKE_FREE_WORK, LARGE_VALUE_BYTES per read) or by the
// data; the store's wall-clock backstop is for the rest.
// Unguarded compilation (tests, tools) emits none of this, and the same SQL as before.
import type { Group } from './ast.js';
import { likeMatches } from './like-match.js';
import { alias as aliasFrag, joinFrags, param, sql, type Frag, type SqlValue } from './sql.js';

export const GUARD_FUNCTION = 'deskbase_guard';
export const CHARGE_FUNCTION = 'deskbase_charge';
export const LIKE_FUNCTION = 'deskbase_like';

/**
 * The charge of one call of GUARD_FUNCTION: a row of a guarded join (or of a view's read collection), or a
 * filtered row under a row guard, with the LIKE work its `~` terms do uncharged (LIKE_FREE_WORK).
 */
export const GUARD_WORK = 500;

/** What each expression of a condition weighs per filtered row under a row guard (one more call per GUARD_WORK). */
export const EXPRESSION_WORK = 50;

/**
 * The charge of one character comparison of SQLite's LIKE, charged text length times pattern length
 * (its worst case, a pattern that matches itself partly over a text of near-matches).
 */
export const LIKE_COMPARISON_WORK = 8;

/**
 * The charge per byte of text of a "contains" search that cannot backtrack (linearPattern): SQLite
 * skips to each place the pattern's first character occurs and compares from there, and no two such
 * places can overlap a partial match, so its work is at most twice the text's length.
 */
export const LIKE_SCAN_WORK = 3;

/**
 * The LIKE work (in units, shared among a condition's `~` terms) a row may do without a charge of its
 * own, covered by its guard's GUARD_WORK: short texts (a title) cost no call more per row.
 */
export const LIKE_FREE_WORK = 250;

/** The charge per byte of a large value a `:lower` or a JSON parse reads (LARGE_VALUE_BYTES and over). */
export const VALUE_BYTE_WORK = 2;

/** The charge per character LIKE_FUNCTION reads (decoding, folding, searching with indexOf). */
export const JS_LIKE_CHAR_WORK = 30;

/** The charge per step of LIKE_FUNCTION's search of a segment holding `_` (a part of a tried placement). */
export const JS_LIKE_STEP_WORK = 25;

/** The charge per byte of a stored list of ids a back-relation reads on each row it visits (json_each). */
export const ITEMS_BYTE_WORK = 36;

/** Values longer than this many bytes are charged their length before a `:lower` or a JSON parse reads them. */
export const LARGE_VALUE_BYTES = 1024;

/** How many expressions a condition may have before it gets a row guard without a `~`. */
export const ROW_GUARD_EXPRESSIONS = 16;

/**
 * Character comparisons SQLite's LIKE may spend on one row of a condition, all `~` terms together
 * (about 0.5 ms at worst here), each charged as it is spent; a text whose length times its pattern's
 * would pass its share goes to LIKE_FUNCTION instead. LIKE compares a pattern at every position of the
 * text, so a long pattern full of near-matches over a long text costs their product, and nothing can
 * interrupt it.
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

/** How many steps of LIKE_FUNCTION's search one tick stands for (filter/like-match.ts). */
const JS_LIKE_TICK_STEPS = 4096;

/**
 * The SQL functions guarded SQL calls, for the server to register: `charge(work)` adds work units to the
 * running statement's budget and throws once it is spent (SQLite then fails the statement with that error).
 */
export function guardFunctions(charge: (work: number) => void): Record<string, (...args: (SqlValue | Uint8Array)[]) => SqlValue> {
  const tick = () => charge(JS_LIKE_TICK_STEPS * JS_LIKE_STEP_WORK);
  return {
    [GUARD_FUNCTION]: () => {
      charge(GUARD_WORK);
      return 1;
    },
    [CHARGE_FUNCTION]: (work) => {
      charge(typeof work === 'number' && work > 0 ? work : 0);
      return 1;
    },
    [LIKE_FUNCTION]: (text, pattern) => {
      charge(GUARD_WORK + JS_LIKE_CHAR_WORK * (lengthOf(text) + lengthOf(pattern)));
      const found = likeMatches(text, pattern, tick);
      return found === null ? null : found ? 1 : 0;
    },
  };
}

function lengthOf(value: SqlValue | Uint8Array): number {
  return typeof value === 'string' ? value.length : value instanceof Uint8Array ? value.byteLength : 0;
}

const GUARD: Frag = { text: `${GUARD_FUNCTION}()`, params: [] };
const CHARGE: Frag = { text: CHARGE_FUNCTION, params: [] };
const LIKE: Frag = { text: LIKE_FUNCTION, params: [] };

/** The guard for each row the join aliased `rowAlias` produces. */
export function loopGuard(rowAlias: string): Frag {
  return sql`(${GUARD} OR ${aliasFrag(rowAlias)}._rowid_)`;
}

/**
 * The guard for the filtered row, on every row: one GUARD_FUNCTION call (GUARD_WORK: the row, its first
 * expressions and its `~` terms' free LIKE work), and one more for each further GUARD_WORK its
 * expressions weigh. Calls without arguments: sql.js hands an argument over for about as much as a
 * row costs (docs/architecture.md, "Decisions of the compiler").
 */
export function rowGuard(shape: ConditionShape): Frag {
  const calls = 1 + Math.floor((shape.expressions * EXPRESSION_WORK) / GUARD_WORK);
  return joinFrags(Array.from({ length: calls }, () => GUARD), ' AND ');
}

/** `CHARGE_FUNCTION(work)`: charges `work` units (an SQL expression) and is true. */
export function chargeCall(work: Frag): Frag {
  return sql`${CHARGE}(${work})`;
}

/** `LIKE_FUNCTION(text, pattern)`: the same as `text LIKE pattern ESCAPE '\\'`, charging its work as it goes. */
export function likeCall(text: Frag, pattern: Frag): Frag {
  return sql`${LIKE}(${text}, ${pattern})`;
}

/** `list` (a stored JSON list), charging its length first. */
export function chargedItems(list: Frag): Frag {
  return sql`(CASE WHEN NOT ${CHARGE}(octet_length(${list}) * ${param(ITEMS_BYTE_WORK)}) THEN NULL ELSE ${list} END)`;
}

/**
 * Whether SQLite's LIKE does linear work for this pattern (as likePattern builds it): `%text%` whose text
 * holds no wildcard and whose first character (ASCII, folded as LIKE folds) occurs nowhere else in it.
 * Each place the first character occurs starts a comparison that fails before the next such place, so
 * the comparisons add up to no more than the text's length.
 */
export function linearPattern(pattern: string): boolean {
  if (pattern.length < 3 || !pattern.startsWith('%') || !pattern.endsWith('%')) return false;
  const chars: string[] = [];
  const body = pattern.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    let c = body[i];
    if (c === '%' || c === '_') return false;
    if (c === '\\') {
      if (++i >= body.length) return false;
      c = body[i];
    }
    chars.push(c.toLowerCase());
  }
  const first = chars[0];
  return first !== undefined && first.charCodeAt(0) < 0x80 && chars.indexOf(first, 1) === -1;
}

/** `value`, charging its length first when it is a large text or blob. */
export function sized(value: Frag): Frag {
  return sql`(CASE WHEN octet_length(${value}) > ${param(LARGE_VALUE_BYTES)} AND NOT ${CHARGE}(octet_length(${value}) * ${param(VALUE_BYTE_WORK)}) THEN NULL ELSE ${value} END)`;
}
