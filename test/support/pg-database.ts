// Per-file databases on the test run's PostgreSQL (test/support/postgres.ts starts it): each file gets
// a database of its own, created by the cluster's superuser and owned by the application role, which
// is no superuser, so files run in parallel and see what a team server's role sees.
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { describe, inject } from 'vitest';
import type { PostgresInfo } from './postgres.js';

export type Sql = postgres.Sql;

export function postgresInfo(): PostgresInfo {
  return inject('postgres');
}

/**
 * `describe` for tests that need PostgreSQL: skipped, saying why, only when the run has none (locally;
 * under CI the run fails in its global setup instead).
 */
export function describePostgres(name: string, body: () => void): void {
  const info = postgresInfo();
  if (info.missing !== '') describe.skip(`${name} (skipped: ${info.missing})`, body);
  else describe(name, body);
}

export interface FreshDatabase {
  /** postgres://deskbase:…@127.0.0.1:port/name */
  url: string;
  name: string;
  /** A client connected as the application role. */
  sql: Sql;
  /** Closes the client and drops the database. */
  drop(): Promise<void>;
}

/**
 * The file's one connection as the cluster's superuser (creates and drops), opened when first needed
 * and closed by postgres.js once idle for a second, so a file ends with nothing open: a connection per
 * create and per drop cost each harness two more logins (their password exchanges) and round trips.
 * Two at most, so a drop the caller does not wait for (`dropLater`) never holds up the next create.
 */
let root: Sql | null = null;

function admin(info: PostgresInfo): Sql {
  root ??= postgres({ host: info.host, port: info.port, user: info.adminUser, password: info.adminPassword, database: 'postgres', max: 2, idle_timeout: 1, onnotice: () => {} });
  return root;
}

/**
 * A new empty database owned by the application role, and a client on it. `template`: a copy of that
 * database instead (it must have no connections open).
 */
export async function freshDatabase(label: string, template = 'template0'): Promise<FreshDatabase> {
  const info = postgresInfo();
  if (info.missing !== '') throw new Error(info.missing);
  const name = `t_${label.replace(/\W/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  const sql0 = admin(info);
  await sql0.unsafe(`CREATE DATABASE "${name}" OWNER "${info.user}" TEMPLATE "${template}" ENCODING 'UTF8'`);
  // The application role owns the database and its public schema, as on a team server.
  await sql0.unsafe(`REVOKE ALL ON DATABASE "${name}" FROM PUBLIC`);
  const url = `postgres://${info.user}:${encodeURIComponent(info.password)}@${info.host}:${info.port}/${name}`;
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  return {
    url,
    name,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      await admin(info).unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * Drops `db` without the caller waiting (a harness's close): the cluster is the run's and thrown away
 * at its end, so a drop cut short by the run's end only leaves a database there (the last file's drops
 * can still be under way when the cluster stops: a refused connection is that, and is not logged); any
 * other failure is logged.
 */
export function dropLater(db: FreshDatabase): void {
  db.drop().catch((error: unknown) => {
    if ((error as { code?: string }).code === 'ECONNREFUSED') return;
    console.error(`[postgres] dropping ${db.name}:`, error);
  });
}
