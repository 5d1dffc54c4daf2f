// One change's subscribers, grouped by shape (collection and topic kind, identity, options: one rule
// check and one message body per shape, however many clients share it), and each shape's message as
// its identity may see it. The fan-out (fan-out.ts) drives these in slices.
import { QueryBudget } from '../../store/db.js';
import type { CoreEnv } from '../env.js';
import type { AuthInfo } from '../../model/types.js';
import type { RecordChange } from '../writes/changes.js';
import type { RealtimeBroker, RealtimeClient, RealtimeMessage } from './broker.js';
import { eventData, mayAccess, subscriberContext } from './record-access.js';
import type { SubscriptionOptions } from './topics.js';

/** Subscriptions visited (shapes found, messages sent) between two checks of the slice's clock. */
export const VISITS_PER_STEP = 256;

export interface Shape {
  rule: 'listRule' | 'viewRule';
  /** The identity the shape's check runs as (RealtimeClient.who), and its auth as found. */
  who: string;
  auth: AuthInfo | null;
  options: SubscriptionOptions;
  /** The lowest place it has among the shapes of one of its members' addresses in this change: rank 0 goes first. */
  rank: number;
  members: [RealtimeClient, string][];
  /** The broker's version when the shape was found: while it holds, every member is connected and still `who`. */
  version: number;
  /** The members by subscription string (each string's message is one object), made on first use. */
  byName?: Map<string, RealtimeClient[]>;
}

/** A shape's members by the subscription string their event is named after. */
export function membersByName(shape: Shape): Map<string, RealtimeClient[]> {
  if (shape.byName !== undefined) return shape.byName;
  const byName = new Map<string, RealtimeClient[]>();
  for (const [client, raw] of shape.members) {
    const list = byName.get(raw);
    if (list) list.push(client);
    else byName.set(raw, [client]);
  }
  return (shape.byName = byName);
}

/**
 * One change on its way: its shapes, in rank order, and what waits for the second lane. A client with
 * a shape of rank 1 or more in a change gets all of its messages of that change from the second lane,
 * and so does every client with messages already waiting there (each client's messages keep commit order).
 */
export interface Delivery {
  change: RecordChange | null;
  shapes: Shape[];
  /** The first shape of rank 1 or more: those are the second lane's. */
  firstSlow: number;
  /** Entries it counts in `behindEntries` while it waits. */
  entries: number;
  /** Messages the first lane made for second-lane clients, in the order it made them, with the identity they were made for. */
  held: [RealtimeClient, RealtimeMessage, string][];
  /** The clients whose messages of this change go by the second lane. */
  slow: Set<RealtimeClient>;
}

/**
 * A collection's shapes as last found for its collection-wide topics (`/*`, bare), kept while the
 * broker's subscriptions and identities stay as they were (`RealtimeBroker.version`): a thousand
 * subscribers of one collection are grouped once, not on every change.
 */
export interface KnownShapes {
  version: number;
  shapes: Shape[];
  firstSlow: number;
  /** The clients with a shape of rank 1 or more (d.slow). */
  slow: RealtimeClient[];
}

/** Collection key (id and name: a rename is another key) → its shapes as last found. */
export type ShapeCache = Map<string, KnownShapes>;

/**
 * The subscriber shapes one change reaches (each topic spelling: by name or id, `/*`, bare, `/id`),
 * into `d.shapes`, yielding every few hundred subscriptions visited; then ordered by rank. A shape's
 * rank is how many other shapes of the change its members' client addresses had joined before it
 * (the least over its members), so each address's first shape comes before any address's second:
 * clients are cheap to open, addresses are not. Every client with a shape of rank 1 or more goes in
 * `d.slow`: all its messages of this change come from the second lane, in order. When nobody is
 * subscribed to the record's own topics, the collection's shapes come from `cache` while the broker
 * is unchanged since they were found (shapes are never changed once found: the next are new objects).
 */
