// The sign-in block holds however the attempts are timed. It used to read the failure count before the
// (asynchronous) password check and record the failure after it, so a burst of wrong passwords sent at
// once all saw "no failures yet", and the right password at the end of the burst signed in. Now each
// attempt is reserved before its check: at most ten checks per account per window, the rest refused.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailureLimiter, MAX_FAILURES } from '../server/core/auth.js';
import type { RunningServer } from '../server/index.js';
import { http, liveServer } from './fixtures/hardening-http.js';

let server: RunningServer;
beforeAll(async () => {
  ({ server } = await liveServer());
  for (const email of ['ann@example.com', 'bob@example.com']) {
    const r = await http(server.url, 'POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } });
    expect(r.status, r.text).toBe(200);
  }
});
afterAll(async () => { await server.close(); });

const signIn = (identity: string, password: string) =>
  http(server.url, 'POST', '/api/collections/users/auth-with-password', { body: { identity, password } });

/**
 * A connected socket that sends one sign-in when told and resolves with its answer's status. Each from a
 * loopback address of its own: one address may have only a few password hashes under way at once.
 */
let nextAddress = 2;
async function connection(): Promise<{ send(identity: string, password: string): Promise<number> }> {
  const socket = net.connect({ port: server.port, host: '127.0.0.1', localAddress: `127.0.1.${nextAddress++ % 250 + 2}` });
  await new Promise((resolve) => socket.once('connect', resolve));
  return {
    send(identity, password) {
      const body = JSON.stringify({ identity, password });
      return new Promise((resolve, reject) => {
        let data = '';
        socket.on('data', (chunk: Buffer) => {
          data += chunk.toString('latin1');
          if (!data.includes('\r\n')) return;
          socket.destroy(); // the status line is all this test reads
          resolve(Number(data.split(' ')[1]));
        });
        socket.on('error', reject);
        socket.write(
          `POST /api/collections/users/auth-with-password HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
    },
  };
}

/**
 * `wrong` wrong passwords sent at once on open connections, then, once the server has read them (a
 * turn of the loop; their password checks take a hash each, far longer), the right one.
 */
async function burstThenRight(identity: string, wrong: number): Promise<number[]> {
  const sockets = await Promise.all(Array.from({ length: wrong + 1 }, () => connection()));
  const first = sockets.slice(0, wrong).map((s, i) => s.send(identity, `wrong-${i}-password`));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return Promise.all([...first, sockets[wrong].send(identity, 'password123')]);
}

describe('the sign-in block under concurrency', () => {
  it('a burst of wrong passwords, then the right one while they are checked: the right one is refused', async () => {
    const statuses = await burstThenRight('ann@example.com', 30);
    expect(statuses).toEqual(statuses.map(() => 400));
    // still blocked afterwards, and the block is per account
    expect((await signIn('ann@example.com', 'password123')).status).toBe(400);
    expect((await signIn('bob@example.com', 'password123')).status).toBe(200);
  });

  it('ten wrong attempts under way, then the right password: the eleventh is never checked', async () => {
    const statuses = await burstThenRight('bob@example.com', MAX_FAILURES);
    expect(statuses).toEqual(Array.from({ length: MAX_FAILURES + 1 }, () => 400));
  });
});

describe('FailureLimiter reservations', () => {
  it('counts an attempt from before its check: ten may run at once, the eleventh is refused', () => {
    const limiter = new FailureLimiter(() => 0);
    const running = Array.from({ length: MAX_FAILURES }, () => limiter.reserve('acct'));
    expect(running.every((a) => a !== null)).toBe(true);
    expect(limiter.reserve('acct')).toBeNull();
    // one succeeds: the failures so far are forgiven, the nine still running still count
    limiter.settle(running[0]!, true);
    expect(limiter.reserve('acct')).not.toBeNull();
    expect(limiter.reserve('acct')).toBeNull();
    expect(limiter.reserve('other')).not.toBeNull();
  });
});
