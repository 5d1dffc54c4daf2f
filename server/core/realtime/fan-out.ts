// Record changes to realtime messages. The core's change feed hands over each committed write's changes
// once its journal entry is synced, in commit order, never a rolled-back one (writes/changes.ts); here
// they wait for a later turn of the event loop, so a write's response never waits for its fan-out.
// Subscribers are grouped by shape (collection and topic kind, identity, options): one rule check and
// one message body per shape, however many clients share it; how many shapes exist is bounded per
// client, per address and in total (subscription-limits.ts). All of the work, finding a change's subscribers
// included, runs in slices of a few milliseconds, each shape's queries under the query budget, so a
// burst of events or costly subscriber filters cannot hold the loop; and each client address's first
// shape of a change goes before any address's second (two lanes, below), so an address with many
// shapes waits for them, not the others.
import type { CoreEnv } from '../env.js';
import type { AuthInfo, Collection } from '../../model/types.js';
import { isSuperuser } from '../../model/types.js';
import type { RecordChange } from '../writes/changes.js';
import type { RealtimeLimits } from './subscription-limits.js';
import { RealtimeBroker, type RealtimeClient, type RealtimeMessage } from './broker.js';
import { goesSecond, membersByName, shapeMessage, shapesOf, VISITS_PER_STEP, type Delivery, type Shape, type ShapeCache } from './shapes.js';
import { parseSubscribeForm } from './topics.js';
import { LaneSlices } from './slices.js';
import { createdAt } from './trace.js';

const SLICE_MS = 8;

/**
 * Committed writes waiting for delivery. Writers are never held back by subscribers, so when writes
 * come faster than their fan-out for long enough, the queue is dropped and every client disconnected:
 * they reconnect and resubscribe (the SDK does so by itself), and memory stays bounded.
 */
export const MAX_PENDING = 5000;

/**
 * What may wait in the second lane (see queueBehind): changes, and messages to send or shape members
 * to check (a bulk import's changes are each one; 500,000 entries are some tens of MB).
 */
export const MAX_BEHIND = 5000;
export const MAX_BEHIND_ENTRIES = 500_000;

/**
 * Schema changes go to superusers subscribed to `_collections/*` (a Deskbase topic: PocketBase has no
 * realtime for collections; the admin UI's collections list uses it). Queued with the record changes,
 * so every message keeps commit order.
 */
export const COLLECTIONS_TOPIC = '_collections/*';

type Pending =
  | { kind: 'records'; changes: readonly RecordChange[]; /** Changes before this one are delivered (a retry after the database was unreachable). */ from?: number; /** When they reached the fan-out (performance.now()): their messages' delivery deadline counts from it. */ at: number }
  | { kind: 'collection'; action: 'create' | 'update' | 'delete'; collection: Collection };

