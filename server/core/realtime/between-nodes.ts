// Realtime and the collection registry on a team server (several nodes over one database): the store's
// bus (store.bus, store-postgres/bus.ts) carries every committed record change and schema change to
// every node in commit order, the writer included, and this is where a node takes them in. One path
// for every node: the writer's own subscribers hear its writes from the bus too, so a subscriber on
// any node gets the writes of all nodes in one order, the commit order. On the desktop there is no
// bus and none of this runs (core/index.ts wires the in-process feed as before).
//
// - Record changes: appended by the change feed as the write's last step inside its transaction
//   (`appendChanges`), each as its collection's id and the rows before and after (a delete carries the
//   deleted row, as the subscriber needs it); taken in here and handed to the fan-out, which applies
//   each subscriber's rules as it does on one node (the auth-record reactions included).
// - Schema changes (`_collections` rows, written by any path): another node's are put into this
//   node's registry; every node's go to the fan-out's `_collections` subscribers, one event per
//   collection per transaction. A transaction's schema entries are taken before its record entries,
//   so a record change never names a collection this node does not know yet.
// - Entries pruned before this node read them: the registry is loaded again from the database and
//   every realtime client disconnected (the SDK reconnects and subscribes again), as after a full queue.
import type { BusEntry, StoreBus, WriteTx } from '../../store/db.js';
import type { Collection, Row } from '../../model/types.js';
import type { CoreEnv } from '../env.js';
import { definitionProblem } from '../collection-registry.js';
import type { RecordChange } from '../writes/changes.js';
import type { Realtime } from './fan-out.js';

/** What one record change is on the bus. */
interface WireChange {
  a: RecordChange['action'];
  /** The collection's id. */
  c: string;
  b: Row | null;
  f: Row | null;
}

interface WireSchema {
  op: 'INSERT' | 'UPDATE' | 'DELETE';
  id: string;
  data: unknown;
}

/** Text appended per statement: a bulk write's changes go in several statements of this size at most. */
const APPEND_CHARS = 4 * 1024 * 1024;

/** The change feed's last step inside a write (writes/changes.ts BeforeCommit): the write's changes onto the bus. */
export function appendChanges(bus: StoreBus): (tx: WriteTx, changes: readonly RecordChange[]) => Promise<void> {
  return async (tx, changes) => {
    let items: string[] = [];
    let chars = 0;
    for (const ch of changes) {
      const item = JSON.stringify({ a: ch.action, c: ch.collection.id, b: ch.before, f: ch.after } satisfies WireChange);
      if (chars + item.length > APPEND_CHARS && items.length > 0) {
        await bus.append(tx, items);
        items = [];
        chars = 0;
      }
      items.push(item);
      chars += item.length;
    }
    await bus.append(tx, items);
  };
}

/** One transaction's schema entries as realtime events: one per collection, in the order they were first touched. */
function collectionEvents(schema: WireSchema[]): ['create' | 'update' | 'delete', Collection][] {
  const byId = new Map<string, { first: WireSchema['op']; last: WireSchema }>();
  for (const s of schema) {
    const seen = byId.get(s.id);
    if (seen) seen.last = s;
    else byId.set(s.id, { first: s.op, last: s });
  }
  const out: ['create' | 'update' | 'delete', Collection][] = [];
  for (const { first, last } of byId.values()) {
    if (definitionProblem(last.data) !== null) continue;
    if (last.op === 'DELETE') {
      if (first !== 'INSERT') out.push(['delete', last.data as Collection]);
    } else out.push([first === 'INSERT' ? 'create' : 'update', last.data as Collection]);
  }
  return out;
}

/**
 * Takes the bus's entries from position `from` on: another node's schema changes into the registry,
 * everything to the fan-out.
 */
export function followBus(env: Pick<CoreEnv, 'store' | 'registry' | 'report'>, bus: StoreBus, realtime: Realtime, from: number): void {
  const { registry } = env;

  /** An entry's data, or null (reported) when it is not JSON: one bad entry never stops the others. */
  function parsed<T>(e: BusEntry): T | null {
    try {
      return JSON.parse(e.data) as T;
    } catch (err) {
      env.report(new Error(`realtime between nodes: entry ${e.pos} is not JSON (${String(err)})`));
      return null;
    }
  }

  function takeSchema(group: BusEntry[]): void {
    const schema: WireSchema[] = [];
    for (const e of group) {
      const s = parsed<WireSchema>(e);
      if (s === null) continue;
      schema.push(s);
      // this node's own changes are in its registry since its write (collections.ts)
      if (e.mine) continue;
      if (s.op === 'DELETE') registry.remove(s.id);
      else {
        const problem = definitionProblem(s.data);
        if (problem === null) registry.put(s.data as Collection);
        else env.report(new Error(`realtime between nodes: the definition of collection ${JSON.stringify(s.id)} cannot be loaded: ${problem}`));
      }
    }
    for (const [action, c] of collectionEvents(schema)) realtime.onCollection(action, c);
  }

  function takeRecords(group: BusEntry[]): void {
    const changes: RecordChange[] = [];
    for (const e of group) {
      const w = parsed<WireChange>(e);
      const collection = w === null ? undefined : registry.get(w.c);
      // a collection deleted since: its subscribers hear nothing more of it, as on one node
      if (collection === undefined) continue;
      changes.push({ action: (w as WireChange).a, collection, before: (w as WireChange).b, after: (w as WireChange).f });
    }
    if (changes.length > 0) realtime.onChanges(changes);
  }

  bus.listen({
    entries(entries) {
      // entries of one transaction are adjacent: its schema first, then its records
      for (let i = 0; i < entries.length;) {
        let j = i;
        while (j < entries.length && entries[j].tx === entries[i].tx) j++;
        const group = entries.slice(i, j);
        takeSchema(group.filter((e) => e.kind === 'schema'));
        takeRecords(group.filter((e) => e.kind === 'records'));
        i = j;
      }
    },
    async missed() {
      await registry.load(env.store);
      realtime.broker.closeAll();
    },
  }, from);
}
