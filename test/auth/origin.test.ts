// The CSRF check of cookie sessions over a real socket: a state change (or a cookie sign-in) must carry
// an Origin that is exactly this site's, `http://host:port` as browsers send it.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

let server: RunningServer;
let cookie: string;
let me: string;
beforeAll(async () => {
  ({ server } = await liveServer());
  const r = await http(server.url, 'POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' } });
  me = r.body.id;
  const s = await http(server.url, 'POST', '/api/collections/users/auth-with-password', {
    body: { identity: 'ann@example.com', password: 'password123', cookie: true }, headers: { origin: server.url },
  });
  expect(s.status, s.text).toBe(200);
  cookie = s.headers.get('set-cookie')!.split(';')[0];
});
afterAll(async () => { await server.close(); });

const patch = (origin: string) => http(server.url, 'PATCH', `/api/collections/users/records/${me}`, { headers: { cookie, origin }, body: { name: origin } });

describe('F14: Origin compared as scheme, host and port', () => {
  const site = () => server.url; // http://127.0.0.1:PORT
  it.each([
    ['another scheme', () => site().replace('http:', 'https:')],
    ['a trailing slash', () => `${site()}/`],
    ['user info', () => site().replace('//', '//ann@')],
    ['user info and password', () => site().replace('//', '//ann:pw@')],
    ['a path', () => `${site()}/_/`],
    ['another port', () => site().replace(/:\d+$/, ':1')],
  ])('%s: refused', async (_name, origin) => {
    const r = await patch(origin());
    expect(r.status, r.text).toBe(403);
    const s = await http(server.url, 'POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'ann@example.com', password: 'password123', cookie: true }, headers: { origin: origin() },
    });
    expect(s.status).toBe(400);
    expect(s.headers.get('set-cookie')).toBeNull();
  });

  it('exactly this site (host in any case): allowed', async () => {
    expect((await patch(site())).status).toBe(200);
    const port = new URL(site()).port;
    // fetch sets Host itself: node:http sends the one given
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${site()}/api/collections/users/records/${me}`, {
        method: 'PATCH', headers: { cookie, host: `LOCALHOST:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json' },
      }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ name: 'x' }));
    });
    expect(status).toBe(200);
  });
});
