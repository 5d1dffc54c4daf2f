// A cron job of pb_hooks on two team-server nodes of ONE PostgreSQL database, both ticking for real
// (a one-second tick instead of a minute): each tick runs the job once across the nodes (its claim row
// in `_cronRuns`), never twice; the job writes a record each run, so the records count the runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

const HOOKS = String.raw`
cronAdd("tick", "* * * * *", () => {
  const c = $app.findCollectionByNameOrId("ticks")
  $app.save(new Record(c))
  console.log("tick ran")
})
`;

describePostgres('a cron job on two nodes of one database', () => {
  let db: FreshDatabase;
  let dir: string;
  let a: RunningServer;
  let b: RunningServer;
  const tokens: string[] = [];

  const ran = { a: 0, b: 0 };
  const node = (name: 'a' | 'b' | null) => startServer({
    dir: null, openStore: () => openPostgresStore({ url: db.url, max: 4, dir: null }),
    port: 0, uiDir: null, log: () => undefined, hooksDir: name === null ? null : dir,
    hooksLogger: (e) => { if (name !== null && e.message.includes('tick ran')) ran[name]++; },
    cronIntervalMs: 1000,
    onSetupToken: (token) => void tokens.push(token),
  });

  beforeAll(async () => {
    db = await freshDatabase('cron_nodes');
    dir = mkdtempSync(join(tmpdir(), 'deskbase-cron-nodes-'));
    writeFileSync(join(dir, 'cron.pb.js'), HOOKS);
    // the collection the job writes to exists before any node runs the job
    const first = await node(null);
    const setup = await fetch(`${first.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: tokens[0], ...ADMIN }) });
    expect(setup.status).toBe(200);
    const admin = new PocketBase(first.url);
    await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    await admin.collections.create({ name: 'ticks', type: 'base', fields: [{ name: 'note', type: 'text' }] });
    await first.close();
    [a, b] = await Promise.all([node('a'), node('b')]);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs each tick once across the nodes', async () => {
    const claims = async () => (await db.sql<{ tick: string; node: string }[]>`SELECT "tick", "node" FROM "_cronRuns" WHERE "job" = 'tick' ORDER BY "tick"`);
    const deadline = Date.now() + 8000;
    while ((await claims()).length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    // let the last claimed run write its record
    await new Promise((r) => setTimeout(r, 500));
    const rows = await claims();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const ticks = await db.sql<{ count: string }[]>`SELECT count(*) AS "count" FROM "ticks"`;
    const finished = await db.sql<{ count: string }[]>`SELECT count(*) AS "count" FROM "_cronRuns" WHERE "job" = 'tick' AND "finished" IS NOT NULL`;
    // every run wrote one record, and there is one run per claimed tick: never two for one tick
    expect(Number(ticks[0].count)).toBe(Number(finished[0].count));
    expect(Number(ticks[0].count)).toBeGreaterThanOrEqual(3);
    expect(new Set(rows.map((r) => r.tick)).size).toBe(rows.length);
    // the runs were shared out between the two ticking nodes, adding up to one per tick
    expect(ran.a + ran.b).toBe(Number(ticks[0].count));
  });
});
