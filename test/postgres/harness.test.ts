// The test PostgreSQL is what the team server will meet: the application role is no superuser and
// owns its database; the database's default collation is not byte order (so SQL that forgets the
// dialect's COLLATE "C" fails in test/postgres/filter-engines.test.ts); each file's database is its own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, freshDatabase, postgresInfo, type FreshDatabase } from '../support/pg-database.js';

let db: FreshDatabase;

describePostgres('the test PostgreSQL', () => {
  beforeAll(async () => {
    db = await freshDatabase('harness');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('is PostgreSQL 15, on loopback, started in a few seconds at most', async () => {
    const [{ server_version_num: version }] = await db.sql`SHOW server_version_num`;
    expect(Math.floor(Number(version) / 10000)).toBe(15);
    expect(postgresInfo().host).toBe('127.0.0.1');
    expect(postgresInfo().startMs).toBeLessThan(10_000);
  });

  it('connects as a role that owns its database and is not a superuser', async () => {
    const [role] = await db.sql`SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user`;
    expect(role).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    const [owner] = await db.sql`SELECT pg_get_userbyid(datdba) = current_user AS owns FROM pg_database WHERE datname = current_database()`;
    expect(owner.owns).toBe(true);
    await db.sql`CREATE TABLE t (x text)`;
    await expect(db.sql`CREATE DATABASE another`).rejects.toThrow(/permission denied/);
  });

  it('sorts texts linguistically by default, not in byte order', async () => {
    const rows = await db.sql`SELECT x FROM (VALUES ('a'), ('B')) AS v(x) ORDER BY x`;
    expect(rows.map((r) => r.x)).toEqual(['a', 'B']);
  });

  it('gives each caller a database of its own, and drops it', async () => {
    const other = await freshDatabase('harness');
    expect(other.name).not.toBe(db.name);
    await other.sql`CREATE TABLE t (x text)`;
    await other.drop();
    const [left] = await db.sql`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${other.name}`;
    expect(left.n).toBe(0);
  });
});
