// A parsed filter or rule → one SQL condition over the caller's row (PocketBase's FilterData.BuildExpr).
//
// Multi-valued paths follow PocketBase. There, each path is LEFT JOINed once for the
// whole query and rows are deduplicated, so `A && B` on the same path must hold for the same joined row,
// and a plain operator also requires that no value of the path violates it ("all"), while a `?`
// operator only needs one ("any"). Here, without touching the caller's FROM clause:
//   chain of AND terms  →  <terms with no join> AND EXISTS (SELECT 1 FROM (SELECT 1) LEFT JOIN <joins
//                          the other terms use> WHERE <those terms>)
//   plain op, multi     →  <op on the joined row> AND NOT EXISTS (<fresh joins> WHERE NOT (<op>))
// `A || B` distributes over EXISTS, so each OR branch of the top level gets its own EXISTS.
import { baseOp, isAnyOp, type Expr, type Group, type GroupItem } from './ast.js';
import { compare, type LikeBudget } from './compare.js';
import { SQLITE } from './dialect.js';
import { JoinSet } from './joins.js';
import type { CompileScope } from './field-resolver.js';
import { LIKE_FREE_WORK, LIKE_WORK_PER_ROW, needsRowGuard, rowGuard, shapeOf } from './guard.js';
import { resolveOperand } from './operands.js';
import { joinFrags, sql, type Frag } from './sql.js';

interface Term {
  sql: Frag;
  /** The shared joins the term reads (empty: it reads only the caller's row). */
  joins: Set<string>;
}

/** What one condition's compilation carries: its scope and the joins its multi-valued paths share. */
interface Build {
  scope: CompileScope;
  joins: JoinSet;
  /** Guarded only: the LIKE work each `~` term may do on one row, and what it does uncharged (guard.ts). */
  likeWork?: LikeBudget;
}

/** The whole filter: the top-level OR branches each get the EXISTS their joined terms need. */
export function compileCondition(root: Group, scope: CompileScope): Frag {
  if (scope.guard !== true || scope.dialect?.guards === false) return compileBranches({ scope, joins: new JoinSet(scope.aliases) }, root);
  const shape = shapeOf(root);
  const terms = Math.max(1, shape.likes);
  const likeWork = { work: Math.floor(LIKE_WORK_PER_ROW / terms), free: Math.floor(LIKE_FREE_WORK / terms) };
  const condition = compileBranches({ scope, joins: new JoinSet(scope.aliases, true), likeWork }, root);
  return needsRowGuard(shape) ? sql`(${rowGuard(shape)} AND ${condition})` : condition;
}

function compileBranches(state: Build, root: Group): Frag {
  const branches = splitOr(root.items).map((chain) => {
    const terms = chain.map((item) => compileItem(state, item));
    const plain = terms.filter((t) => t.joins.size === 0).map((t) => t.sql);
    const joined = terms.filter((t) => t.joins.size > 0);
    if (joined.length > 0) {
      const keys = new Set(joined.flatMap((t) => [...t.joins]));
      const where = joinFrags(joined.map((t) => t.sql), ' AND ');
      plain.push(sql`EXISTS (SELECT 1 FROM ${state.joins.from(keys)} WHERE ${where})`);
    }
    return plain.length === 1 ? plain[0] : sql`(${joinFrags(plain, ' AND ')})`;
  });
  return branches.length === 1 ? branches[0] : sql`(${joinFrags(branches, ' OR ')})`;
}

/** Splits a group's items at its `||` joins (AND binds tighter, as in SQL). */
function splitOr(items: readonly GroupItem[]): GroupItem[][] {
  const chains: GroupItem[][] = [];
  for (const item of items) {
    if (item.join === '||' || chains.length === 0) chains.push([item]);
    else chains[chains.length - 1].push(item);
  }
  return chains;
}

function compileItem(state: Build, item: GroupItem): Term {
  return item.node.kind === 'expr' ? compileExpr(state, item.node) : compileGroup(state, item.node);
}

/** A nested group keeps its source order; SQLite's precedence applies inside the brackets. */
function compileGroup(state: Build, group: Group): Term {
  const joins = new Set<string>();
  const parts: Frag[] = [];
  group.items.forEach((item, i) => {
    const term = compileItem(state, item);
    for (const key of term.joins) joins.add(key);
    if (i > 0) parts.push(item.join === '&&' ? sql` AND ` : sql` OR `);
    parts.push(term.sql);
  });
  return { sql: sql`(${joinFrags(parts, '')})`, joins };
}

function compileExpr(state: Build, expr: Expr): Term {
  const left = resolveOperand(state.scope, expr.left);
  const right = resolveOperand(state.scope, expr.right);
  const op = baseOp(expr.op);
  const joins = new Set<string>();
  state.joins.track(joins);
  const dialect = state.scope.dialect ?? SQLITE;
  const base = compare(op, { value: left, sql: left.build(state.joins) }, { value: right, sql: right.build(state.joins) }, state.likeWork, dialect);
  state.joins.track(null);
  const all = !isAnyOp(expr.op) && ((left.multi && left.anyOnly !== true) || (right.multi && right.anyOnly !== true));
  if (!all) return { sql: base, joins };
  // "All": no value of the path may violate the condition (a NULL comparison is no violation).
  const fresh = new JoinSet(state.scope.aliases, state.joins.guarded);
  const check = compare(op, { value: left, sql: left.build(fresh) }, { value: right, sql: right.build(fresh) }, state.likeWork, dialect);
  return { sql: sql`(${base} AND NOT EXISTS (SELECT 1 FROM ${fresh.from()} WHERE NOT (${check})))`, joins };
}
