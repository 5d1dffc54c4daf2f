// The domain, assembled from a store: `openStore(dir)` → `createCore(store)` → `createApp(core)`.
import type { Store } from '../store/db.js';
import { ensureSystemSchema } from '../store/schema.js';
import { createAuth, FailureLimiter } from './auth.js';
import { createCollections } from './collections.js';
import { installQueryGuards, MAX_RESPONSE_BYTES, QUERY_BUDGET_MS } from './deadline.js';
import { addMissingMaintainedIndexes } from './maintained-indexes.js';
import { createRecords } from './records.js';
import { Registry } from './registry.js';
import { createSessions } from './sessions.js';
import { createSetup } from './setup.js';

export interface CoreOptions {
  /** Called with each new setup token (the CLI prints it; the desktop app shows the setup page). */
  onSetupToken?: (token: string) => void;
  now?: () => number;
  /** How long a request may hold the event loop in queries, in ms (QUERY_BUDGET_MS by default). */
  queryBudgetMs?: number;
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
  const collections = createCollections(store, registry);
  await store.write((tx) => collections.bootstrap(tx));
  // data folders made before Deskbase kept an index get it now (nothing is written when none is missing)
  await store.write((tx) => addMissingMaintainedIndexes(tx, registry.all()));
  const records = createRecords(store, registry, sessions, options.queryBudgetMs ?? QUERY_BUDGET_MS, options.responseBytes ?? MAX_RESPONSE_BYTES);
  const auth = createAuth(store, registry, sessions, new FailureLimiter(options.now));
  const setup = createSetup(store, registry, records.writes, options.onSetupToken ?? (() => {}), options.now);
  return { store, registry, sessions, collections, records, auth, setup };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
