// The engine the API suites run on: the desktop's SQLite (sql.js, in memory) by default, or a fresh
// database on the run's PostgreSQL 15 when DESKBASE_TEST_ENGINE=postgres. The `postgres-api` project
// of vitest.config.ts runs the suites listed there so, beside their run on SQLite in the `node` project:
// one harness, both engines, `npm test` one command.
import type { ServerOptions } from '../../server/index.js';
import type { Store } from '../../server/store/db.js';
import { openStore } from '../../server/store/db.js';

export type TestEngine = 'sqlite' | 'postgres';

export const TEST_ENGINE: TestEngine = process.env.DESKBASE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';


/**
 * A store's data kept to start others from (scenario tables copy one prepared store per row): on
 * SQLite its database as bytes, on PostgreSQL a database kept as a template.
 */
export type StoreSeed = { bytes: Uint8Array } | { template: string };

/** The PostgreSQL stores' databases, so that a seed can keep one instead of dropping it. */
const databases = new WeakMap<Store, { name: string; keep: boolean }>();

/**
 * An empty store on the suite's engine: in memory on SQLite (or on the data folder `dir`); on
 * PostgreSQL a database of its own (`template`: a copy of a seed's), dropped when the store is closed,
 * with `dir` as the node's folder (its temporary uploads).
 */
export async function openTestStore(label = 'suite', template?: string, dir: string | null = null): Promise<Store> {
  if (TEST_ENGINE === 'sqlite') return openStore({ dir });
  // the PostgreSQL side is imported here, not at the top: a file on SQLite (most) does not load postgres.js
  const [{ freshDatabase }, { openPostgresStore }] = await Promise.all([import('./pg-database.js'), import('../../server/store-postgres/store.js')]);
  const db = await freshDatabase(label, template);
  // the database's own client is not needed: the store has its pool
  await db.sql.end({ timeout: 5 });
  const store = await openPostgresStore({ url: db.url, max: 4, dir });
  const entry = { name: db.name, keep: false };
  const close = store.close;
  const closing = Object.assign(store, {
    close: async () => {
      await close();
      if (!entry.keep) await db.drop();
    },
  });
  databases.set(closing, entry);
  return closing;
}

/**
 * What `store` holds now, to start other stores from. On PostgreSQL the store must be closed before
 * the seed is used (a template database takes no connections while it is copied); its database is
 * then kept, not dropped (the run's cluster is thrown away at its end).
 */
export async function seedOf(store: Store): Promise<StoreSeed> {
  const pg = databases.get(store);
  if (pg === undefined) return { bytes: (await store.backup()).bytes };
  pg.keep = true;
  return { template: pg.name };
}

/**
 * What startServer needs to serve from the suite's engine when it has no data folder: nothing on
 * SQLite (an in-memory store), a fresh database of the run's PostgreSQL in the postgres-api project.
 */
export function engineServerOptions(label = 'server'): Pick<ServerOptions, 'openStore'> {
  return TEST_ENGINE === 'sqlite' ? {} : { openStore: () => openTestStore(label) };
}
