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

function admin(info: PostgresInfo): Sql {
  return postgres({ host: info.host, port: info.port, user: info.adminUser, password: info.adminPassword, database: 'postgres', max: 1, onnotice: () => {} });
}

/**
 * A new empty database owned by the application role, and a client on it. `template`: a copy of that
 * database instead (it must have no connections open).
 */
export async function freshDatabase(label: string, template = 'template0'): Promise<FreshDatabase> {
  const info = postgresInfo();
  if (info.missing !== '') throw new Error(info.missing);
  const name = `t_${label.replace(/\W/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  const root = admin(info);
  try {
    await root.unsafe(`CREATE DATABASE "${name}" OWNER "${info.user}" TEMPLATE "${template}" ENCODING 'UTF8'`);
    // The application role owns the database and its public schema, as on a team server.
    await root.unsafe(`REVOKE ALL ON DATABASE "${name}" FROM PUBLIC`);
  } finally {
    await root.end();
  }
  const url = `postgres://${info.user}:${encodeURIComponent(info.password)}@${info.host}:${info.port}/${name}`;
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  return {
    url,
    name,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const root2 = admin(info);
      try {
        await root2.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await root2.end();
      }
    },
  };
}
