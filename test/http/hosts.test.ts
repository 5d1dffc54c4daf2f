// DNS rebinding: a page on attacker.example can point its name at 127.0.0.1 and then talk to a
// loopback-only Deskbase as its own origin; the browser still sends `Host: attacker.example`. A server
// bound to loopback now answers only Hosts that are loopback names or addresses (421 in the envelope
// otherwise, before any session cookie is read or set); shared on the LAN, the machine's own addresses
// and names are accepted too. rebind() switches the policy with the binding.
import { request } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { engineServerOptions } from '../support/test-store.js';

let server: RunningServer;
let port: number;
beforeAll(async () => {
  server = await startServer({ dir: null, host: '127.0.0.1', port: 0, uiDir: null, log: () => undefined, ...engineServerOptions() });
  port = server.port;
  await setupSuperuser(server.url, (await server.setupToken())!);
  await http(server.url, 'POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' } });
});
afterAll(async () => { await server.close(); });

interface Answer { status: number; body: string; cookie: string | undefined }

/** A request to 127.0.0.1 carrying `host` as its Host header. */
function withHost(host: string, path = '/api/health', opts: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = request({
      host: '127.0.0.1', port, path, method: opts.method ?? 'GET', setHost: false, agent: false,
      headers: { host, ...(body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, cookie: res.headers['set-cookie']?.join() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const refused = { status: 421, message: 'The Host header does not name this server.', data: {} };

describe('bound to loopback', () => {
  it.each([
    'attacker.example', 'attacker.example:PORT', 'ATTACKER.example:PORT', '127.0.0.1.nip.io:PORT', 'localhost.attacker.example:PORT',
    'localhost:PORT.attacker.example', 'evil@127.0.0.1:PORT', '0.0.0.0:PORT', '[::2]:PORT', '192.168.1.5:PORT', 'a b', '',
  ])('Host %s is refused (421)', async (host) => {
    const r = await withHost(host.replace('PORT', String(port)));
    if (host === '') {
      expect(r.status).toBe(200); // an empty Host is no name at all, as no Host
      return;
    }
    expect(r.status).toBe(421);
    expect(JSON.parse(r.body)).toEqual(refused);
  });

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', 'localhost.:PORT', 'app.localhost:PORT', '[::1]:PORT', '127.1:PORT', '127.0.0.2'])(
    'Host %s is served', async (host) => {
      const r = await withHost(host.replace('PORT', String(port)));
      expect(r.status).toBe(200);
    },
  );

  it('a rebound name cannot sign in with a cookie, use one, or load the admin UI', async () => {
    const evil = `attacker.example:${port}`;
    const signIn = await withHost(evil, '/api/collections/users/auth-with-password', {
      method: 'POST', body: { identity: 'ann@example.com', password: 'password123', cookie: true }, headers: { origin: `http://${evil}` },
    });
    expect(signIn.status).toBe(421);
    expect(signIn.cookie).toBeUndefined();
    // the same sign-in from this machine's name works, so the cookie is real
    const ok = await withHost(`127.0.0.1:${port}`, '/api/collections/users/auth-with-password', {
      method: 'POST', body: { identity: 'ann@example.com', password: 'password123', cookie: true }, headers: { origin: `http://127.0.0.1:${port}` },
    });
    expect(ok.status).toBe(200);
    const cookie = (ok.cookie ?? '').split(';')[0];
    const session = await withHost(evil, '/api/session', { headers: { cookie } });
    expect(session.status).toBe(421);
    expect((await withHost(evil, '/_/')).status).toBe(421);
    expect((await withHost(evil, '/api/health', { method: 'OPTIONS' })).status).toBe(421);
  });
});

describe('shared on the LAN', () => {
  const lan = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

  it('accepts the machine\'s own addresses and names, still refuses others, and stops when sharing stops', async () => {
    await server.rebind('0.0.0.0');
    try {
      expect((await withHost(`127.0.0.1:${port}`)).status).toBe(200);
      expect((await withHost(`${hostname()}:${port}`)).status).toBe(200);
      expect((await withHost(`${hostname().split('.')[0]}.local:${port}`)).status).toBe(200);
      if (lan) expect((await withHost(`${lan}:${port}`)).status).toBe(200);
      expect((await withHost(`attacker.example:${port}`)).status).toBe(421);
    } finally {
      await server.rebind('127.0.0.1');
    }
    if (lan) expect((await withHost(`${lan}:${port}`)).status).toBe(421);
    expect((await withHost(`${hostname()}:${port}`)).status).toBe(hostname() === 'localhost' ? 200 : 421);
  });
});
