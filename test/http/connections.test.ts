// F11: connections are bounded, against a server in its own process with lowered limits: one address
// cannot take more than its share, the server never accepts more than it has descriptors for, a
// connection that goes quiet (slow headers, a stalled body) is closed, and a client that abandons its
// body is logged as one line without a stack. (1,100 connections trickling bodies under a 1,024
// descriptor limit used to leave the server refusing everyone for as long as they kept at it.) One
// connection over an address's share is answered with the envelope's 503 and Retry-After, not reset.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxConnections } from '../../server/http/connections.js';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { workWatch } from '../fixtures/health-poll.js';

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

/**
 * Opens a connection from `from`; resolves once connected, with when it closed as a promise: ms after
 * opening, as wall-clock time (what the server's timers count) and as the server's work made it
 * (workWatch: less what a machine loaded by others adds while the server waits for a CPU).
 */
async function open(from: string, send = ''): Promise<{ socket: net.Socket; closed: Promise<{ wall: number; worked: number }>; answer: () => string }> {
  const took = workWatch(child.proc.pid!);
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<{ wall: number; worked: number }>((resolve) => socket.once('close', () => resolve(took())));
  await new Promise((resolve) => socket.once('connect', resolve));
  if (send) socket.write(send);
  return { socket, closed, answer: () => answer };
}

const partialBody = `POST /api/collections/users/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"email":"`;
const health = () => fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status);

