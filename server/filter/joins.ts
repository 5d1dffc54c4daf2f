// Joins for multi-valued paths. A filter never adds JOINs to the caller's query: a multi-valued path is
// read inside `EXISTS (SELECT 1 FROM (SELECT 1) AS _fN LEFT JOIN ... WHERE ...)`, correlated to the
// caller's row alias. A JoinSet hands out one alias per join key, so the terms of one filter that name
// the same path (`tags.name ?= 'a' && tags.color ?= 'red'`) read the same joined row, as they do in
// PocketBase, where each path is LEFT JOINed once for the whole query.
import { loopGuard } from './guard.js';
import { alias as aliasFrag, joinFrags, sql, type Frag } from './sql.js';

/** Hands out `_f1`, `_f2`... One per compilation, shared with nested compilations (list rules). */
export class AliasAllocator {
  private n = 0;
  next(): string {
    return `_f${++this.n}`;
  }
}

interface Join {
  alias: string;
  frag: Frag;
}

/** What a join reads: a FROM item (a table, json_each...) and its join condition. */
export interface JoinSource {
  from: Frag;
  on: Frag;
}

export class JoinSet {
  private readonly joins = new Map<string, Join>();
  private used: Set<string> | null = null;

  /** `guarded`: each join checks the query deadline once per row (guard.ts). */
  constructor(
    private readonly aliases: AliasAllocator,
    readonly guarded = false,
  ) {}

  /** Records in `keys` every join the values built from now on use (null stops recording). */
  track(keys: Set<string> | null): void {
    this.used = keys;
  }

  /** The alias of the join `key`, creating it once as ` LEFT JOIN <from> AS alias ON <on>` from `source(alias)`. */
  join(key: string, source: (alias: string) => JoinSource): string {
    let join = this.joins.get(key);
    if (join === undefined) {
      const name = this.aliases.next();
      const { from, on } = source(name);
      const frag = this.guarded
        ? sql` LEFT JOIN ${from} AS ${aliasFrag(name)} ON ${loopGuard(name)} AND (${on})`
        : sql` LEFT JOIN ${from} AS ${aliasFrag(name)} ON ${on}`;
      join = { alias: name, frag };
      this.joins.set(key, join);
    }
    this.used?.add(key);
    return join.alias;
  }

  /**
   * The FROM clause over the given joins (all when omitted), in creation order, which puts a join after
   * the ones it refers to. The one-row `(SELECT 1)` start keeps a row with NULLs when a record has no
   * related rows, as PocketBase's LEFT JOINs do.
   */
  from(keys?: ReadonlySet<string>): Frag {
    const start = sql`(SELECT 1) AS ${aliasFrag(this.aliases.next())}`;
    const picked = [...this.joins].filter(([key]) => keys === undefined || keys.has(key)).map(([, j]) => j.frag);
    return joinFrags([start, ...picked], '');
  }
}
