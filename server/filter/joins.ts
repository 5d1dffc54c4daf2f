// Joins for multi-valued paths. A filter never adds JOINs to the caller's query: a multi-valued path is
// read inside `EXISTS (SELECT 1 FROM (SELECT 1) AS _fN LEFT JOIN ... WHERE ...)`, correlated to the
// caller's row alias. A JoinSet hands out one alias per join key, so the terms of one filter that name
// the same path (`tags.name ?= 'a' && tags.color ?= 'red'`) read the same joined row, as they do in
// PocketBase, where each path is LEFT JOINed once for the whole query.
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

export class JoinSet {
  private readonly joins = new Map<string, Join>();
  private used: Set<string> | null = null;

  constructor(private readonly aliases: AliasAllocator) {}

  /** Records in `keys` every join the values built from now on use (null stops recording). */
  track(keys: Set<string> | null): void {
    this.used = keys;
  }

  /** The alias of the join `key`, creating it with `build(alias)` (` LEFT JOIN ... AS alias ON ...`) once. */
  join(key: string, build: (alias: string) => Frag): string {
    let join = this.joins.get(key);
    if (join === undefined) {
      const name = this.aliases.next();
      join = { alias: name, frag: build(name) };
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
