// One operator between two built values (semantics §1.3-1.4). `=` / `!=` treat NULL and '' alike unless
// a side is an exact value (json path, :changed, geoDistance); when one side is a known non-empty static
// value the comparison is a plain `col = ?`, which SQLite can serve from an index.
import type { BaseOp } from './ast.js';
import { likePattern } from './like.js';
import { EMPTY_TEXT, param, sql, type Frag } from './sql.js';
import type { Value } from './values.js';

export interface Side {
  value: Value;
  sql: Frag;
}

export function compare(op: BaseOp, left: Side, right: Side): Frag {
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
      return sql`${left.sql} LIKE ${pattern(right)} ESCAPE '\\'`;
    case '!~':
      return sql`${left.sql} NOT LIKE ${pattern(right)} ESCAPE '\\'`;
  }
}

/** A static right side is a "contains" search unless it has its own `%`; an expression is wrapped in SQL. */
function pattern(right: Side): Frag {
  const v = right.value;
  if (v.kind === 'static' || v.kind === 'empty') return param(likePattern(String(v.staticValue ?? '')));
  return sql`('%' || ${right.sql} || '%')`;
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
