// Realtime clients as PocketBase's subscriptions broker keeps them: one per SSE connection, named by
// a random id (sent in PB_CONNECT), bound to an identity by its first authorized POST, holding the
// subscriptions of its last POST. Subscriptions are indexed by topic so a change finds its
// subscribers without visiting every client; what they cost is charged to the client, its address and
// the server (subscription-limits.ts), and their options are held once per distinct string.
import { forbidden, notFound } from '../../errors.js';
import { isoNow, newId } from '../ids.js';
import type { ReadDb } from '../../store/db.js';
import { isSuperuser, type AuthInfo } from '../../model/types.js';
import { NO_CHARGE, REALTIME_LIMITS, SubscriptionLedger, type Charge, type RealtimeLimits } from './subscription-limits.js';
import { parseSubscription, type Subscription, type SubscriptionOptions } from './topics.js';
import type { RealtimeTrace } from './trace.js';

/**
 * One message: the event name (a subscription as the client sent it) and its JSON data. Every client a
 * message goes to gets the same object, so the HTTP layer encodes it once, not once per client.
 */
export interface RealtimeMessage {
  readonly name: string;
  readonly data: string;
}

/** Where a client's messages go (the HTTP layer's event stream). */
export interface RealtimeSink {
  /** Queues one message; false when the client's queue is full (the client is then closed). */
  send(message: RealtimeMessage): boolean;
  /** Ends the stream (idle, overflow, auth record deleted, server closing). */
  close(): void;
  /**
   * When the stream last wrote messages to its client (Date.now(); 0 before any): what a group's
   * messages (`RealtimeGroupSink`) count for the idle timer, so a message to a thousand clients does
   * not stamp a thousand of them.
   */
  sentAt?(): number;
}

/**
 * Where one message to many clients goes at once (the HTTP layer's shared writes, set by it): the
 * clients are all of one subscriber shape with nothing of theirs waiting in the fan-out's second lane,
 * and the message goes after whatever each of them was sent before. It drops (and disconnects) a
 * client whose queue it finds full.
 */
export interface RealtimeGroupSink {
  /** `committed`: when the message's change reached the fan-out (performance.now()), its delivery deadline's start. */
  send(clients: readonly RealtimeClient[], message: RealtimeMessage, committed?: number): void;
}

/** The topic the SDK's all-in-one authWithOAuth2 waits on (PocketBase's oauth2SubscriptionTopic). */
export const OAUTH2_TOPIC = '@oauth2';

/** PocketBase closes a connection that got no message for 5 minutes; the SDK reconnects and resubscribes. */
export const IDLE_MS = 5 * 60 * 1000;

export class RealtimeClient {
  private authInfo: AuthInfo | null = null;
  /** The identity as a string (`''` for a guest): subscribers with the same one share a rule check. */
  who = '';
  subscriptions: Subscription[] = [];
  /** What the subscriptions cost (subscription-limits.ts). */
  charge: Charge = NO_CHARGE;
  /** Changes whose messages to this client wait in the fan-out's second lane (fan-out.ts). */
  behind = 0;
  private idle: NodeJS.Timeout;
  /**
   * When the client was last sent a message of its own (Date.now()): the idle timer looks at it, and at
   * when its stream last wrote (a group's messages, `RealtimeSink.sentAt`), when it fires.
   */
  sentAt = Date.now();

  /** `address` is the client address's key its costs are charged to (the event stream's connection). */
  constructor(readonly id: string, readonly address: string, private readonly sink: RealtimeSink, private readonly onIdle: () => void, private readonly idleMs: number) {
    this.idle = this.arm(idleMs);
  }

  get auth(): AuthInfo | null {
    return this.authInfo;
  }

  set auth(auth: AuthInfo | null) {
    this.authInfo = auth;
    this.who = whoOf(auth);
    this.changed?.();
  }

  /** Told when the identity changes (the broker's index of shapes depends on it). */
  changed: (() => void) | null = null;

  /**
   * The idle timer is not moved on each message (a thousand subscribers of one write would move a
   * thousand timers): when it fires, a client sent something since is given the rest of its time.
   */
  private arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const quiet = Date.now() - Math.max(this.sentAt, this.sink.sentAt?.() ?? 0);
      if (quiet < this.idleMs) this.idle = this.arm(this.idleMs - quiet);
      else this.onIdle();
    }, ms);
    timer.unref();
    return timer;
  }

  /** Sends one message; a full queue closes the client (its subscriptions must be sent again). */
  send(message: RealtimeMessage, now = Date.now()): boolean {
    if (!this.sink.send(message)) return false;
    this.sentAt = now;
    return true;
  }

  close(): void {
    clearTimeout(this.idle);
    this.sink.close();
  }
}

