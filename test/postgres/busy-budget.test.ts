// Budgets count work, not time, on a team server too (issue 28): the same list and view on PostgreSQL
// answer 200, and the same, on an idle machine and with a busy process on every core beside them while
// the node's own event loop is held for 200 ms at a time (as a heavy request holds it); so do batches
// of 50 creates, whose many statements' times all meet the one backstop. A budget of
// 150 ms timed on the node's clock fails here: a sub-millisecond read whose answer waits behind the busy
// loop was charged the wait (seen: 194 ms for one read, a list answering 400 at a load of 7-12). In the
// `timed` project: it holds every core, which must not eat other files' margins.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saturateCores, type Busy } from '../../bench/busy.js';
import { computedHeader } from '../../bench/load.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';

/** No busy process outlives this, whatever happens to the test. */
const BUSY_MS = 60_000;
/** Requests in flight at once. */
const CONNECTIONS = 6;
/** How long each hold of the node's event loop lasts, and how often one starts. */
const HOLD_MS = 200;
const HOLD_EVERY_MS = 250;

let db: FreshDatabase;
let team: SdkServer;
let busy: Busy | undefined;
let holding: ReturnType<typeof setInterval> | undefined;

async function answer(path: string): Promise<{ status: number; body: string }> {
  // a header of its own per request: no answer is kept between requests (http/read-cache.ts), each is computed
  const res = await fetch(`${team.server.url}${path}`, { headers: computedHeader() });
  return { status: res.status, body: await res.text() };
}

async function runAll(paths: string[]): Promise<{ status: number; body: string }[]> {
  const out: { status: number; body: string }[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < paths.length; i = next++) out[i] = await answer(paths[i]);
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return out;
}

describePostgres('the query budget on a busy team server', () => {
  beforeAll(async () => {
    db = await freshDatabase('busy_budget');
    team = await startSdkServer({ openStore: () => openPostgresStore({ url: db.url, max: 4 }) });
    await team.admin.collections.create({ name: 'posts', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'n', type: 'number' }] });
    await team.admin.collections.create({ name: 'notes', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] });
    await db.sql.unsafe(`INSERT INTO "posts" ("id", "title", "n") SELECT lpad(g::text, 15, '0'), 'title ' || g, g FROM generate_series(1, 5000) g`);
  }, 60_000);

  afterAll(async () => {
    if (holding !== undefined) clearInterval(holding);
    busy?.stop();
    await team?.server.close();
    await db?.drop();
  });

  it('answers the same list and view 200, and the same, idle and with every core busy and the event loop held', async () => {
    const paths = [
      ...Array.from({ length: 10 }, (_, i) => `/api/collections/posts/records?perPage=30&page=${i + 1}&sort=-n`),
      ...Array.from({ length: 10 }, (_, i) => `/api/collections/posts/records?perPage=30&filter=${encodeURIComponent(`title ~ '${i + 1}'`)}&sort=title`),
      ...Array.from({ length: 10 }, (_, i) => `/api/collections/posts/records/${String(i * 97 + 1).padStart(15, '0')}`),
    ];
    const idle = await runAll(paths);
    for (const [i, a] of idle.entries()) expect(a.status, `${paths[i]}: ${a.body.slice(0, 200)}`).toBe(200);

    try {
      busy = await saturateCores(BUSY_MS, 1);
      // the node's own event loop busy most of the time, as under other requests' work
      holding = setInterval(() => {
        const until = performance.now() + HOLD_MS;
        while (performance.now() < until) { /* held */ }
      }, HOLD_EVERY_MS);
      const refused: string[] = [];
      const changed: string[] = [];
      for (let round = 0; round < 3; round++) {
        const answers = await runAll(paths);
        answers.forEach((a, i) => {
          if (a.status !== 200) refused.push(`${a.status} ${paths[i]}: ${a.body.slice(0, 160)}`);
          else if (a.body !== idle[i].body) changed.push(paths[i]);
        });
      }
      expect(refused).toEqual([]);
      expect(changed).toEqual([]);
      // a batch of 50 creates, its prepare steps under one budget and its statements in one transaction
      for (let round = 0; round < 3; round++) {
        const batch = team.client().createBatch();
        for (let i = 0; i < 50; i++) batch.collection('notes').create({ title: `busy ${round}-${i}` });
        expect((await batch.send()).map((r) => r.status)).toEqual(Array.from({ length: 50 }, () => 200));
      }
    } finally {
      clearInterval(holding);
      holding = undefined;
      busy?.stop();
    }
  }, 120_000);
});
