// Attack findings (issue 25, team server): bulk writes. Real server, real PostgreSQL 15, fetch over a
// socket; each defect an it.fails whose assertion is what should happen.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';

let db: FreshDatabase;
let team: SdkServer;

describePostgres('bulk writes on the team server (attack findings)', () => {
  beforeAll(async () => {
    db = await freshDatabase('attack_bulk');
    team = await startSdkServer({ openStore: () => openPostgresStore({ url: db.url, max: 3 }) });
    const posts = await team.admin.collections.create({ name: 'posts', listRule: '', fields: [{ name: 'title', type: 'text' }] });
    await team.admin.collections.create({ name: 'threads', listRule: '', deleteRule: '', fields: [{ name: 'title', type: 'text' }] });
    const threads = await team.admin.collections.getOne('threads');
    await team.admin.collections.create({ name: 'replies', listRule: '', fields: [{ name: 'thread', type: 'relation', collectionId: threads.id, cascadeDelete: true, maxSelect: 1 }] });
    void posts;
    await db.sql.unsafe(`INSERT INTO "threads" ("id", "title") VALUES ('t00000000000001', 'busy')`);
    await db.sql.unsafe(`INSERT INTO "replies" ("id", "thread") SELECT lpad(g::text, 15, '0'), 't00000000000001' FROM generate_series(1, 3000) g`);
    // rows written straight into the collection's table (as an import would leave them), quickly
    await db.sql.unsafe(`INSERT INTO "posts" ("id", "title") SELECT lpad(g::text, 15, '0'), 'title ' || g FROM generate_series(1, 3000) g`);
  }, 60_000);
  afterAll(async () => {
    await team?.server.close();
    await db?.drop();
  });

  // DELETE /api/collections/posts/truncate of 3,000 small records: the truncate (record by record, in
  // one transaction, an outbox row each) runs under the request's 150 ms query budget, and the
  // QueryTimeoutError is not turned into the budget's 400 on this path: a 500, nothing deleted. The
  // desktop truncates 30,000 such records in ~0.7 s (204). Should: 204 and the collection empty (a
  // superuser's bulk operation is not a client's unbounded read), or at the very least the budget's
  // 400 naming the limit, never a 500.
  it('a superuser truncates a collection of 3,000 records: 204, all gone', async () => {
    const res = await fetch(`${team.server.url}/api/collections/posts/truncate`, { method: 'DELETE', headers: { authorization: team.admin.authStore.token } });
    expect(res.status).toBe(204);
    expect((await db.sql`SELECT count(*)::int AS n FROM "posts"`)[0].n).toBe(0);
  });

  it("whatever the truncate answered, it is not a 500 (today: 500)", async () => {
    const res = await fetch(`${team.server.url}/api/collections/posts/truncate`, { method: 'DELETE', headers: { authorization: team.admin.authStore.token } });
    expect(res.status).not.toBe(500);
  });

  // Deleting one record that 3,000 records reference with cascadeDelete: the cascade runs under the
  // request's 150 ms budget and the delete is refused with the budget's 400 ("narrow its filter, sort
  // or expand", which the client cannot do), nothing deleted. The desktop deletes it (204, ~0.5 s).
  // Should: 204, the record and its 3,000 dependants gone (or a 400 that says what to do).
  it('deleting a record with 3,000 cascaded dependants: 204, all gone', async () => {
    const res = await fetch(`${team.server.url}/api/collections/threads/records/t00000000000001`, { method: 'DELETE', headers: { authorization: team.admin.authStore.token } });
    expect(res.status).toBe(204);
    expect((await db.sql`SELECT count(*)::int AS n FROM "replies"`)[0].n).toBe(0);
  });
});