/** An identity as a string: its auth collection and record id, `''` for a guest. */
export function whoOf(auth: AuthInfo | null): string {
  return auth ? `${auth.collection.id}/${String(auth.record.id)}` : '';
}

/** Same identity: same auth collection and record (PocketBase's isSameAuth). */
export function sameAuth(a: AuthInfo | null, b: AuthInfo | null): boolean {
  return a !== null && b !== null && a.collection.id === b.collection.id && a.record.id === b.record.id;
}

export class RealtimeBroker {
  private readonly clients = new Map<string, RealtimeClient>();
  /** The clients bound to a session (their sessions are checked before each delivery): guests cost nothing there. */
  private readonly bound = new Set<RealtimeClient>();
  /** topic (`posts/*`, `posts/<id>`, `posts`, by the name or id the client used) → its subscribers */
  private readonly byTopic = new Map<string, Map<RealtimeClient, Subscription[]>>();
  /** options string → the one object its subscriptions share, and how many hold it */
  private readonly options = new Map<string, { options: SubscriptionOptions; refs: number }>();
  readonly ledger: SubscriptionLedger;
  /**
   * Changes whenever who is subscribed to what could have changed (a subscription, an identity, a
   * client gone): what the fan-out keeps of a collection's subscriber shapes is valid while it holds.
   */
  version = 0;

  /** One message to many clients at once, when the HTTP layer offers it (`sendGroup`). */
  groupSink: RealtimeGroupSink | null = null;

  /** Where delivery's time goes on the server's side, when a bench asks (trace.ts); off otherwise. */
  trace: RealtimeTrace | null = null;

  constructor(private readonly idleMs = IDLE_MS, limits: Readonly<RealtimeLimits> = REALTIME_LIMITS) {
    this.ledger = new SubscriptionLedger(limits);
  }

  /**
   * One message to all of `clients` (connected, one shape's, none with messages waiting in the second
   * lane): through the group sink as one step, not one per client (their idle timers see it when their
   * streams write it, `RealtimeSink.sentAt`). False when there is none (the caller sends to each).
   */
  sendGroup(clients: readonly RealtimeClient[], message: RealtimeMessage, committed?: number): boolean {
    if (this.groupSink === null) return false;
    this.groupSink.send(clients, message, committed);
    return true;
  }

  get size(): number {
    return this.clients.size;
  }

  /** A new event stream from `address` (the client address's key). */
  connect(sink: RealtimeSink, address = ''): RealtimeClient {
    const id = newId(40);
    const client = new RealtimeClient(id, address, sink, () => this.disconnect(id), this.idleMs);
    client.changed = () => {
      this.version++;
      if (client.auth !== null && client.auth.sessionId !== '') this.bound.add(client);
      else this.bound.delete(client);
    };
    this.clients.set(id, client);
    return client;
  }

  /** Forgets a client and ends its stream (a client that went away ends here too). */
  disconnect(id: string): void {
    const client = this.clients.get(id);
    if (!client) return;
    this.clients.delete(id);
    this.bound.delete(client);
    this.unindex(client);
    this.ledger.apply(client.address, client.charge, NO_CHARGE);
    client.subscriptions = [];
    client.charge = NO_CHARGE;
    client.close();
  }

