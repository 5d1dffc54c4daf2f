// The per-record and per-client limits account-mail.ts counts in `_mailRequests`, on two team-server
// nodes over one database: a client sending its attempts to both nodes at once gets the limit once in
// all, not once per node (the sign-in block's own cross-node tests are in two-nodes.test.ts).
// - OTP attempts: OTP_ATTEMPTS.max codes checked per record and window, whichever nodes they reach;
// - mail requests: REQUEST_LIMIT.max answered per client, kind and collection and window.
// The count and the insert after it ran side by side on the two nodes (READ COMMITTED), so some rounds
// let 6 or more through; several rounds make that show in one run.
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { OTP_ATTEMPTS, REQUEST_LIMIT } from '../../server/core/account-mail.js';
import { otpAttemptKey } from '../../server/core/account-rows.js';
import { CACHE_MS } from '../../server/core/settings.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN, setUpAdmin } from '../support/sdk-server.js';

let db: FreshDatabase;
let nodeA: RunningServer;
let nodeB: RunningServer;
let adminA: PocketBase;

const node = () => startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openPostgresStore({ url: db.url, max: 4 }) });

describePostgres('limits counted across two nodes', () => {
  beforeAll(async () => {
    db = await freshDatabase('limits_nodes');
    nodeA = await node();
    await setUpAdmin(nodeA);
    nodeB = await node();
    adminA = new PocketBase(nodeA.url);
    adminA.autoCancellation(false);
    await adminA.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    await adminA.collections.update('users', { otp: { enabled: true, duration: 300, length: 8 } });
    await adminA.settings.update({ trustedProxy: { headers: ['X-Real-IP'] } });
    await new Promise((r) => setTimeout(r, CACHE_MS + 50)); // node B's copy of the settings read again at its next request
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  // each round from an address of its own (the trusted proxy's header), so each starts from nothing
  const post = (server: RunningServer, path: string, body: unknown, ip: string) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-real-ip': ip }, body: JSON.stringify(body) }).then((r) => r.status);
  const ROUNDS = 6;

  it('wrong OTP codes sent at once to both nodes: OTP_ATTEMPTS.max are checked in all, round after round', async () => {
    const users = nodeA.core.registry.get('users')!;
    const checked: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ip = `192.0.2.${round + 1}`;
      const user = await adminA.collection('users').create({ email: `otp${round}@example.com`, password: 'limits nodes 1', passwordConfirm: 'limits nodes 1' });
      const res = await fetch(`${nodeA.url}/api/collections/users/request-otp`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-real-ip': ip }, body: JSON.stringify({ email: user.email }) });
      const { otpId } = (await res.json()) as { otpId: string };
      // the code is made and stored after the answer (account-mail.ts requestOTP)
      await expect.poll(async () => (await nodeA.core.store.get('SELECT 1 AS "x" FROM "_otps" WHERE "id" = ?', [otpId])) !== undefined).toBe(true);
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 === 0 ? nodeA : nodeB, '/api/collections/users/auth-with-otp', { otpId, password: `0000000${i % 10}` }, ip)));
      expect(statuses.every((s) => s === 400 || s === 429)).toBe(true);
      const counted = await nodeA.core.store.get<{ n: number }>('SELECT COUNT(*) AS "n" FROM "_mailRequests" WHERE "key" = ?', [otpAttemptKey(users.id, user.id)]);
      checked.push(Number(counted?.n));
    }
    expect(checked).toEqual(Array(ROUNDS).fill(OTP_ATTEMPTS.max));
  });

  it('password-reset requests sent at once to both nodes: REQUEST_LIMIT.max answered in all, the rest 429, round after round', async () => {
    const answered: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ip = `198.51.100.${round + 1}`;
      const statuses = await Promise.all(Array.from({ length: 4 * REQUEST_LIMIT.max }, (_, i) => post(i % 2 === 0 ? nodeA : nodeB, '/api/collections/users/request-password-reset', { email: `nobody${i}@example.com` }, ip)));
      expect(statuses.every((s) => s === 204 || s === 429)).toBe(true);
      answered.push(statuses.filter((s) => s === 204).length);
    }
    expect(answered).toEqual(Array(ROUNDS).fill(REQUEST_LIMIT.max));
  });
});
