// Sort items → ORDER BY terms (semantics §4.1). A multi-valued path sorts by its smallest value
// ascending and its largest descending, read in a subquery so the caller's rows are not multiplied.
import type { SortItem } from '../filter/sort.js';
import { FilterError, quote } from '../filter/errors.js';
import { JoinSet } from './joins.js';
import { resolveOperand } from './operands.js';
import { alias, joinFrags, sql, type Frag } from './sql.js';
import type { State } from './state.js';
import type { Value } from './values.js';

function invalidSort(item: SortItem): FilterError {
  return new FilterError(`invalid sort field ${quote(item.name)}`, item.pos);
}

export function compileSortItems(state: State, items: readonly SortItem[]): Frag {
  return joinFrags(items.map((item) => (item.desc ? sql`${sortExpr(state, item)} DESC` : sql`${sortExpr(state, item)} ASC`)), ', ');
}

function sortExpr(state: State, item: SortItem): Frag {
  if (item.name === '@random') return sql`RANDOM()`;
  if (item.name === '@rowid') return sql`${alias(state.ctx.alias)}._rowid_`;
  let value: Value;
  try {
    value = resolveOperand(state, { kind: 'identifier', name: item.name, pos: item.pos });
  } catch (err) {
    if (err instanceof FilterError) throw invalidSort(item);
    throw err;
  }
  // A literal, macro or request value sorts nothing (PocketBase refuses it too).
  if (value.kind === 'static' || value.kind === 'empty') throw invalidSort(item);
  if (!value.multi) return value.build(state.joins);
  const joins = new JoinSet(state.aliases);
  const read = value.build(joins);
  return item.desc ? sql`(SELECT MAX(${read}) FROM ${joins.from()})` : sql`(SELECT MIN(${read}) FROM ${joins.from()})`;
}
