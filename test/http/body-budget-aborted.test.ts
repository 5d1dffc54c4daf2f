// The bytes a request body takes from the budget of bodies in flight (bodies-in-flight.ts) come back
// when its connection closes, even when it closed before its body began to be read: a caller whose
// session is looked up first (a token the store has to read, behind a write) and who hangs up
// meanwhile must not keep its declared length taken for good (each such request shrank the budget
// until every body got the 503). Through the create served without h3 (fast-creates.ts) and the app.
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';

let server: RunningServer;
let su = '';
beforeAll(async () => {
  server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, limits: { bodyBytesInFlight: 1024 * 1024 } });
  su = await setupSuperuser(server.url, (await server.setupToken())!);
  const r = await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text', max: 1_000_000 }], createRule: '' } });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => { await server.close(); });

/** A fresh user's token: its first request reads its session from the store. */
async function freshToken(n: number): Promise<string> {
  const email = `aborted${n}@example.com`;
  const made = await http(server.url, 'POST', '/api/collections/users/records', { token: su, body: { email, password: 'aborted body 1', passwordConfirm: 'aborted body 1' } });
  expect(made.status, made.text).toBe(200);
  const signed = await http(server.url, 'POST', '/api/collections/users/auth-with-password', { body: { identity: email, password: 'aborted body 1' } });
  return (JSON.parse(signed.text) as { token: string }).token;
}

/** Headers declaring `bytes` and a few of them sent, then the connection closed while a write holds the store. */
async function hangUpWhileLookedUp(token: string, bytes: number, cookie: boolean, on = server, head = 'POST /api/collections/notes/records', type = 'application/json', agent = 'hung-up'): Promise<void> {
  let release = () => {};
  const held = on.core.store.write(() => new Promise<void>((resolve) => (release = resolve)));
  const socket = net.connect(on.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(`${head} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nAuthorization: ${token}\r\nUser-Agent: ${agent}\r\n${cookie ? 'Cookie: unrelated=1\r\n' : ''}Content-Length: ${bytes}\r\n\r\n{"text":"`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  await closed;
  await new Promise((resolve) => setTimeout(resolve, 50)); // the server sees the close
  release();
  await held;
}

describe('bodies in flight of requests that hung up', () => {
  it('give their bytes back, through the fast create and through the app', async () => {
    for (const [i, cookie] of [false, true].entries()) {
      await hangUpWhileLookedUp(await freshToken(i), 600_000, cookie);
      await new Promise((resolve) => setTimeout(resolve, 100)); // its session read, its body looked at
      // a large body is still taken: 600,000 bytes held for good would leave it a 503
      const r = await http(server.url, 'POST', '/api/collections/notes/records', { token: su, body: { text: 'x'.repeat(900_000) } });
      expect(r.status, cookie ? 'through the app' : 'through the fast create').toBe(200);
      expect(server.bodyBytesInFlight()).toBe(0);
    }
  });
});

describe('a restore whose uploader hung up before its body was taken', () => {
  it('ends, so the next restore is not refused as running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deskbase-restore-aborted-'));
    const durable = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
    try {
      await setupSuperuser(durable.url, (await durable.setupToken())!);
      // a fresh sign-in: its first request reads the session from the store (held by a write)
      const signed = await http(durable.url, 'POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } });
      const token = signed.body.token as string;
      await hangUpWhileLookedUp(token, 600_000, false, durable, 'POST /api/backup/restore', 'application/zip');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const next = await http(durable.url, 'POST', '/api/backup/restore', { token, raw: 'not a zip', headers: { 'content-type': 'application/zip' } });
      expect(next.text).not.toContain('another restore is running');
      expect(next.status).toBe(400);
    } finally {
      await durable.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a multipart create whose client hung up before its body was read', () => {
  it('is answered (and logged) instead of waiting for good', async () => {
    const token = await freshToken(9);
    await hangUpWhileLookedUp(token, 600_000, false, server, 'POST /api/collections/notes/records', 'multipart/form-data; boundary=xyz', 'hung-up-multipart');
    await expect.poll(async () => {
      await server.logs.logger.flush();
      const r = await http(server.url, 'GET', `/api/logs?filter=${encodeURIComponent("data.userAgent = 'hung-up-multipart'")}`, { token: su });
      return (r.body as { items: { data: { status: number } }[] }).items.map((i) => i.data.status);
    }, { interval: 50, timeout: 3_000 }).toEqual([400]);
  });
});
