// The PostgreSQL store when its database goes away: a connection lost inside a write refuses that
// write with a 503 (nothing of it committed, nothing sent on the dead connection: postgres.js 3.4.9
// crashes the process on a statement sent there, porsager/postgres#1208), the process lives on and the
// next write reconnects; a database that cannot be reached answers a 503 within the wait for a
// connection instead of holding the caller. (test/failover/ proves the same through the CLI on a
// Patroni cluster.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { probePort } from '../../server/http/listener.js';
import { bundle, runChild } from '../fixtures/hardening-child.js';

let db: FreshDatabase;
let store: PostgresStore;

/** A loopback port free now (nothing listens on it): the one probe, http/listener.ts `probePort`. */
async function closedPort(): Promise<number> {
  return (await probePort('127.0.0.1', 0)) ?? Promise.reject(new Error('no free loopback port'));
}

describePostgres('the PostgreSQL store when the database goes away', () => {
  beforeAll(async () => {
    db = await freshDatabase('unreachable');
    store = await openPostgresStore({ url: db.url, max: 3 });
    await store.write((tx) => tx.run('CREATE TABLE notes (id integer PRIMARY KEY)'));
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('a write whose connection is killed mid-way is refused with a 503; nothing of it is stored; the next write reconnects', async () => {
    const refused = await store.write(async (tx) => {
      await tx.run('INSERT INTO notes (id) VALUES (1)');
      const own = await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // the server ends this write's session (as a crash or a failover would)
      await db.sql`SELECT pg_terminate_backend(${own!.pid})`;
      await new Promise((r) => setTimeout(r, 200));
      await tx.run('INSERT INTO notes (id) VALUES (2)');
    }).then(() => null, (err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    expect((refused as ApiError).message).toMatch(/cannot be reached.*Nothing was changed/);
    expect(await db.sql`SELECT count(*)::int AS n FROM notes`).toEqual([{ n: 0 }]);

    await store.write((tx) => tx.run('INSERT INTO notes (id) VALUES (3)'));
    expect(await store.all('SELECT id FROM notes')).toEqual([{ id: 3 }]);
  });

  it('a read whose connection is killed is refused with a 503, and the next one reconnects', async () => {
    const [{ pid }] = await db.sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = ${db.name} AND application_name = 'deskbase'`.then((rows) => (rows.length > 0 ? rows : [{ pid: 0 }]));
    expect(pid).toBeGreaterThan(0);
    await db.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${db.name} AND application_name = 'deskbase'`;
    await new Promise((r) => setTimeout(r, 200));
    // every connection the store had is gone: each read finds its own closed and reconnects, or is refused
    const reads = await Promise.all([1, 2, 3].map(() => store.all('SELECT id FROM notes').then((rows) => rows, (err: unknown) => err)));
    for (const r of reads) {
      if (r instanceof Error) expect((r as ApiError).status).toBe(503);
      else expect(r).toEqual([{ id: 3 }]);
    }
    expect(await store.all('SELECT id FROM notes')).toEqual([{ id: 3 }]);
  });

  it('a database no host of which answers is refused with a 503 within the wait for a connection, not held', async () => {
    const [p1, p2] = [await closedPort(), await closedPort()];
    const started = performance.now();
    // several hosts: postgres.js tries them in turn for as long as it is asked to
    const opened = await openPostgresStore({ url: `postgres://deskbase:x@127.0.0.1:${p1},127.0.0.1:${p2}/none?target_session_attrs=primary`, connectWaitMs: 500 })
      .then(() => null, (err: unknown) => err);
    const took = performance.now() - started;
    expect(opened).toBeInstanceOf(ApiError);
    expect((opened as ApiError).status).toBe(503);
    expect(took).toBeLessThan(3000);
  });

  it('connections given up while they open (a wait for one ending) end without ending the process', async () => {
    // postgres.js runs statements of its own as a connection opens; one rejected when the connection is
    // ended under it, with nothing awaiting it, would end the process (a node died so in the failover test)
    const child = runChild(await bundle('test/fixtures/discard-connecting.ts'), [db.url, '120']);
    const done = await child.line((l) => l.startsWith('done ') || l.startsWith('failed '), 60_000).catch((err: unknown) => String(err));
    const exit = await child.exited;
    expect({ done, exit, stderr: child.stderr().slice(0, 600) }).toMatchObject({ done: expect.stringMatching(/^done [1-9]/), exit: { code: 0 } });
  });
});
