// F11: connections are bounded, against a server in its own process with lowered limits: one address
// cannot take more than its share, the server never accepts more than it has descriptors for, a
// connection that goes quiet (slow headers, a stalled body) is closed, and a client that abandons its
// body is logged as one line without a stack. (1,100 connections trickling bodies under a 1,024
// descriptor limit used to leave the server refusing everyone for as long as they kept at it.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxConnections } from '../../server/http/connections.js';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';

const LIMITS = { perAddress: 6, maxConnections: 24, idleMs: 1500 };
const dir = mkdtempSync(join(tmpdir(), 'deskbase-conns-'));
let child: Child;
let port: number;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  child = runChild(await bundle('test/fixtures/hardening-server.ts'), [dir, String(1 << 20), 'verbose'], { env: { DESKBASE_TEST_LIMITS: JSON.stringify(LIMITS) } });
  port = Number(new URL((await child.line((l) => l.startsWith('url '))).slice(4)).port);
}, 30_000);
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a connection from `from`; resolves once connected, with when it closed (ms after opening) as a promise. */
async function open(from: string, send = ''): Promise<{ socket: net.Socket; closed: Promise<number>; answer: () => string }> {
  const t0 = performance.now();
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - t0)));
  await new Promise((resolve) => socket.once('connect', resolve));
  if (send) socket.write(send);
  return { socket, closed, answer: () => answer };
}

const partialBody = `POST /api/collections/users/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"email":"`;
const health = () => fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status);

describe('F11: connections', () => {
  it('one address holds at most its share; others are still served', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.perAddress }, () => open('127.0.0.2', partialBody)));
    const extra = await open('127.0.0.2', partialBody);
    expect(await extra.closed).toBeLessThan(LIMITS.idleMs / 2); // closed at once, unanswered
    expect(extra.answer()).toBe('');
    expect(await health()).toBe(200);
    for (const h of held) h.socket.destroy();
  });

  it('no more connections than the limit, whoever opens them', async () => {
    const many = await Promise.all(Array.from({ length: LIMITS.maxConnections }, (_, i) => open(`127.0.3.${i + 2}`, 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n')));
    const extra = await open('127.0.4.2');
    expect(await extra.closed).toBeLessThan(LIMITS.idleMs / 2);
    for (const m of many) m.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await health()).toBe(200);
  });

  it('a stalled body and unfinished headers are closed once idle, and the abandoned body is one log line', async () => {
    const before = child.lines.length;
    const body = await open('127.0.0.5', partialBody);
    const headers = await open('127.0.0.6', 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const [b, h] = await Promise.all([body.closed, headers.closed]);
    for (const ms of [b, h]) {
      expect(ms).toBeGreaterThanOrEqual(LIMITS.idleMs - 100);
      expect(ms).toBeLessThan(LIMITS.idleMs + 2000);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logged = child.lines.slice(before).filter((l) => l.startsWith('log ') && l.includes('"level":"'));
    const aborts = logged.filter((l) => l.includes('client closed the connection before its body was received'));
    expect(aborts).toHaveLength(1);
    expect(logged.some((l) => l.includes('"level":"error"') || l.includes('    at '))).toBe(false);
    expect(await health()).toBe(200);
  });

  it('the default limit is the descriptor limit less a reserve', () => {
    const file = join(dir, 'limits');
    writeFileSync(file, 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 1048576              files\n');
    expect(defaultMaxConnections(file)).toBe(1024 - 128);
    writeFileSync(file, 'Max open files            unlimited            unlimited            files\n');
    expect(defaultMaxConnections(file)).toBe(4096);
    expect(defaultMaxConnections(join(dir, 'missing'))).toBe(1024);
  });
});
