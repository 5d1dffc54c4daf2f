// One operator between two built values (PocketBase's operators). `=` / `!=` treat NULL and '' alike unless
// a side is an exact value (json path, :changed, geoDistance); when one side is a known non-empty static
// value the comparison is a plain `col = ?`, which SQLite can serve from an index.
import type { BaseOp } from './ast.js';
import { SQLITE, type Dialect } from './dialect.js';
import { chargeCall, LIKE_COMPARISON_WORK, LIKE_SCAN_WORK, likeCall, linearPattern } from './guard.js';
import { likePattern } from './like.js';
import { MAX_LIKE_PATTERN_BYTES } from './limits.js';
import { EMPTY_TEXT, param, sql, type Frag } from './sql.js';
import { operandOf, type Value } from './values.js';

export interface Side {
  value: Value;
  sql: Frag;
}

/** Guarded compilation only: what a `~` may do on one row (guard.ts). */
export interface LikeBudget {
  /** The LIKE comparisons a `~` may make on one row before it is routed to LIKE_FUNCTION. */
  work: number;
  /** The work (in units) a `~` may do on one row without a charge of its own: the row's guard covers it. */
  free: number;
}

/**
 * `likeBudget`: guarded compilation only (guard.ts).
 * `dialect` brings both sides to one type first (a no-op on SQLite, which compares any types).
 */
export function compare(op: BaseOp, leftSide: Side, rightSide: Side, likeBudget?: LikeBudget, dialect: Dialect = SQLITE): Frag {
  if (op === '~' || op === '!~') {
    const left = { value: leftSide.value, sql: dialect.text(operandOf(leftSide.value, leftSide.sql)) };
    const right = { value: rightSide.value, sql: dialect.text(operandOf(rightSide.value, rightSide.sql)) };
    return like(left, right, op === '!~', dialect, likeBudget);
  }
  const ordering = op !== '=' && op !== '!=';
  const [l, r] = dialect.operands(operandOf(leftSide.value, leftSide.sql), operandOf(rightSide.value, rightSide.sql), ordering);
  const left = { value: leftSide.value, sql: l };
  const right = { value: rightSide.value, sql: r };
  switch (op) {
    case '=':
      return equality(left, right, false, dialect);
    case '!=':
      return equality(left, right, true, dialect);
    case '>':
      return sql`${left.sql} > ${right.sql}`;
    case '>=':
      return sql`${left.sql} >= ${right.sql}`;
    case '<':
      return sql`${left.sql} < ${right.sql}`;
    case '<=':
      return sql`${left.sql} <= ${right.sql}`;
  }
}

/**
 * `left LIKE pattern ESCAPE '\'`. Guarded, a row whose text is long enough for LIKE to pass its share of
 * the row's work (text length times pattern length) goes to LIKE_FUNCTION, same meaning, which charges
 * its work while it searches (guard.ts); so does every row when the pattern is longer than SQLite's LIKE
 * takes (MAX_LIKE_PATTERN_BYTES: a bound value, or a column's value on that row). The rows left to
 * SQLite's LIKE are charged text length times pattern length (its worst case; the text's length for a
 * pattern that cannot backtrack) here, past the work their row's guard covers.
 */
function like(left: Side, right: Side, negate: boolean, dialect: Dialect, budget?: LikeBudget): Frag {
  const v = right.value;
  const fixed = v.kind === 'static' || v.kind === 'empty' ? likePattern(String(v.staticValue ?? '')) : null;
  // A static right side is a "contains" search unless it has its own `%`; an expression is wrapped in SQL.
  const pattern = fixed === null ? sql`('%' || ${right.sql} || '%')` : param(fixed);
  const plain = dialect.like(left.sql, pattern, negate, fixed ?? undefined);
  if (budget === undefined) return plain;
  const likeWork = budget.work;
  const long = fixed === null
    ? sql`(octet_length(${left.sql}) * (octet_length(${right.sql}) + 2) > ${param(likeWork)} OR octet_length(${right.sql}) + 2 > ${param(MAX_LIKE_PATTERN_BYTES)})`
    : sql`octet_length(${left.sql}) > ${param(Math.floor(likeWork / Math.max(1, fixed.length)))}`;
  const matcher = likeCall(left.sql, pattern);
  if (fixed !== null && Buffer.byteLength(fixed) > MAX_LIKE_PATTERN_BYTES) return negate ? sql`NOT ${matcher}` : matcher;
  // the work charged: the text's length for a pattern that cannot backtrack, else length times pattern
  // length; a short text's is covered by its row's guard (no call: an argument costs a row more)
  const linear = fixed !== null && linearPattern(fixed);
  const perComparison = linear ? LIKE_SCAN_WORK : LIKE_COMPARISON_WORK;
  const routed = negate ? sql`NOT ${matcher}` : matcher;
  if (fixed === null) {
    const comparisons = sql`octet_length(${left.sql}) * (octet_length(${right.sql}) + 2)`;
    const charged = sql`${comparisons} > ${param(Math.floor(budget.free / perComparison))} AND NOT ${chargeCall(sql`${comparisons} * ${param(perComparison)}`)}`;
    return sql`(CASE WHEN ${long} THEN ${routed} WHEN ${charged} THEN NULL ELSE ${plain} END)`;
  }
  // a bound pattern: the common short text first, with one comparison as without charges
  const perByte = perComparison * (linear ? 1 : fixed.length);
  const short = sql`octet_length(${left.sql}) <= ${param(Math.floor(budget.free / perByte))}`;
  return sql`(CASE WHEN ${short} THEN ${plain} WHEN ${long} THEN ${routed} WHEN NOT ${chargeCall(sql`octet_length(${left.sql}) * ${param(perByte)}`)} THEN NULL ELSE ${plain} END)`;
}

function equality(left: Side, right: Side, negate: boolean, dialect: Dialect): Frag {
  const lk = left.value.kind;
  const rk = right.value.kind;
  const eq = (a: Frag, b: Frag) => (negate ? dialect.same(a, b, true) : sql`${a} = ${b}`);
  if (lk === 'exact' || rk === 'exact') return dialect.same(left.sql, right.sql, negate);
  if (lk === 'empty' && rk === 'empty') return eq(EMPTY_TEXT, EMPTY_TEXT);
  if (lk === 'static' || rk === 'static') {
    return eq(lk === 'empty' ? EMPTY_TEXT : left.sql, rk === 'empty' ? EMPTY_TEXT : right.sql);
  }
  if (lk === 'empty' || rk === 'empty') {
    const col = lk === 'empty' ? right.sql : left.sql;
    return dialect.isEmpty(col, negate);
  }
  return eq(dialect.orEmpty(left.sql), dialect.orEmpty(right.sql));
}
