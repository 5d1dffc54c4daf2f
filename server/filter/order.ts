// Sort items → the body of an ORDER BY (PocketBase's SortField.BuildExpr). A
// multi-valued path sorts by its smallest value ascending and its largest descending, read in a
// subquery so the caller's rows are not multiplied.
import { FilterError, quote } from './filter-error.js';
import type { CompileScope } from './field-resolver.js';
import { JoinSet } from './joins.js';
import { resolveOperand } from './operands.js';
import type { SortItem } from './sort.js';
import { joinFrags, sql, type Frag } from './sql.js';
import type { Value } from './values.js';

function invalidSort(item: SortItem): FilterError {
  return new FilterError(`invalid sort field ${quote(item.name)}`, item.pos);
}

export function compileOrder(items: readonly SortItem[], scope: CompileScope): Frag {
  const joins = new JoinSet(scope.aliases, scope.guard === true);
  return joinFrags(items.map((item) => (item.desc ? sql`${sortExpr(scope, joins, item)} DESC` : sql`${sortExpr(scope, joins, item)} ASC`)), ', ');
}

function sortExpr(scope: CompileScope, shared: JoinSet, item: SortItem): Frag {
  if (item.name === '@random') return sql`RANDOM()`;
  if (item.name === '@rowid') return scope.resolver.rowid();
  let value: Value;
  try {
    value = resolveOperand(scope, { kind: 'identifier', name: item.name, pos: item.pos });
  } catch (err) {
    if (err instanceof FilterError) throw invalidSort(item);
    throw err;
  }
  // A literal, macro or request value sorts nothing (PocketBase refuses it too).
  if (value.kind === 'static' || value.kind === 'empty') throw invalidSort(item);
  if (!value.multi) return value.build(shared);
  const joins = new JoinSet(scope.aliases, shared.guarded);
  const read = value.build(joins);
  return item.desc ? sql`(SELECT MAX(${read}) FROM ${joins.from()})` : sql`(SELECT MIN(${read}) FROM ${joins.from()})`;
}
