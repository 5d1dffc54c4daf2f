// A value reached through a chain of joins, for resolvers: the hops that reach the row holding the
// value, and how to read the value there. Without hops the value is read from the row itself; with
// single-row hops only it is one scalar subquery; with any multi-row hop it reads the compilation's
// shared joins (joins.ts). What a hop joins (a table, json_each...) is the resolver's business.
import { alias, joinFrags, sql, type Frag } from './sql.js';
import type { Affinity, SqlType } from './dialect.js';
import type { AliasAllocator, JoinSet } from './joins.js';
import type { Value } from './values.js';

export interface Hop {
  /** Identifies the join for sharing: the same key in one filter is the same joined row. */
  key: string;
  /** May yield more than one row per record. */
  multi: boolean;
  /** FROM item and join condition, given this hop's alias and the previous row's alias. */
  source(self: string, parent: string): { from: Frag; on: Frag };
}

export interface Plan {
  /** Alias of the row the path starts from (the caller's row); unused when the first hop needs none. */
  rootAlias: string;
  hops: Hop[];
  /** The value, read from the last hop's alias (or the root alias without hops). */
  read(rowAlias: string): Frag;
  kind: 'column' | 'exact';
  /** What the value's SQL gives (dialect.ts). */
  type?: SqlType;
  /** SQLite's affinity of the value read (a column's); none for an expression. */
  affinity?: Affinity;
  /**
   * The value when single-row hops find no row, if not NULL: PocketBase reads a LEFT JOIN's NULL row,
   * so `author.friends:length` is 0 for a post without author, while a scalar subquery would give NULL.
   */
  missing?: Frag;
}

export function planValue(plan: Plan, aliases: AliasAllocator): Value {
  const multi = plan.hops.some((h) => h.multi);
  return {
    kind: plan.kind,
    type: plan.type,
    affinity: plan.affinity,
    multi,
    build: (joins) => (multi ? buildJoined(plan, joins) : buildScalar(plan, aliases)),
  };
}

/** `(SELECT value FROM t1 AS a1 JOIN t2 AS a2 ON ... WHERE <t1 condition>)`: NULL when a hop finds no row. */
function buildScalar(plan: Plan, aliases: AliasAllocator): Frag {
  if (plan.hops.length === 0) return plan.read(plan.rootAlias);
  const names = plan.hops.map(() => aliases.next());
  const first = plan.hops[0].source(names[0], plan.rootAlias);
  const rest = plan.hops.slice(1).map((hop, i) => {
    const s = hop.source(names[i + 1], names[i]);
    return sql` JOIN ${s.from} AS ${alias(names[i + 1])} ON ${s.on}`;
  });
  const last = names[names.length - 1];
  const value = sql`(SELECT ${plan.read(last)} FROM ${first.from} AS ${alias(names[0])}${joinFrags(rest, '')} WHERE ${first.on})`;
  return plan.missing === undefined ? value : sql`COALESCE(${value}, ${plan.missing})`;
}

function buildJoined(plan: Plan, joins: JoinSet): Frag {
  let parent = plan.rootAlias;
  for (const hop of plan.hops) {
    const from = parent;
    parent = joins.join(hop.key, (self) => hop.source(self, from));
  }
  return plan.read(parent);
}
