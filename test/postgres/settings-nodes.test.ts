// Settings between two team-server nodes (issue 26): two real HTTP servers on one PostgreSQL database.
// Rate-limit rules and the trusted proxy set on node A take effect on node B within a second (each
// node reads the stored settings again once its copy is CACHE_MS old), and each node counts its own
// requests against a rule (the counters are per node, as the README says). A node idle for longer than
// CACHE_MS reads them again before its next request is served: never an older copy than that.
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { CACHE_MS } from '../../server/core/settings.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN, setUpAdmin } from '../support/sdk-server.js';

let db: FreshDatabase;
let nodeA: RunningServer;
let nodeB: RunningServer;
let adminA: PocketBase;

const node = () => startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openPostgresStore({ url: db.url, max: 4 }) });
const health = (server: RunningServer, ip: string) => fetch(`${server.url}/api/health`, { headers: { 'x-real-ip': ip } }).then((r) => r.status);

describePostgres('settings between two nodes', () => {
  beforeAll(async () => {
    db = await freshDatabase('settings_nodes');
    nodeA = await node();
    await setUpAdmin(nodeA);
    nodeB = await node();
    adminA = new PocketBase(nodeA.url);
    await adminA.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  it('rules and the proxy set on one node hold on the other within a second, each node counting its own requests', async () => {
    expect(await health(nodeB, '192.0.2.1')).toBe(200); // B's copy of the settings: rate limits off
    await adminA.settings.update({ rateLimits: { enabled: true, rules: [{ label: 'GET /api/health', maxRequests: 2, duration: 60 }] }, trustedProxy: { headers: ['X-Real-IP'] } });
    // A at once
    expect([await health(nodeA, '192.0.2.1'), await health(nodeA, '192.0.2.1'), await health(nodeA, '192.0.2.1'), await health(nodeA, '192.0.2.2')]).toEqual([200, 200, 429, 200]);
    // B once its copy is CACHE_MS old: its next request reads the settings again first
    await new Promise((r) => setTimeout(r, CACHE_MS + 50));
    expect([await health(nodeB, '192.0.2.9'), await health(nodeB, '192.0.2.9'), await health(nodeB, '192.0.2.9')]).toEqual([200, 200, 429]);
    // B counts its own: the client A refused has its two on B
    expect([await health(nodeB, '192.0.2.1'), await health(nodeB, '192.0.2.1'), await health(nodeB, '192.0.2.1')]).toEqual([200, 200, 429]);
  });

  it('a trusted proxy removed on one node: the other, idle past CACHE_MS, believes no forwarded address from its next request on', async () => {
    expect(await health(nodeB, '192.0.2.20')).toBe(200); // B's copy: X-Real-IP believed
    await adminA.settings.update({ trustedProxy: { headers: [] } });
    await new Promise((r) => setTimeout(r, CACHE_MS + 50));
    // every request is now the socket's client (loopback), whatever address it forwards: 2 per minute
    expect([await health(nodeB, '192.0.2.21'), await health(nodeB, '192.0.2.22'), await health(nodeB, '192.0.2.23')]).toEqual([200, 200, 429]);
  });
});
