// The domain, assembled from a store: `openStore(dir)` → `createCore(store)` → `createApp(core)`.
import type { Store } from '../store/db.js';
import { ensureSystemSchema } from '../store/schema.js';
import { createAuth } from './sign-in.js';
import { FailureLimiter } from './sign-in-limiter.js';
import { createCollections } from './collections.js';
import { installQueryGuards, MAX_RESPONSE_BYTES, QUERY_BUDGET_MS } from './query-budget.js';
import { addMissingMaintainedIndexes } from './maintained-indexes.js';
import { createRecords } from './records.js';
import { Registry } from './collection-registry.js';
import { internalContext, listContext, requestContext, type RequestInput } from './request-context.js';
import { createSessions } from './session-store.js';
import { createSetup } from './setup.js';
import { ChangeFeed, type ChangeListener } from './writes/changes.js';
import { createTransfer } from './transfer/transfer.js';

export interface CoreOptions {
  /** Called with each new setup token (the CLI prints it; the desktop app shows the setup page). */
  onSetupToken?: (token: string) => void;
  now?: () => number;
  /** How long a request may hold the event loop in queries, in ms (QUERY_BUDGET_MS by default). */
  queryBudgetMs?: number;
  /** Hears failures that cannot reach a client any more: a change listener's, a committed write's after-effect. */
  onError?: (error: unknown) => void;
  /** Bytes one answer may hold (MAX_RESPONSE_BYTES by default). */
  responseBytes?: number;
}

export async function createCore(store: Store, options: CoreOptions = {}) {
  const registry = new Registry();
  installQueryGuards(store);
  await store.write((tx) => ensureSystemSchema(tx));
  registry.load(store);
  // after a failed journal write the store reloads from disk: the collections may have changed back
  store.onReload(() => registry.load(store));
  const sessions = createSessions(store, registry);
  const collections = createCollections(store, registry, sessions);
  await store.write((tx) => collections.bootstrap(tx));
  // data folders made before Deskbase kept an index get it now (nothing is written when none is missing)
  await store.write((tx) => addMissingMaintainedIndexes(tx, registry.all()));
  const report = options.onError ?? ((error: unknown) => console.error(error));
  const feed = new ChangeFeed(report);
  const responseBytes = options.responseBytes ?? MAX_RESPONSE_BYTES;
  const records = createRecords(store, registry, sessions, feed, options.queryBudgetMs ?? QUERY_BUDGET_MS, report, responseBytes);
  const auth = createAuth(store, registry, sessions, new FailureLimiter(options.now), responseBytes);
  const setup = createSetup(store, registry, records.writes, options.onSetupToken ?? (() => {}), options.now);
  const transfer = createTransfer(store, registry, sessions, records, options.queryBudgetMs ?? QUERY_BUDGET_MS);
  return {
    store, registry, sessions, collections, records, auth, setup, transfer,
    /** The one subscription point for record changes: each committed write's, once durable, in commit order. */
    changes: { subscribe: (listener: ChangeListener) => feed.subscribe(listener) },
    /** A request's context, built once per request by the HTTP layer and carried through core. */
    context: (input: RequestInput) => requestContext(input, registry.lookup),
    listContext: (input: RequestInput) => listContext(input, registry.lookup),
    /** The context of work the server does for itself (no caller, no parameters). */
    internalContext: () => internalContext(registry.lookup),
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
