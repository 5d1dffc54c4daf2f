// One operator between two built values (PocketBase's operators). `=` / `!=` treat NULL and '' alike unless
// a side is an exact value (json path, :changed, geoDistance); when one side is a known non-empty static
// value the comparison is a plain `col = ?`, which SQLite can serve from an index.
import type { BaseOp } from './ast.js';
import { likeCall } from './guard.js';
import { likePattern } from './like.js';
import { MAX_LIKE_PATTERN_BYTES } from './limits.js';
import { EMPTY_TEXT, param, sql, type Frag } from './sql.js';
import type { Value } from './values.js';

export interface Side {
  value: Value;
  sql: Frag;
}

/** `likeWork`: guarded compilation only, the LIKE work a `~` may do on one row before it is routed. */
export function compare(op: BaseOp, left: Side, right: Side, likeWork?: number): Frag {
  switch (op) {
    case '=':
      return equality(left, right, false);
    case '!=':
      return equality(left, right, true);
    case '>':
      return sql`${left.sql} > ${right.sql}`;
    case '>=':
      return sql`${left.sql} >= ${right.sql}`;
    case '<':
      return sql`${left.sql} < ${right.sql}`;
    case '<=':
      return sql`${left.sql} <= ${right.sql}`;
    case '~':
      return like(left, right, false, likeWork);
    case '!~':
      return like(left, right, true, likeWork);
  }
}

/**
 * `left LIKE pattern ESCAPE '\'`. Guarded, a row whose text is long enough for LIKE to pass its share of
 * the row's work (text length times pattern length) goes to LIKE_FUNCTION, same meaning, which keeps
 * checking the deadline while it searches (guard.ts); so does every row when the pattern is longer than
 * SQLite's LIKE takes (MAX_LIKE_PATTERN_BYTES: a bound value, or a column's value on that row).
 */
function like(left: Side, right: Side, negate: boolean, likeWork?: number): Frag {
  const v = right.value;
  const fixed = v.kind === 'static' || v.kind === 'empty' ? likePattern(String(v.staticValue ?? '')) : null;
  // A static right side is a "contains" search unless it has its own `%`; an expression is wrapped in SQL.
  const pattern = fixed === null ? sql`('%' || ${right.sql} || '%')` : param(fixed);
  const plain = negate ? sql`${left.sql} NOT LIKE ${pattern} ESCAPE '\\'` : sql`${left.sql} LIKE ${pattern} ESCAPE '\\'`;
  if (likeWork === undefined) return plain;
  const long = fixed === null
    ? sql`(octet_length(${left.sql}) * (octet_length(${right.sql}) + 2) > ${param(likeWork)} OR octet_length(${right.sql}) + 2 > ${param(MAX_LIKE_PATTERN_BYTES)})`
    : sql`octet_length(${left.sql}) > ${param(Math.floor(likeWork / Math.max(1, fixed.length)))}`;
  const matcher = likeCall(left.sql, pattern);
  if (fixed !== null && Buffer.byteLength(fixed) > MAX_LIKE_PATTERN_BYTES) return negate ? sql`NOT ${matcher}` : matcher;
  return sql`(CASE WHEN ${long} THEN ${negate ? sql`NOT ${matcher}` : matcher} ELSE ${plain} END)`;
}

function equality(left: Side, right: Side, negate: boolean): Frag {
  const lk = left.value.kind;
  const rk = right.value.kind;
  const eq = (a: Frag, b: Frag) => (negate ? sql`${a} IS NOT ${b}` : sql`${a} = ${b}`);
  if (lk === 'exact' || rk === 'exact') return negate ? sql`${left.sql} IS NOT ${right.sql}` : sql`${left.sql} IS ${right.sql}`;
  if (lk === 'empty' && rk === 'empty') return eq(EMPTY_TEXT, EMPTY_TEXT);
  if (lk === 'static' || rk === 'static') {
    return eq(lk === 'empty' ? EMPTY_TEXT : left.sql, rk === 'empty' ? EMPTY_TEXT : right.sql);
  }
  if (lk === 'empty' || rk === 'empty') {
    const col = lk === 'empty' ? right.sql : left.sql;
    return negate ? sql`(${col} IS NOT '' AND ${col} IS NOT NULL)` : sql`(${col} = '' OR ${col} IS NULL)`;
  }
  return eq(sql`COALESCE(${left.sql}, '')`, sql`COALESCE(${right.sql}, '')`);
}
