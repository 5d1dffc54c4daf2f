// Realtime clients as PocketBase's subscriptions broker keeps them: one per SSE connection, named by
// a random id (sent in PB_CONNECT), bound to an identity by its first authorized POST, holding the
// subscriptions of its last POST. Subscriptions are indexed by topic so a change finds its
// subscribers without visiting every client.
import { forbidden, notFound } from '../../errors.js';
import { isoNow, newId } from '../ids.js';
import type { ReadDb } from '../../store/db.js';
import type { AuthInfo } from '../types.js';
import { topicCollection, type Subscription } from './topics.js';

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
}

/** PocketBase closes a connection that got no message for 5 minutes; the SDK reconnects and resubscribes. */
export const IDLE_MS = 5 * 60 * 1000;

export class RealtimeClient {
  auth: AuthInfo | null = null;
  subscriptions: Subscription[] = [];
  private idle: NodeJS.Timeout;

  constructor(readonly id: string, private readonly sink: RealtimeSink, onIdle: () => void, idleMs: number) {
    this.idle = setTimeout(onIdle, idleMs);
    this.idle.unref();
  }

  /** Sends one message; a full queue closes the client (its subscriptions must be sent again). */
  send(message: RealtimeMessage): boolean {
    if (!this.sink.send(message)) return false;
    this.idle.refresh();
    return true;
  }

  close(): void {
    clearTimeout(this.idle);
    this.sink.close();
  }
}

/** Same identity: same auth collection and record (PocketBase's isSameAuth). */
export function sameAuth(a: AuthInfo | null, b: AuthInfo | null): boolean {
  return a !== null && b !== null && a.collection.id === b.collection.id && a.record.id === b.record.id;
}

export class RealtimeBroker {
  private readonly clients = new Map<string, RealtimeClient>();
  /** topic (`posts/*`, `posts/<id>`, `posts`, by the name or id the client used) → its subscribers */
  private readonly byTopic = new Map<string, Map<RealtimeClient, Subscription[]>>();

  constructor(private readonly idleMs = IDLE_MS) {}

  get size(): number {
    return this.clients.size;
  }

  connect(sink: RealtimeSink): RealtimeClient {
    const id = newId(40);
    const client = new RealtimeClient(id, sink, () => this.disconnect(id), this.idleMs);
    this.clients.set(id, client);
    return client;
  }

  /** Forgets a client and ends its stream (a client that went away ends here too). */
  disconnect(id: string): void {
    const client = this.clients.get(id);
    if (!client) return;
    this.clients.delete(id);
    this.unindex(client);
    client.close();
  }

  /**
   * A POST: binds the identity (a guest may become a user; any other change of identity is a 403, as
   * PocketBase) and replaces the client's subscriptions.
   */
  subscribe(clientId: string, auth: AuthInfo | null, subscriptions: Subscription[]): void {
    const client = this.clients.get(clientId);
    if (!client) throw notFound('Missing or invalid client id.');
    if (client.auth !== null && !sameAuth(client.auth, auth)) {
      throw forbidden("The current and the previous request authorization don't match.");
    }
    client.auth = auth;
    this.unindex(client);
    client.subscriptions = subscriptions;
    for (const sub of subscriptions) {
      const key = sub.topic.toLowerCase();
      let entry = this.byTopic.get(key);
      if (!entry) this.byTopic.set(key, (entry = new Map()));
      const list = entry.get(client);
      if (list) list.push(sub);
      else entry.set(client, [sub]);
    }
  }

  private unindex(client: RealtimeClient): void {
    for (const sub of client.subscriptions) {
      const key = sub.topic.toLowerCase();
      const entry = this.byTopic.get(key);
      entry?.delete(client);
      if (entry?.size === 0) this.byTopic.delete(key);
    }
  }

  /** The subscribers of a topic (`posts/*`...), with their subscriptions to it. */
  subscribers(topic: string): Map<RealtimeClient, Subscription[]> | undefined {
    return this.byTopic.get(topic.toLowerCase());
  }

  /** Whether any client subscribes to anything of the collection named `a` or `b` (a name or id). */
  watches(names: string[]): boolean {
    if (this.byTopic.size === 0) return false;
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    for (const client of this.clients.values()) {
      if (client.subscriptions.some((s) => wanted.has(topicCollection(s).toLowerCase()))) return true;
    }
    return false;
  }

  /**
   * Sessions end without a record change (sign-out, revocation, expiry, a password change ending the
   * others, an authRule change ending them all): before each delivery the clients' sessions are
   * checked in one query, and a client whose session ended becomes a guest.
   */
  dropEndedSessions(db: ReadDb, now = Date.now()): void {
    const bound = [...this.clients.values()].filter((c) => c.auth !== null && c.auth.sessionId !== '');
    for (let i = 0; i < bound.length; i += 500) {
      const chunk = bound.slice(i, i + 500);
      const ids = chunk.map((c) => (c.auth as AuthInfo).sessionId);
      const live = new Set(db.all<{ id: string }>(
        `SELECT "id" FROM "_sessions" WHERE "expires" > ? AND "id" IN (${ids.map(() => '?').join(',')})`,
        [isoNow(now), ...ids],
      ).map((r) => r.id));
      for (const c of chunk) if (!live.has((c.auth as AuthInfo).sessionId)) c.auth = null;
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