  /**
   * A POST: binds the identity (a guest may become a user; any other change of identity is a 403, as
   * PocketBase) and replaces the client's subscriptions with `topics` (distinct, non-empty, checked by
   * the form). Over a limit it throws (subscription-limits.ts) and the client keeps what it had.
   */
  subscribe(clientId: string, auth: AuthInfo | null, topics: readonly string[]): void {
    const client = this.clients.get(clientId);
    if (!client) throw notFound('Missing or invalid client id.');
    if (client.auth !== null && !sameAuth(client.auth, auth)) {
      throw forbidden("The current and the previous request authorization don't match.");
    }
    const who = whoOf(auth);
    const fresh = new Map<string, SubscriptionOptions>();
    const intern = (o: SubscriptionOptions) => {
      const known = this.options.get(o.key)?.options ?? fresh.get(o.key);
      if (known) return known;
      fresh.set(o.key, o);
      return o;
    };
    const parsed = topics.map((raw) => parseSubscription(raw, intern));
    const shapes = new Set(parsed.map((sub) => `${who}\n${sub.options.key}`));
    const charge: Charge = { subscriptions: parsed.length, chars: topics.reduce((n, t) => n + t.length, 0), shapes };
    this.ledger.check(client.address, client.charge, charge, isSuperuser(auth));
    this.ledger.apply(client.address, client.charge, charge);
    client.auth = auth;
    this.unindex(client);
    client.subscriptions = parsed;
    client.charge = charge;
    for (const sub of parsed) {
      const held = this.options.get(sub.options.key);
      if (held) held.refs++;
      else this.options.set(sub.options.key, { options: sub.options, refs: 1 });
      const key = sub.topic.toLowerCase();
      let entry = this.byTopic.get(key);
      if (!entry) this.byTopic.set(key, (entry = new Map()));
      const list = entry.get(client);
      if (list) list.push(sub);
      else entry.set(client, [sub]);
    }
  }

  private unindex(client: RealtimeClient): void {
    this.version++;
    for (const sub of client.subscriptions) {
      const key = sub.topic.toLowerCase();
      const entry = this.byTopic.get(key);
      entry?.delete(client);
      if (entry?.size === 0) this.byTopic.delete(key);
      const held = this.options.get(sub.options.key);
      if (held && --held.refs <= 0) this.options.delete(sub.options.key);
    }
  }

  /**
   * PocketBase's /api/oauth2-redirect: the provider's answer (`state` is the waiting client's id) goes
   * to the client subscribed to `@oauth2`, once (that subscription ends), and only when the redirect
   * comes from the address that opened the stream (PocketBase's client IP check). False when no such client waits.
   */
  oauth2Redirect(state: string, address: string, data: { state: string; code: string; error: string }): boolean {
    const client = this.clients.get(state);
    if (!client || client.address !== address || !client.subscriptions.some((s) => s.topic === OAUTH2_TOPIC)) return false;
    const topics = client.subscriptions.filter((s) => s.topic !== OAUTH2_TOPIC).map((s) => s.raw);
    client.send({ name: OAUTH2_TOPIC, data: JSON.stringify(data.error === '' ? { state: data.state, code: data.code } : data) });
    this.subscribe(client.id, client.auth, topics);
    return true;
  }

  /** The subscribers of a topic (`posts/*`...), with their subscriptions to it. */
  subscribers(topic: string): Map<RealtimeClient, Subscription[]> | undefined {
    return this.byTopic.get(topic.toLowerCase());
  }

  /**
   * Sessions end without a record change (sign-out, revocation, expiry, a password change ending the
   * others, an authRule change ending them all): before each delivery the clients' sessions are
   * checked (500 per query, a turn of the fan-out each), and a client whose session ended becomes a guest.
   */
  async *dropEndedSessions(db: ReadDb, now = Date.now()): AsyncGenerator<void> {
    const bound = [...this.bound];
    for (let i = 0; i < bound.length; i += 500) {
      const chunk = bound.slice(i, i + 500);
      const ids = chunk.map((c) => (c.auth as AuthInfo).sessionId);
      const live = new Set((await db.all<{ id: string }>(
        `SELECT "id" FROM "_sessions" WHERE "expires" > ? AND "id" IN (${ids.map(() => '?').join(',')})`,
        [isoNow(now), ...ids],
      )).map((r) => r.id));
      for (const c of chunk) if (c.auth !== null && !live.has(c.auth.sessionId)) c.auth = null;
      yield;
    }
  }

  /** An auth record changed or went away: its clients see the new row, or are closed (as PocketBase). */
  authRecordChanged(collectionId: string, recordId: string, after: AuthInfo['record'] | null): void {
    for (const client of [...this.clients.values()]) {
      const auth = client.auth;
      if (!auth || auth.collection.id !== collectionId || auth.record.id !== recordId) continue;
      if (after) client.auth = { ...auth, record: after };
      else this.disconnect(client.id);
    }
  }

  closeAll(): void {
    for (const id of [...this.clients.keys()]) this.disconnect(id);
  }
}
