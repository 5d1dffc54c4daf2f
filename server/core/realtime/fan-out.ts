// Record changes to realtime messages. The core's change feed hands over each committed write's changes
// once its journal entry is synced, in commit order, never a rolled-back one (writes/changes.ts); here
// they wait for a later turn of the event loop, so a write's response never waits for its fan-out.
// Subscribers are grouped by shape (collection and topic kind, identity, options): one rule check and
// one message body per shape, however many clients share it; how many shapes exist is bounded per
// client, per address and in total (budget.ts). All of the work, finding a change's subscribers
// included, runs in slices of a few milliseconds, each shape's queries under the query budget, so a
// burst of events or costly subscriber filters cannot hold the loop; and each client's first shape of
// a change goes before anyone's second, so a client with many shapes waits for them, not the others.
import type { Store } from '../../store/db.js';
import type { Registry } from '../collection-registry.js';
import type { AuthInfo, Collection } from '../types.js';
import { isSuperuser } from '../types.js';
import type { RecordChange } from '../writes/changes.js';
import type { RealtimeLimits } from './budget.js';
import { RealtimeBroker, type RealtimeClient, type RealtimeMessage } from './broker.js';
import { eventData, mayAccess, subscriberContext } from './record-access.js';
import { parseSubscribeForm, type SubscriptionOptions } from './topics.js';

const SLICE_MS = 8;
/** Subscriptions visited (shapes found, messages sent) between two checks of the slice's clock. */
const VISITS_PER_STEP = 256;

/**
 * Committed writes waiting for delivery. Writers are never held back by subscribers, so when writes
 * come faster than their fan-out for long enough, the queue is dropped and every client disconnected:
 * they reconnect and resubscribe (the SDK does so by itself), and memory stays bounded.
 */
export const MAX_PENDING = 5000;

/**
 * Schema changes go to superusers subscribed to `_collections/*` (a Deskbase topic: PocketBase has no
 * realtime for collections; the admin UI's collections list uses it). Queued with the record changes,
 * so every message keeps commit order.
 */
export const COLLECTIONS_TOPIC = '_collections/*';

type Pending =
  | { kind: 'records'; changes: readonly RecordChange[] }
  | { kind: 'collection'; action: 'create' | 'update' | 'delete'; collection: Collection };

interface Shape {
  rule: 'listRule' | 'viewRule';
  /** The identity the shape's check runs as (RealtimeClient.who), and its auth as found. */
  who: string;
  auth: AuthInfo | null;
  options: SubscriptionOptions;
  /** The lowest place it has among one of its members' shapes of this change: rank 0 goes first. */
  rank: number;
  members: [RealtimeClient, string][];
}

export interface RealtimeOptions {
  budgetMs: number;
  report: (error: unknown) => void;
  idleMs?: number;
  limits?: Readonly<RealtimeLimits>;
}

/** One message object per event name for `data`: its clients share it (and its encoding). */
function messagesFor(data: string): (name: string) => RealtimeMessage {
  const byName = new Map<string, RealtimeMessage>();
  return (name) => {
    let m = byName.get(name);
    if (!m) byName.set(name, (m = { name, data }));
    return m;
  };
}

