// Password sign-in: the token and record it answers, every failure the same 400 at the same cost, other
// identity fields, auth-methods, and the sign-in block (ten failures per account per 15 minutes) however
// the attempts are timed.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness, signUpUser } from '../support/harness.js';
import { envelope, scenarios } from '../support/scenario.js';
import { type Clocked, clockedApp } from '../support/clocked-app.js';
import net from 'node:net';
import { FailureLimiter, MAX_FAILURES } from '../../server/core/sign-in-limiter.js';
import { ScryptPool, type ScryptParams } from '../../server/core/scrypt-pool.js';
import { startServer, type RunningServer } from '../../server/index.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';

const SIGN_IN = '/api/collections/users/auth-with-password';
const FAILED = envelope(400, 'Failed to authenticate.');

describe('password sign-in, request by request', () => {
  /** The superuser, and Ann signed up with the password password123. */
  const ann = async (h: Harness) => {
    const su = await h.superuser();
    await signUpUser(h, 'ann@example.com', 'password123', { name: 'Ann' });
    return { su };
  };
  scenarios(ann, [
    {
      name: 'returns a 43-character opaque token and the record without secrets',
      method: 'POST', url: SIGN_IN, body: { identity: 'ANN@example.com', password: 'password123' }, status: 200,
      match: { record: { email: 'ann@example.com', name: 'Ann', collectionName: 'users' } },
      notExpectedContent: ['scrypt'],
      after: (r) => {
        expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{9}$/);
        expect(r.body.record.password).toBeUndefined();
      },
    },
    { name: 'a wrong password is the one 400', method: 'POST', url: SIGN_IN, body: { identity: 'ann@example.com', password: 'nope-nope' }, status: 400, json: FAILED },
    { name: 'an unknown identity is the same 400', method: 'POST', url: SIGN_IN, body: { identity: 'who@example.com', password: 'nope-nope' }, status: 400, json: FAILED },
    {
      name: 'authRule failures look like wrong passwords',
      before: async (h, c) => {
        const patch = await h.req('PATCH', '/api/collections/users', { token: c.su, body: { authRule: 'verified = true' } });
        expect(patch.status, patch.text).toBe(200);
      },
      method: 'POST', url: SIGN_IN, body: { identity: 'ann@example.com', password: 'password123' }, status: 400, json: FAILED,
    },
    { name: 'an empty body is a 400', method: 'POST', url: SIGN_IN, body: {}, status: 400 },
    { name: 'an unknown collection is a 404', method: 'POST', url: '/api/collections/nope/auth-with-password', body: { identity: 'a', password: 'b' }, status: 404 },
    {
      name: 'auth-methods lists password sign-in with the identity fields',
      method: 'GET', url: '/api/collections/users/auth-methods', status: 200,
      match: { password: { enabled: true, identityFields: ['email'] }, oauth2: { enabled: false } },
    },
    {
      name: 'auth-methods of a base collection is a 404',
      before: async (h, c) => { await h.req('POST', '/api/collections', { token: c.su, body: { name: 'posts' } }); },
      method: 'GET', url: '/api/collections/posts/auth-methods', status: 404,
    },
  ]);
});

describe('password sign-in, in steps', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const signUp = (email: string, password?: string, extra?: Record<string, unknown>) => signUpUser(h, email, password, extra);

  describe('auth-with-password', () => {
    it('blocks an account after ten failures, even with the right password', async () => {
      await signUp('ann@example.com');
      for (let i = 0; i < 10; i++) {
        const r = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: `wrong-${i}xx` } });
        expect(r.status).toBe(400);
      }
      const right = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'password123' } });
      expect(right.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    });

    it('supports another identity field with a unique index', async () => {
      const users = (await h.req('GET', '/api/collections/users', { token: su })).body;
      const fields = [...users.fields, { name: 'username', type: 'text' }];
      let r = await h.req('PATCH', '/api/collections/users', { token: su, body: { fields } });
      expect(r.status, r.text).toBe(200);
      const username = r.body.fields.find((f: { name: string }) => f.name === 'username');
      r = await h.req('PATCH', '/api/collections/users', { token: su, body: { identityFields: ['email', 'username'] } });
      expect(r.status).toBe(400);
      expect(r.body.data.identityFields.code).toBe('validation_missing_unique_constraint');
      r = await h.req('PATCH', '/api/collections/users', { token: su, body: { indexes: [{ name: 'idx_username', fields: [username.id], unique: true }], identityFields: ['email', 'username'] } });
      expect(r.status, r.text).toBe(200);
      await signUp('bob@example.com', 'password123', { username: 'bobby' });
      const login = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'bobby', password: 'password123' } });
      expect(login.status).toBe(200);
    });
  });

  describe('FailureLimiter', () => {
    it('blocks after ten failures for the rest of the 15-minute window, then opens again', async () => {
      const { FailureLimiter, FAILURE_WINDOW_MS } = await import('../../server/core/sign-in-limiter.js');
      let now = 1_000_000;
      const limiter = new FailureLimiter(() => now);
      const fail = (key: string) => limiter.settle(limiter.reserve(key)!, false);
      const blocked = (key: string) => {
        const attempt = limiter.reserve(key);
        if (attempt) limiter.settle(attempt, true); // a probe that succeeds would reset the count: undo it
        return attempt === null;
      };
      for (let i = 0; i < 9; i++) fail('a');
      expect(limiter.reserve('a')).not.toBeNull(); // the tenth attempt may run...
      expect(limiter.reserve('a')).toBeNull(); // ...and while it runs, an eleventh may not
      now += FAILURE_WINDOW_MS; // (the two reservations above lapse with their window)
      for (let i = 0; i < 10; i++) fail('a');
      expect(blocked('a')).toBe(true);
      expect(blocked('b')).toBe(false);
      now += FAILURE_WINDOW_MS - 1;
      expect(blocked('a')).toBe(true);
      now += 1;
      expect(blocked('a')).toBe(false);
    });
  });
});