export interface RealtimeOptions {
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

export function createRealtime(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'budgetMs' | 'report'>, options: RealtimeOptions = {}) {
  const { store } = env;
  const broker = new RealtimeBroker(options.idleMs, options.limits);
  const pending: Pending[] = [];
  /** Changes the first lane is done with that still have second-lane work, in commit order. */
  const behind: Delivery[] = [];
  /** Their held messages and second-lane shape members, counted as they were queued. */
  let behindEntries = 0;
  /** Each collection's subscriber shapes while the broker is unchanged (shapes.ts). */
  const shapeCache: ShapeCache = new Map();

  function send(client: RealtimeClient, m: RealtimeMessage, now = Date.now()): void {
    if (!client.send(m, now)) broker.disconnect(client.id);
  }

  /** The first lane sends, or holds for the second when the client's messages wait there. */
  function deliver(d: Delivery, client: RealtimeClient, m: RealtimeMessage, now: number): void {
    if (client.behind > 0 && !d.slow.has(client)) goesSecond(d, client);
    if (d.slow.size > 0 && d.slow.has(client)) d.held.push([client, m, client.who]);
    else send(client, m, now);
  }

  /**
   * Every shape's message to its members (the ones whose identity is still the shape's), in slices.
   * `grouped` (the first lane) says whether this change's clients all go by the first lane: then, while
   * the broker is as it was when the shape was found (every member connected and still its identity)
   * and nothing waits in the second lane, each subscription string's members get the message as one
   * group (broker.sendGroup): one step for a thousand subscribers, not a thousand.
   */
  async function* sendShape(change: RecordChange, shape: Shape, to: (client: RealtimeClient, m: RealtimeMessage, now: number) => void, grouped = () => false, committed = performance.now()): AsyncGenerator<void> {
    const data = await shapeMessage(env, change, shape);
    if (data === null) return;
    const messages = messagesFor(data);
    if (broker.groupSink !== null && broker.version === shape.version && behind.length === 0 && grouped()) {
      for (const [raw, clients] of membersByName(shape)) broker.sendGroup(clients, messages(raw), committed);
      return;
    }
    const now = Date.now();
    let sent = 0;
    let name = '';
    let message: RealtimeMessage | null = null;
    for (const [client, raw] of shape.members) {
      if (++sent % VISITS_PER_STEP === 0) yield;
      // most members share one subscription string, so one message
      if (raw !== name || message === null) message = messages((name = raw));
      // a member whose identity changed since (its session ended) was not checked as it is now
      if (client.who === shape.who) to(client, message, now);
    }
  }

  /**
   * The first lane: each change in commit order, the shapes of rank 0 (every address's first), sent at
   * once to the clients with nothing waiting in the second lane.
   */
  async function* firstLane(): AsyncGenerator<void> {
    while (pending.length > 0) {
      // taken off the queue once delivered: a lane that throws because the database cannot be reached
      // finds it again (`unavailable` below), its changes already delivered skipped (`next.from`)
      const next = pending[0];
      yield* broker.dropEndedSessions(store);
      if (next.kind === 'collection') {
        const { id, name, type, system } = next.collection;
        const d: Delivery = { change: null, shapes: [], firstSlow: 0, entries: 0, held: [], slow: new Set() };
        const messages = messagesFor(JSON.stringify({ action: next.action, record: { id, name, type, system } }));
        for (const topic of [COLLECTIONS_TOPIC, '_collections']) {
          for (const [client, subs] of broker.subscribers(topic) ?? []) {
            if (!isSuperuser(client.auth)) continue;
            for (const sub of subs) deliver(d, client, messages(sub.raw), Date.now());
          }
        }
        if (d.slow.size > 0) queueBehind(d);
        if (pending[0] === next) pending.shift();
        yield;
        continue;
      }
      for (let i = next.from ?? 0; i < next.changes.length; i++) {
        const change = next.changes[i];
        const row = change.after ?? change.before;
        next.from = i + 1;
        if (!row) continue;
        if (change.collection.type === 'auth') broker.authRecordChanged(change.collection.id, String(row.id), change.after);
        const d: Delivery = { change, shapes: [], firstSlow: 0, entries: 0, held: [], slow: new Set() };
        yield* shapesOf(broker, change, String(row.id), d, shapeCache);
        for (let i = 0; i < d.firstSlow; i++) {
          yield* sendShape(change, d.shapes[i], (client, m, now) => deliver(d, client, m, now), () => d.slow.size === 0, next.at);
          yield;
        }
        if (broker.trace !== null && d.firstSlow > 0) broker.trace.event(createdAt(row), next.at);
        if (d.slow.size > 0) queueBehind(d);
      }
      if (pending[0] === next) pending.shift();
    }
  }

  /**
   * Past MAX_BEHIND changes waiting in the second lane, the clients they wait for are disconnected
   * (they reconnect and resubscribe, as after a full queue): memory stays bounded, and the first lane
   * never waits for them.
   */
  function queueBehind(d: Delivery): void {
    d.shapes = d.shapes.slice(d.firstSlow); // the first lane's shapes (and their members) are done with
    d.firstSlow = 0;
    d.entries = d.held.length + d.shapes.reduce((n, shape) => n + shape.members.length, 0);
    behind.push(d);
    behindEntries += d.entries;
    if (behind.length <= MAX_BEHIND && behindEntries <= MAX_BEHIND_ENTRIES) return;
    const clients = new Set(behind.flatMap((x) => [...x.slow]));
    behind.length = 0;
    behindEntries = 0;
    slices.drop('second');
    for (const client of clients) {
      client.behind = 0;
      broker.disconnect(client.id);
    }
    env.report(new Error(`realtime: the second lane fell too far behind (${MAX_BEHIND} changes or ${MAX_BEHIND_ENTRIES} messages and members); the ${clients.size} clients it held were disconnected`));
  }

  /**
   * The second lane: in commit order, each change's held messages, then its shapes of rank 1 or more
   * (members: only second-lane clients); then those clients' next changes may go by the first lane.
   */
  async function* secondLane(): AsyncGenerator<void> {
    while (behind.length > 0) {
      const d = behind[0];
      let sent = 0;
      for (const [client, m, who] of d.held) {
        if (++sent % VISITS_PER_STEP === 0) yield;
        if (client.who === who) send(client, m);
      }
      d.held.length = 0;
      for (let i = d.firstSlow; i < d.shapes.length; i++) {
        yield* sendShape(d.change as RecordChange, d.shapes[i], send);
        yield;
      }
      if (behind[0] !== d) continue; // dropped meanwhile (queueBehind)
      behind.shift();
      behindEntries -= d.entries;
      for (const client of d.slow) client.behind = Math.max(0, client.behind - 1);
      yield;
    }
  }

  const slices = new LaneSlices({
    first: firstLane, second: secondLane,
    firstHasWork: () => pending.length > 0, secondHasWork: () => behind.length > 0,
    report: env.report,
    // a team server's database failing over: the store answers its 503 (store-postgres/errors.ts
    // DatabaseUnavailable); the change waits at the head of the queue and is tried again
    unavailable: (err) => (err as { status?: unknown } | null)?.status === 503,
    // any other failure drops the change the lane was delivering (reported), so it is not tried forever
    failed: (lane) => {
      if (lane === 'first') pending.shift();
      else {
        const dropped = behind.shift();
        if (dropped) behindEntries -= dropped.entries;
      }
    },
  }, SLICE_MS);

  function enqueue(item: Pending): void {
    if (broker.size === 0) return;
    if (pending.length >= MAX_PENDING) {
      env.report(new Error(`realtime: ${MAX_PENDING} writes waiting for delivery; every client was disconnected to catch up`));
      pending.length = 0;
      behind.length = 0;
      behindEntries = 0;
      slices.drop('first');
      slices.drop('second');
      broker.closeAll();
      return;
    }
    pending.push(item);
    slices.schedule();
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
      enqueue({ kind: 'records', changes, at: performance.now() });
    },
    /** A committed schema change (collections.ts). */
    onCollection(action: 'create' | 'update' | 'delete', collection: Collection): void {
      enqueue({ kind: 'collection', action, collection });
    },
    /** Resolves once every change queued so far is delivered (tests, benches). */
    idle(): Promise<void> {
      return new Promise((resolve) => {
        const check = () => (pending.length === 0 && behind.length === 0 && slices.idle ? resolve() : setImmediate(check));
        check();
      });
    },
  };
}

export type Realtime = ReturnType<typeof createRealtime>;