export function createRealtime(store: Store, registry: Registry, options: RealtimeOptions) {
  const broker = new RealtimeBroker(options.idleMs, options.limits);
  const pending: Pending[] = [];
  let running: Generator<void> | null = null;
  let scheduled = false;

  /**
   * The subscriber shapes one change reaches (each topic spelling: by name or id, `/*`, bare, `/id`),
   * into `out`, yielding every few hundred subscriptions visited; then ordered by rank, so each
   * client's first shape comes before any client's second.
   */
  function* shapesOf(change: RecordChange, id: string, out: Shape[]): Generator<void> {
    const c = change.collection;
    const found = new Map<string, Map<SubscriptionOptions, Shape>>();
    const ranks = new Map<RealtimeClient, number>();
    const topics = new Set([`${c.name}/*`, `${c.id}/*`, c.name, c.id, `${c.name}/${id}`, `${c.id}/${id}`].map((t) => t.toLowerCase()));
    let visits = 0;
    for (const topic of topics) {
      for (const [client, subs] of broker.subscribers(topic) ?? []) {
        for (const sub of subs) {
          if (++visits % VISITS_PER_STEP === 0) yield;
          const rule = sub.recordId === '*' ? 'listRule' : 'viewRule';
          const group = `${rule}\n${client.who}`;
          let byOptions = found.get(group);
          if (!byOptions) found.set(group, (byOptions = new Map()));
          const rank = ranks.get(client) ?? 0;
          let shape = byOptions.get(sub.options);
          if (!shape) {
            byOptions.set(sub.options, (shape = { rule, who: client.who, auth: client.auth, options: sub.options, rank, members: [] }));
            out.push(shape);
            ranks.set(client, rank + 1);
          } else if (rank < shape.rank) {
            shape.rank = rank;
          }
          shape.members.push([client, sub.raw]);
        }
      }
    }
    out.sort((a, b) => a.rank - b.rank);
  }

  /** One shape: its check and its message, or nothing when it may not see the record (or fails). */
  function message(change: RecordChange, shape: Shape): string | null {
    const c = change.collection;
    const row = change.after ?? change.before;
    if (!row) return null;
    try {
      return store.withDeadline(options.budgetMs, () => {
        const ctx = subscriberContext(shape.auth, shape.options, registry.lookup);
        if (!mayAccess(store, c, shape.rule, ctx, row)) return null;
        return eventData(store, c, change.action, row, ctx);
      });
    } catch {
      return null; // a filter that does not compile or runs past the budget matches nothing, as in PocketBase
    }
  }

  function* work(): Generator<void> {
    while (pending.length > 0) {
      const next = pending.shift() as Pending;
      yield* broker.dropEndedSessions(store);
      if (next.kind === 'collection') {
        const { id, name, type, system } = next.collection;
        const data = JSON.stringify({ action: next.action, record: { id, name, type, system } });
        const messages = messagesFor(data);
        for (const topic of [COLLECTIONS_TOPIC, '_collections']) {
          for (const [client, subs] of broker.subscribers(topic) ?? []) {
            if (!isSuperuser(client.auth)) continue;
            for (const sub of subs) if (!client.send(messages(sub.raw))) broker.disconnect(client.id);
          }
        }
        yield;
        continue;
      }
      for (const change of next.changes) {
        const row = change.after ?? change.before;
        if (!row) continue;
        if (change.collection.type === 'auth') broker.authRecordChanged(change.collection.id, String(row.id), change.after);
        const shapes: Shape[] = [];
        yield* shapesOf(change, String(row.id), shapes);
        for (const shape of shapes) {
          const data = message(change, shape);
          if (data !== null) {
            const messages = messagesFor(data);
            let sent = 0;
            for (const [client, name] of shape.members) {
              if (++sent % VISITS_PER_STEP === 0) yield;
              // a member whose identity changed since (its session ended) was not checked as it is now
              if (client.who !== shape.who) continue;
              if (!client.send(messages(name))) broker.disconnect(client.id);
            }
          }
          yield;
        }
      }
    }
  }

  function run(): void {
    scheduled = false;
    const end = performance.now() + SLICE_MS;
    try {
      running ??= work();
      while (performance.now() < end) {
        if (running.next().done) {
          running = null;
          return;
        }
      }
    } catch (err) {
      running = null;
      options.report(err);
    }
    schedule();
  }

  function enqueue(item: Pending): void {
    if (broker.size === 0) return;
    if (pending.length >= MAX_PENDING) {
      options.report(new Error(`realtime: ${MAX_PENDING} writes waiting for delivery; every client was disconnected to catch up`));
      pending.length = 0;
      broker.closeAll();
      return;
    }
    pending.push(item);
    schedule();
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(run);
  }

  return {
    broker,
    /** POST /api/realtime: the client's new subscriptions, bound to the caller (topics.ts, broker.ts). */
    subscribe(body: Record<string, unknown>, auth: AuthInfo | null): void {
      const form = parseSubscribeForm(body);
      broker.subscribe(form.clientId, auth, form.subscriptions);
    },
    /** The change feed's listener: queued, delivered from a later turn of the loop. */
    onChanges(changes: readonly RecordChange[]): void {
      enqueue({ kind: 'records', changes });
    },
    /** A committed schema change (collections.ts). */
    onCollection(action: 'create' | 'update' | 'delete', collection: Collection): void {
      enqueue({ kind: 'collection', action, collection });
    },
    /** Resolves once every change queued so far is delivered (tests, benches). */
    idle(): Promise<void> {
      return new Promise((resolve) => {
        const check = () => (pending.length === 0 && running === null && !scheduled ? resolve() : setImmediate(check));
        check();
      });
    },
  };
}

export type Realtime = ReturnType<typeof createRealtime>;
