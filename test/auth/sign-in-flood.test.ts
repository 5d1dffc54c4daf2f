// F10: password hashes are a shared cost, bounded. One address flooding sign-ins (unknown identities
// still cost a hash) gets 429s past its share, and a sign-in from another address is served at once
// instead of waiting behind the whole flood (2,000 of them made a real one wait 16.6 s); past the global
// queue everyone gets a 429 at once rather than a long wait.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WAITING_HASHES, PER_CLIENT_HASHES } from '../../server/core/scrypt-pool.js';
import { clientKey } from '../../server/http/client-key.js';
import type { RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

let server: RunningServer;
beforeAll(async () => {
  ({ server } = await liveServer());
  const r = await http(server.url, 'POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' } });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => { await server.close(); });

/** A sign-in from the loopback address `from` (all of 127.0.0.0/8 reaches a server on 127.0.0.1). */
function signIn(from: string, identity: string, password: string): Promise<{ status: number; message: string; at: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/api/collections/users/auth-with-password`, {
      method: 'POST', localAddress: from, agent: false, headers: { 'content-type': 'application/json' },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, message: (JSON.parse(text) as { message: string }).message, at: performance.now() }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ identity, password }));
  });
}

describe('F10: sign-in floods', () => {
  it('a flood from one address does not hold up a sign-in from another', async () => {
    const flood = Array.from({ length: 150 }, (_, i) => signIn('127.0.0.1', `nobody${i}@example.com`, 'wrong password'));
    // the server has read the flood past this address's share once it refuses one of them at once
    await Promise.any(flood.map((p) => p.then((a) => (a.status === 429 ? a : Promise.reject(new Error(String(a.status)))))));
    const real = await signIn('127.0.0.2', 'ann@example.com', 'password123');
    expect(real.status).toBe(200);
    const answers = await Promise.all(flood);
    const hashedBefore = answers.filter((a) => a.status === 400 && a.at < real.at).length;
    // at most this address's share of hashes went ahead of the real one (all 150 did before)
    expect(hashedBefore).toBeLessThanOrEqual(PER_CLIENT_HASHES * 2);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(150 - PER_CLIENT_HASHES * 2);
    expect(refused[0].message).toBe('Too Many Requests.');
    expect(answers.every((a) => a.status === 429 || (a.status === 400 && a.message === 'Failed to authenticate.'))).toBe(true);
  });

  it('past the global queue, sign-ins from many addresses get a 429 at once', async () => {
    const from = Array.from({ length: MAX_WAITING_HASHES + 40 }, (_, i) => `127.0.${1 + (i >> 8)}.${(i & 255) + 2}`);
    const answers = await Promise.all(from.map((a, i) => signIn(a, `nobody${i}@example.com`, 'wrong password')));
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 400).length).toBeGreaterThanOrEqual(MAX_WAITING_HASHES);
    const after = await signIn('127.0.0.9', 'ann@example.com', 'password123');
    expect(after.status).toBe(200);
  });

  it('a sign-in refused with a 429 is no failure against the account', async () => {
    // this address's share of hashes is taken, then twelve wrong passwords for ann arrive from it
    const busy = Array.from({ length: PER_CLIENT_HASHES }, (_, i) => signIn('127.0.0.3', `busy${i}@example.com`, 'wrong password'));
    // the share is taken once one more sign-in from the address (an unknown identity) is refused at once
    const probes: Promise<unknown>[] = [];
    await expect.poll(async () => {
      const probe = signIn('127.0.0.3', `probe${probes.length}@example.com`, 'wrong password');
      probes.push(probe);
      return (await probe).status;
    }, { timeout: 10_000, interval: 5 }).toBe(429);
    const wrong = await Promise.all(Array.from({ length: 12 }, () => signIn('127.0.0.3', 'ann@example.com', 'wrong password')));
    // (a few may find a slot freed by a finished hash: those are checked, and fail)
    expect(wrong.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(6);
    await Promise.all([...busy, ...probes]);
    // ten failures would block the account for 15 minutes; none were counted
    expect((await signIn('127.0.0.4', 'ann@example.com', 'password123')).status).toBe(200);
  });

  it('client keys: IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64', () => {
    expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey(undefined)).toBe('');
  });
});
