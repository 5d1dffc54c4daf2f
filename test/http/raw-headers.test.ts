// A request's headers read from node's rawHeaders (server/http/raw-headers.ts) must read exactly as the
// web Headers the app builds from them (fast-reads.ts webHeaders, as srvx): the fast reads key kept
// answers on them and rules read them. Checked on headers as a real node:http server receives them,
// sent as raw bytes over a socket: mixed case, repeats (next to each other and apart), set-cookie,
// names that rules would map to one key (`x-team` / `x_team`), and every order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { RawHeaders } from '../../server/http/raw-headers.js';
import { webHeaders } from '../../server/http/fast-reads.js';

let server: Server;
let port = 0;
let received: IncomingMessage | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    received = req;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends `lines` as the request's header lines, raw, and gives the request as the server got it. */
async function receive(lines: string[]): Promise<IncomingMessage> {
  received = null;
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`));
    socket.on('data', () => undefined);
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  return received!;
}

const CASES: string[][] = [
  [],
  ['X-Team: red', 'x-team: blue'],
  ['x-team: red', 'Accept: */*', 'X-TEAM:   blue  ', 'x-team: green'],
  ['X_Team: under', 'X-Team: dash', 'x-tea: shorter', 'x-teams: longer'],
  ['Set-Cookie: a=1', 'set-cookie: b=2', 'Cookie: c=3', 'cookie: d=4'],
  ['Authorization: Bearer one', 'authorization: Bearer two', 'User-Agent: test/1', 'Referer: http://a.example/'],
  ['Z-Last: 1', 'A-First: 2', 'm-middle: 3', 'A-FIRST: 4', 'Accept-Language: en, fr;q=0.5', 'x-empty:'],
];

describe('headers read from rawHeaders, as the web Headers reads them', () => {
  it.each(CASES.map((lines) => [lines.join(' | ') || '(host only)', lines] as const))('%s', async (_, lines) => {
    const req = await receive(lines);
    const web = webHeaders(req);
    const raw = new RawHeaders(req.rawHeaders);
    expect([...raw]).toEqual([...web]);
    expect([...raw]).toEqual([...raw]); // walked again: the same list
    for (const name of [...new Set(req.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase())), 'absent', 'x-team', 'x_team']) {
      expect(raw.get(name)).toBe(web.get(name));
    }
  });

  it('the order headers arrive in changes nothing (but the order of one name\'s repeats)', async () => {
    const a = new RawHeaders((await receive(['x-a: 1', 'X-B: 2', 'x-c: 3'])).rawHeaders);
    const b = new RawHeaders((await receive(['x-c: 3', 'x-a: 1', 'x-b: 2'])).rawHeaders);
    expect([...a]).toEqual([...b]);
    const c = new RawHeaders((await receive(['x-a: 1', 'x-a: 2'])).rawHeaders);
    const d = new RawHeaders((await receive(['x-a: 2', 'x-a: 1'])).rawHeaders);
    expect(c.get('x-a')).toBe('1, 2');
    expect(d.get('x-a')).toBe('2, 1');
  });
});
