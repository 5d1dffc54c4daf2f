// The engine the API suites run on: the desktop's SQLite (sql.js, in memory) by default, or a fresh
// database on the run's PostgreSQL 15 when DESKBASE_TEST_ENGINE=postgres. The `postgres-api` project
// of vitest.config.ts runs the suites listed there so, beside their run on SQLite in the `node` project:
// one harness, both engines, `npm test` one command.
import type { ServerOptions } from '../../server/index.js';
import type { Store } from '../../server/store/db.js';
import { openStore } from '../../server/store/db.js';
import type postgres from 'postgres';

export type TestEngine = 'sqlite' | 'postgres';

export const TEST_ENGINE: TestEngine = process.env.DESKBASE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The scrypt work factor of the test servers' new password hashes (CoreOptions.scryptN): the lowest a
 * server takes, a sixteenth of SCRYPT_N's work (4 ms a hash against 60 here). The suite hashes thousands
 * of passwords (setup, sign-ups, sign-ins); a test about a hash's cost or time gives `scryptN: SCRYPT_N`.
 */
export const TEST_SCRYPT_N = 1024;

/**
 * A store's data kept to start others from (scenario tables copy one prepared store per row): on
 * SQLite its database as bytes, on PostgreSQL a database kept as a template.
 */
export type StoreSeed = { bytes: Uint8Array } | { template: string };

/**
 * The PostgreSQL stores' databases, so that a seed can keep one instead of dropping it; `sql`: the
 * database's own client (freshDatabase's), which writeMark reads with (it connects on its first query).
 */
const databases = new WeakMap<Store, { name: string; keep: boolean; sql: postgres.Sql }>();

/**
 * An empty store on the suite's engine: in memory on SQLite (or on the data folder `dir`); on
 * PostgreSQL a database of its own (`template`: a copy of a seed's), dropped when the store is closed,
 * with `dir` as the node's folder (its temporary uploads).
 */
export async function openTestStore(label = 'suite', template?: string, dir: string | null = null): Promise<Store> {
  if (TEST_ENGINE === 'sqlite') return openStore({ dir });
  // the PostgreSQL side is imported here, not at the top: a file on SQLite (most) does not load postgres.js
  const [{ dropLater, freshDatabase }, { openPostgresStore }] = await Promise.all([import('./pg-database.js'), import('../../server/store-postgres/store.js')]);
  const db = await freshDatabase(label, template);
  const store = await openPostgresStore({ url: db.url, max: 4, dir });
  const entry = { name: db.name, keep: false, sql: db.sql };
  const close = store.close;
  const closing = Object.assign(store, {
    close: async () => {
      await close();
      // nothing waits for the drop (the run's cluster is thrown away at its end); the drop ends the client
      if (entry.keep) await db.sql.end({ timeout: 5 });
      else dropLater(db);
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
 * A mark of what `store` holds, to prove that a stretch of work wrote nothing (scenario.ts: the rows
 * that only read share one app): equal marks, nothing committed in between. On SQLite the store's
 * `version`, which every write transaction moves (rolled back too). On PostgreSQL, per relation of the
 * database's own schemas: its name, its file (a TRUNCATE gives a new one), its catalog row's
 * transaction (an ALTER, a rename), and for a table its rows' count and newest `xmin` (an insert or an
 * update gives a row a new one, a delete lowers the count). One round trip on the database's own client.
 */
export async function writeMark(store: Store): Promise<string> {
  const pg = databases.get(store);
  if (pg === undefined) {
    if (store.version === undefined) throw new Error('writeMark: this store has no version');
    return String(store.version);
  }
  const rows = await pg.sql.unsafe(`
    SELECT c.oid::regclass::text AS name, c.relfilenode, c.xmin::text AS changed,
      CASE WHEN c.relkind IN ('r', 'p', 'm') THEN (xpath('/row/m/text()', query_to_xml(
        format('SELECT count(*) || '':'' || coalesce(max(xmin::text::bigint), 0) AS m FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text END AS rows
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
    ORDER BY 1`);
  return JSON.stringify(rows.map((r) => [r.name, r.relfilenode, r.changed, r.rows]));
}

/**
 * What startServer needs to serve from the suite's engine when it has no data folder: nothing on
 * SQLite (an in-memory store), a fresh database of the run's PostgreSQL in the postgres-api project.
 */
export function engineServerOptions(label = 'server'): Pick<ServerOptions, 'openStore'> {
  return TEST_ENGINE === 'sqlite' ? {} : { openStore: () => openTestStore(label) };
}

/**
 * Runs `fn` while `store`'s write turn is held by a transaction that runs nothing (as a hook looping
 * inside a write holds it), then lets that transaction end and waits for it.
 */
export async function whileWriteTurnHeld<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = store.write(async () => released);
  try {
    return await fn();
  } finally {
    release();
    await held;
  }
}
