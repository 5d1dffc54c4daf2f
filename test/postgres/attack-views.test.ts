// Attack findings (issue 25, team server): views. The catalog and system-table tricks tried (CTEs
// named or reading _params, UNION, `TABLE`, quoted and case-folded names, pg_* relations, casts to
// regclass, `::`, row casts, row_to_json, recursive CTEs, generate_series, functions reaching past the
// rows, a view over a view, fullwidth lookalikes) were all refused or held (see the report); what
// broke is saving a heavy view. Real server, real PostgreSQL 15, fetch over a socket.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';

let db: FreshDatabase;
let team: SdkServer;

describePostgres('saving a heavy view on the team server (attack findings)', () => {
  beforeAll(async () => {
    db = await freshDatabase('attack_views');
    team = await startSdkServer({ openStore: () => openPostgresStore({ url: db.url, max: 3 }) });
    await team.admin.collections.create({ name: 'posts', listRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] });
  }, 60_000);
  afterAll(async () => {
    await team?.server.close();
    await db?.drop();
  }, 120_000);

  // A view of 80 self-joins takes ~5 s to save (the checks at save time run in the write turn with no
  // bound), and every write on that node waits for it: a record create took 4.9 s. With 200 joins the
  // save never answers (the connection is dropped at 30 s, no envelope) and writes queued behind it
  // were dropped too (three creates without an answer, the fourth answered after 24 s); reads and the
  // event loop stayed fine. Should: the save is bounded (the budget's 400 on viewQuery, or its checks
  // outside the write turn) and other requests' writes are not held behind it.
  it.fails('a record create answers within 1.5 s while a superuser saves a view of 80 joins', async () => {
    const viewQuery = 'SELECT p.id FROM posts p ' + Array.from({ length: 80 }, (_, i) => `JOIN posts p${i} ON p${i}.id = p.id`).join(' ');
    const saving = fetch(`${team.server.url}/api/collections`, {
      method: 'POST', headers: { authorization: team.admin.authStore.token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'heavy', type: 'view', viewQuery, listRule: '' }),
    }).then((r) => r.arrayBuffer(), () => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const start = performance.now();
    const res = await fetch(`${team.server.url}/api/collections/posts/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'while a view is saved' }) });
    const ms = performance.now() - start;
    await saving;
    expect(res.status).toBe(200);
    expect(ms).toBeLessThan(1500);
  }, 60_000);
});