export function* shapesOf(broker: RealtimeBroker, change: RecordChange, id: string, d: Delivery, cache?: ShapeCache): Generator<void> {
  const c = change.collection;
  const own = [`${c.name}/${id}`, `${c.id}/${id}`].map((t) => t.toLowerCase());
  const wide = [`${c.name}/*`, `${c.id}/*`, c.name, c.id].map((t) => t.toLowerCase());
  const cacheable = cache !== undefined && own.every((t) => broker.subscribers(t) === undefined);
  const key = `${c.id}\n${c.name}`;
  const known = cacheable ? cache.get(key) : undefined;
  if (known !== undefined && known.version === broker.version) {
    d.shapes = [...known.shapes];
    d.firstSlow = known.firstSlow;
    for (const client of known.slow) goesSecond(d, client);
    return;
  }
  const version = broker.version;
  const found = new Map<string, Map<SubscriptionOptions, Shape>>();
  const byAddress = new Map<string, Set<Shape>>();
  const joined = new Map<RealtimeClient, Set<Shape>>();
  const topics = new Set(cacheable ? wide : [...wide, ...own]);
  let visits = 0;
  for (const topic of topics) {
    for (const [client, subs] of broker.subscribers(topic) ?? []) {
      for (const sub of subs) {
        if (++visits % VISITS_PER_STEP === 0) yield;
        const rule = sub.recordId === '*' ? 'listRule' : 'viewRule';
        const group = `${rule}\n${client.who}`;
        let byOptions = found.get(group);
        if (!byOptions) found.set(group, (byOptions = new Map()));
        let theirs = byAddress.get(client.address);
        if (!theirs) byAddress.set(client.address, (theirs = new Set()));
        let shape = byOptions.get(sub.options);
        if (!shape) {
          byOptions.set(sub.options, (shape = { rule, who: client.who, auth: client.auth, options: sub.options, rank: theirs.size, members: [], version }));
          d.shapes.push(shape);
        }
        if (!theirs.has(shape)) {
          shape.rank = Math.min(shape.rank, theirs.size);
          theirs.add(shape);
        }
        let mine = joined.get(client);
        if (!mine) joined.set(client, (mine = new Set()));
        mine.add(shape);
        shape.members.push([client, sub.raw]);
      }
    }
  }
  d.shapes.sort((a, b) => a.rank - b.rank);
  const firstSlow = d.shapes.findIndex((shape) => shape.rank > 0);
  d.firstSlow = firstSlow < 0 ? d.shapes.length : firstSlow;
  const slow: RealtimeClient[] = [];
  for (const [client, mine] of joined) {
    if (++visits % VISITS_PER_STEP === 0) yield;
    for (const shape of mine) {
      if (shape.rank > 0) {
        slow.push(client);
        goesSecond(d, client);
        break;
      }
    }
  }
  // kept only when nothing changed while it was being found (it yields between steps)
  if (cacheable && broker.version === version) {
    if (cache.size >= 64) cache.clear(); // collections renamed or gone leave stale keys
    cache.set(key, { version, shapes: [...d.shapes], firstSlow: d.firstSlow, slow });
  }
}

export function goesSecond(d: Delivery, client: RealtimeClient): void {
  if (d.slow.has(client)) return;
  d.slow.add(client);
  client.behind++;
}

/** One shape: its check and its message, or nothing when it may not see the record (or fails). */
export async function shapeMessage(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'budgetMs'>, change: RecordChange, shape: Shape): Promise<string | null> {
  const { store, registry } = env;
  const c = change.collection;
  const row = change.after ?? change.before;
  if (!row) return null;
  try {
    // the shape's check and message under one budget of their own
    const db = store.reader(new QueryBudget(env.budgetMs));
    const ctx = subscriberContext(shape.auth, shape.options, registry.lookup, env.dialect);
    if (!(await mayAccess(db, c, shape.rule, ctx, row))) return null;
    return await eventData(db, c, change.action, row, ctx);
  } catch {
    return null; // a filter that does not compile or runs past the budget matches nothing, as in PocketBase
  }
}

