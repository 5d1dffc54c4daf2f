// The seam between core and server-side hooks (server/hooks/): core names the moments PocketBase's
// hooks wrap (a record create, its request, its execute...) and asks `events` to run them around the
// action it would do anyway. Core never imports the hooks runtime; server/index.ts hands one in
// (`CoreOptions.events`), NO_EVENTS otherwise. With no handler for an event, `has` is false and core
// runs its action directly: the cost of a path without hooks is one Set lookup.
import type { WriteTx } from '../store/db.js';
import type { RecordChange } from './writes/changes.js';

/**
 * Where a hook runs: host calls its handler makes ($app.save, $app.findRecordById...) go through `tx`
 * when it runs inside a write (the write's own transaction: no wait for the single writer, and an error
 * rolls the whole write back), and `changes` collects the record changes they make for realtime.
 */
export interface EventScope {
  tx?: WriteTx;
  changes?: RecordChange[];
  /** The request's auth record and info, when an HTTP request started it (request events). */
  request?: unknown;
  /** The hooks runtime's own: the worker whose handler is running (an event triggered meanwhile runs there). */
  worker?: unknown;
  /** Inside a write: what runs once it committed (after-success hooks, staged files), or rolled back. */
  afterCommit?: (() => Promise<void> | void)[];
  afterRollback?: (() => Promise<void> | void)[];
  /**
   * The hooks runtime's own: fires when the worker whose handler made this call is stopped (past its
   * time limit, or dead). A transaction begun for the call and not committed yet then rolls back
   * (core/stoppable.ts): a stopped hook's `$app.save` that was waiting for the write turn never commits after
   * its request was answered that the hook was stopped.
   */
  stopped?: AbortSignal;
}


/**
 * An event's data as it crosses to a hook: plain JSON-like values. `record` is `{ collection, data,
 * original? }` (see server/hooks/contract), other keys are the event's own.
 */
export type EventPayload = Record<string, unknown>;

export interface CoreEvents {
  /** Whether any handler listens to `event` for this collection (by id or name; omitted: any). */
  has(event: string, collection?: { id: string; name: string }): boolean;
  /**
   * Runs the handlers of `event` in order around `action`: the last handler's `e.next()` calls
   * `action(payload)` with the event's data as the handlers left it; `action`'s returned payload is
   * what they see after `e.next()`; `action` runs in `scope` as the runtime extended it (work it
   * triggers runs on the same hook worker): pass that scope on. Resolves with the payload as the handlers left it, and whether
   * `action` ran (a handler may end the chain without calling `e.next()`). A handler's error rejects.
   */
  trigger(event: string, payload: EventPayload, scope: EventScope, action: (payload: EventPayload, scope: EventScope) => Promise<EventPayload>, collection?: { id: string; name: string }): Promise<{ payload: EventPayload; ran: boolean }>;
}

/** No hooks: nothing listens, every action runs as is. */
export const NO_EVENTS: CoreEvents = {
  has: () => false,
  trigger: async (_event, payload, scope, action) => ({ payload: await action(payload, scope), ran: true }),
};
