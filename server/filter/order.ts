// Sort items → the body of an ORDER BY (PocketBase's SortField.BuildExpr). A
// multi-valued path sorts by its smallest value ascending and its largest descending, read in a
// subquery so the caller's rows are not multiplied.
import { SQLITE, type SqlType } from './dialect.js';
import { FilterError, quote } from './filter-error.js';
import type { CompileScope } from './field-resolver.js';
import { JoinSet } from './joins.js';
import { resolveOperand } from './operands.js';
import type { SortItem } from './sort.js';
import { joinFrags, sql, type Frag } from './sql.js';
import { operandOf, type Value } from './values.js';

function invalidSort(item: SortItem): FilterError {
  return new FilterError(`invalid sort field ${quote(item.name)}`, item.pos);
}

export function compileOrder(items: readonly SortItem[], scope: CompileScope): Frag {
  const dialect = scope.dialect ?? SQLITE;
  const joins = new JoinSet(scope.aliases, scope.guard === true && dialect.guards);
  return joinFrags(items.map((item) => {
    const { sql: expr, type } = sortExpr(scope, joins, item);
    return dialect.orderTerm(expr, type, item.desc);
  }), ', ');
}

function sortExpr(scope: CompileScope, shared: JoinSet, item: SortItem): { sql: Frag; type?: SqlType } {
  if (item.name === '@random') return { sql: sql`RANDOM()`, type: 'number' };
  if (item.name === '@rowid') return { sql: scope.resolver.rowid(), type: 'number' };
  let value: Value;
  try {
    value = resolveOperand(scope, { kind: 'identifier', name: item.name, pos: item.pos });
  } catch (err) {
    if (err instanceof FilterError) throw invalidSort(item);
    throw err;
  }
  // A literal, macro or request value sorts nothing (PocketBase refuses it too).
  if (value.kind === 'static' || value.kind === 'empty') throw invalidSort(item);
  if (!value.multi) return { sql: value.build(shared), type: value.type };
  const joins = new JoinSet(scope.aliases, shared.guarded);
  const dialect = scope.dialect ?? SQLITE;
  // PostgreSQL has no MIN/MAX over jsonb: a JSON value is read as text there.
  const type = value.type === 'json' && dialect !== SQLITE ? 'text' : value.type;
  const read = type === value.type ? value.build(joins) : dialect.text(operandOf(value, value.build(joins)));
  const collated = type === 'number' || dialect === SQLITE ? read : dialect.text({ sql: read, type: 'text' });
  return { sql: item.desc ? sql`(SELECT MAX(${collated}) FROM ${joins.from()})` : sql`(SELECT MIN(${collated}) FROM ${joins.from()})`, type };
}