describe('F11: connections', () => {
  it('one address holds at most its share; one more is answered 503 and closed at once; others are still served', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.perAddress }, () => open('127.0.0.2', partialBody)));
    try {
      const extra = await open('127.0.0.2', partialBody);
      expect((await extra.closed).worked).toBeLessThan(LIMITS.idleMs / 2); // not left to go idle
      const [head, body] = extra.answer().split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(head).toContain('\r\nRetry-After: 1\r\n');
      expect(head).toContain('\r\nConnection: close');
      expect(JSON.parse(body)).toEqual({ status: 503, message: 'Too many connections from this address at once; try again in a moment.', data: {} });
      // a client that connects and says nothing is answered too, and closed
      const silent = await open('127.0.0.2');
      expect((await silent.closed).worked).toBeLessThan(LIMITS.idleMs);
      expect(silent.answer()).toMatch(/^HTTP\/1\.1 503 /);
      expect(await health()).toBe(200);
    } finally {
      for (const h of held) h.socket.destroy();
    }
  });

  it('no more connections than the limit, whoever opens them', async () => {
    const many = await Promise.all(Array.from({ length: LIMITS.maxConnections }, (_, i) => open(`127.0.3.${i + 2}`, 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n')));
    const extra = await open('127.0.4.2');
    expect((await extra.closed).worked).toBeLessThan(LIMITS.idleMs / 2);
    for (const m of many) m.socket.destroy();
    // the server counts the closed connections out as it sees them close: it serves again
    await expect.poll(health, { timeout: 5_000, interval: 20 }).toBe(200);
  });

  it('a stalled body and unfinished headers are closed once idle, and the abandoned body is one log line', async () => {
    const before = child.lines.length;
    const body = await open('127.0.0.5', partialBody);
    const headers = await open('127.0.0.6', 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const [b, h] = await Promise.all([body.closed, headers.closed]);
    for (const ms of [b, h]) {
      expect(ms.wall).toBeGreaterThanOrEqual(LIMITS.idleMs - 100);
      expect(ms.worked).toBeLessThan(LIMITS.idleMs + 2000);
    }
    const logged = () => child.lines.slice(before).filter((l) => l.startsWith('log ') && l.includes('"level":"'));
    const aborts = () => logged().filter((l) => l.includes('client closed the connection before its body was received'));
    await expect.poll(() => aborts().length, { timeout: 5_000, interval: 10 }).toBeGreaterThan(0); // the child's log line has come
    expect(await health()).toBe(200);
    expect(aborts()).toHaveLength(1);
    expect(logged().some((l) => l.includes('"level":"error"') || l.includes('    at '))).toBe(false);
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

// The per-address cap under the process-wide one: over it the server still has descriptors to answer
// with. (A server of its own process, as a script's server would be: in one process the client's
// connects and the server's accepts take turns, and the requests never overlap.)
describe('over the per-address cap', () => {
  const localDir = mkdtempSync(join(tmpdir(), 'deskbase-conns-'));
  let server: Child;
  const local = { url: '', port: 0 };
  beforeAll(async () => {
    server = runChild(await bundle('test/fixtures/hardening-server.ts'), [localDir, String(1 << 20)], { env: { DESKBASE_TEST_LIMITS: JSON.stringify({ perAddress: 6, maxConnections: 1000 }) } });
    local.url = new URL((await server.line((l) => l.startsWith('url '))).slice(4)).origin;
    local.port = Number(new URL(local.url).port);
  }, 30_000);
  afterAll(async () => {
    await server?.kill();
    rmSync(localDir, { recursive: true, force: true });
  });

  it('a script\'s 200 parallel requests from one address each get an answer, 200 or an enveloped 503, never a reset', async () => {
    // the address's share held first, so that every one of the 200 is over it (left to chance, the
    // requests of a quiet fast machine may never overlap six at once, and none would be refused): the
    // server takes connections in the order they were made, so these six are counted before any of them
    const held = await Promise.all(Array.from({ length: 6 }, () => new Promise<net.Socket>((resolve) => {
      const socket = net.connect({ port: local.port, host: '127.0.0.1', localAddress: '127.0.0.7' }, () => resolve(socket));
      socket.on('error', () => undefined);
      socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never finished
    })));
    const one = () => new Promise<{ status: number; retryAfter?: string; body: string } | { error: string }>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: local.port, path: '/api/health', localAddress: '127.0.0.7', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      req.end();
    });
    let answers: Awaited<ReturnType<typeof one>>[];
    try {
      answers = await Promise.all(Array.from({ length: 200 }, one));
    } finally {
      for (const h of held) h.destroy();
    }
    expect(answers.filter((a) => 'error' in a)).toEqual([]);
    const refused = answers.filter((a) => 'status' in a && a.status === 503) as { status: number; retryAfter?: string; body: string }[];
    expect(refused).toHaveLength(200);
    for (const r of refused) {
      expect(r.retryAfter).toBe('1');
      expect(JSON.parse(r.body)).toMatchObject({ status: 503, data: {} });
    }
    // the share free again (the server counts the held ones out as it sees them close)
    await expect.poll(() => fetch(`${local.url}/api/health`).then((r) => r.status), { timeout: 5_000, interval: 20 }).toBe(200);
    // fetch (undici) sees the same: a Response, not a TypeError from a reset socket
    const fetched = await Promise.all(Array.from({ length: 200 }, () => fetch(`${local.url}/api/health`).then((r) => r.status, (e: Error) => `${e.message} ${String((e as { cause?: unknown }).cause)}`)));
    expect(fetched.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  });
});

describe('the server at work is not an idle connection', () => {
  it('an answer that takes longer than the idle time arrives; a client that then stalls is still closed', async () => {
    const { createServer } = await import('node:http');
    const { limitConnections } = await import('../../server/http/connections.js');
    const idleMs = 300;
    // answers after three idle times of silence (a backup of a large database), then streams a body
    // its client never reads
    const server = createServer((req, res) => {
      setTimeout(() => {
        if (req.url === '/slow') res.end('done');
        else {
          res.writeHead(200);
          res.write(Buffer.alloc(8 * 1024 * 1024)); // more than the socket's buffers take: the writer waits on the reader
        }
      }, 3 * idleMs);
    });
    limitConnections(server, { idleMs });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const t0 = performance.now();
      const answer = await new Promise<string>((resolve, reject) => {
        httpRequest({ port, host: '127.0.0.1', path: '/slow' }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        }).on('error', reject).end();
      });
      expect(answer).toBe('done');
      expect(performance.now() - t0).toBeGreaterThanOrEqual(3 * idleMs - 20);

      // a client that sends its request and never reads the answer: the server closes its side once idle
      // after the answer began
      const took = workWatch(process.pid); // (the server is in this process)
      const closed = new Promise<{ wall: number; worked: number }>((resolve) => {
        server.once('connection', (accepted: net.Socket) => accepted.on('close', () => resolve(took())));
      });
      const socket = net.connect(port, '127.0.0.1');
      socket.pause();
      socket.on('error', () => {}); // the server's reset
      socket.write('GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const ms = await closed;
      socket.destroy();
      expect(ms.wall).toBeGreaterThanOrEqual(4 * idleMs - 50);
      expect(ms.worked).toBeLessThan(3 * idleMs + 2_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
