// The logs of a team server: two nodes started together on one PostgreSQL database (both making the
// table `_logs` at once, under its advisory lock) write their requests into it, and either node's
// `GET /api/logs` and `/api/logs/stats` show both nodes' requests; a settings change on one node is
// followed by the other.
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

describePostgres('the logs of two nodes on one database', () => {
  let db: FreshDatabase;
  let a: RunningServer;
  let b: RunningServer;
  const tokens: string[] = [];
  let adminA: PocketBase;
  let adminB: PocketBase;
  const node = () => startServer({
    dir: null, openStore: () => openPostgresStore({ url: db.url, max: 4 }), port: 0, uiDir: null, log: () => undefined,
    onSetupToken: (token) => void tokens.push(token),
  });
  beforeAll(async () => {
    db = await freshDatabase('logs_nodes');
    [a, b] = await Promise.all([node(), node()]);
    const setup = await fetch(`${a.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: tokens[0], ...ADMIN }) });
    expect(setup.status).toBe(200);
    adminA = new PocketBase(a.url);
    adminB = new PocketBase(b.url);
    await adminA.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    await adminB.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it("either node lists both nodes' requests", async () => {
    await fetch(`${a.url}/api/health?from=node-a`);
    await fetch(`${b.url}/api/health?from=node-b`);
    await a.logs.logger.flush();
    await b.logs.logger.flush();
    for (const admin of [adminA, adminB]) {
      const found = await admin.logs.getList(1, 10, { filter: "data.url ~ 'from=node-'", sort: 'data.url' });
      expect(found.items.map((l) => l.data.url)).toEqual(['/api/health?from=node-a', '/api/health?from=node-b']);
      const stats = await admin.logs.getStats({ filter: "data.url ~ 'from=node-'" });
      expect(stats.reduce((n, s) => n + s.total, 0)).toBe(2);
    }
  });

  it("the settings one node stores are the other's at its next read (its 10-s refresh, called here at once)", async () => {
    await adminA.settings.update({ logs: { logIP: false } });
    // node B reads the stored settings every 10 s; ask it now rather than wait
    b.logs.apply((await b.core.settings.get()).logs);
    await fetch(`${b.url}/api/health?from=after-change`);
    await b.logs.logger.flush();
    const [log] = (await adminA.logs.getList(1, 1, { filter: "data.url ~ 'after-change'" })).items;
    expect(log.data).not.toHaveProperty('remoteIP');
    expect(log.data.status).toBe(200);
  });
});