describe('the block and timing on a fake clock', () => {
  let app: Clocked;
  beforeEach(async () => {
    app = await clockedApp();
  });
  afterEach(async () => { await app.close(); });

  const signIn: Clocked['signIn'] = (...args) => app.signIn(...args);

  describe('the sign-in block', () => {
    const fail = (identity = 'ann@example.com') => signIn(identity, 'wrong password');

    it('ten failures block the account for the rest of the 15-minute window, answering like a wrong password', async () => {
      const wrong = await fail();
      for (let i = 1; i < 10; i++) await fail(i % 2 ? 'ANN@example.com' : 'ann@EXAMPLE.com'); // any spelling counts
      const blocked = await signIn('ann@example.com', 'password123');
      expect(blocked.status).toBe(wrong.status);
      expect(blocked.body).toEqual(wrong.body);
      expect(blocked.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
      // other accounts are not affected
      expect((await signIn('bob@example.com', 'password123')).status).toBe(200);
      app.now.t += 14 * 60 * 1000;
      expect((await signIn('ann@example.com', 'password123')).status).toBe(400);
      app.now.t += 60 * 1000 + 1;
      expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
    });

    it('nine failures do not block, and a success starts the count again', async () => {
      for (let i = 0; i < 9; i++) await fail();
      expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
      for (let i = 0; i < 9; i++) await fail();
      expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
    });

    it('failures against unknown e-mails block nobody real', async () => {
      for (let i = 0; i < 12; i++) await fail(`nobody${i % 2}@example.com`);
      expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
    });
  });

  describe('timing', () => {
    it('unknown identities and wrong passwords take about the same time (each costs one hash)', async () => {
      const time = async (identity: string) => {
        const t0 = performance.now();
        await signIn(identity, 'wrong password');
        return performance.now() - t0;
      };
      const unknown: number[] = [];
      const wrong: number[] = [];
      // interleaved so that load on the machine hits both alike; different accounts so none is blocked
      for (let i = 0; i < 8; i++) {
        unknown.push(await time(`ghost${i}@example.com`));
        wrong.push(await time(i % 2 ? 'ann@example.com' : 'bob@example.com'));
      }
      const mean = (xs: number[]) => xs.reduce((a, c) => a + c, 0) / xs.length;
      const ratio = mean(unknown) / mean(wrong);
      expect(mean(wrong)).toBeGreaterThan(10); // a real hash ran
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    });
  });
});

describe('under concurrency', () => {
  // The sign-in block holds however the attempts are timed. It used to read the failure count before the
  // (asynchronous) password check and record the failure after it, so a burst of wrong passwords sent at
  // once all saw "no failures yet", and the right password at the end of the burst signed in. Now each
  // attempt is reserved before its check: at most ten checks per account per window, the rest refused.

  /** The server's real pool, counting the hashes asked of it: what the server has taken in of a burst. */
  class CountedPool extends ScryptPool {
    asked = 0;
    override derive(password: string, salt: Uint8Array, keylen: number, options: ScryptParams, client?: string): Promise<Buffer> {
      this.asked++;
      return super.derive(password, salt, keylen, options, client);
    }
  }
  let pool: CountedPool;
  let server: RunningServer;
  beforeAll(async () => {
    pool = new CountedPool();
    server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hashPool: pool });
    await setupSuperuser(server.url, (await server.setupToken())!);
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
   * `wrong` wrong passwords sent at once on open connections, then, once the server has taken each in
   * (its attempt counted, its hash asked of the pool: a check or, blocked, the same cost), the right one.
   */
  async function burstThenRight(identity: string, wrong: number): Promise<number[]> {
    const sockets = await Promise.all(Array.from({ length: wrong + 1 }, () => connection()));
    const before = pool.asked;
    const first = sockets.slice(0, wrong).map((s, i) => s.send(identity, `wrong-${i}-password`));
    await expect.poll(() => pool.asked - before, { interval: 2, timeout: 10_000 }).toBe(wrong);
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
});
