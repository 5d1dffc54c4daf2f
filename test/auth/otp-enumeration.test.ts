// request-otp answers the same `{otpId}` whatever the e-mail; auth-with-otp with that id must not tell
// either. An attacker holding the otpId of an e-mail no account has redeems it as one of a real account:
// the same 400 for a wrong code, the same 429 once the attempts are spent, and a hash run for each
// attempt (seen here with the server's password pool held full: a check that needs a hash is the pool's
// 429). Over a real socket with the official SDK.
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClientResponseError } from 'pocketbase';
import { failure, sdkSuite, startSdkServer } from '../support/sdk-server.js';
import { closedPort, eventually } from '../support/smtp.js';
import { ScryptPool } from '../../server/core/scrypt-pool.js';
import { OTP_ATTEMPTS } from '../../server/core/account-mail.js';

const require = createRequire(import.meta.url);
const PASSWORD = 'password123';
// the pool's one worker and its one waiting place can be held (test/fixtures/sleeping-bcrypt.cjs)
const pool = new ScryptPool({ size: 1, maxWaiting: 1, jobMs: 5_000 });

describe('auth-with-otp does not tell whether the e-mail of its otpId has an account', () => {
  const sdk = sdkSuite({ hashPool: pool });

  beforeAll(async () => {
    await sdk.admin.collections.update('users', { otp: { enabled: true, duration: 300, length: 6 } });
    for (const email of ['ann@example.com', 'bob@example.com']) {
      await sdk.admin.collection('users').create({ email, password: PASSWORD, passwordConfirm: PASSWORD });
    }
  });

  /** The otpIds of an e-mail no account has and of a known one, once the work that follows each answer (the lookup, the code's hash, the row) is done. */
  const requested = async (unknownEmail: string, knownEmail: string): Promise<[known: string, unknown: string]> => {
    const unknown = (await sdk.client().collection('users').requestOTP(unknownEmail)).otpId;
    const known = (await sdk.client().collection('users').requestOTP(knownEmail)).otpId;
    // (the unknown one's row too: attempts made before it exists would be fewer hashes)
    for (const id of [known, unknown]) await eventually(async () => expect(await sdk.server.core.store.get('SELECT 1 AS "x" FROM "_otps" WHERE "id" = ?', [id])).toBeDefined());
    return [known, unknown];
  };
  const attempt = (otpId: string) => failure(sdk.client().collection('users').authWithOTP(otpId, '0000000'));
  const answer = (e: ClientResponseError) => ({ status: e.status, body: e.response });

  it('a wrong code is the same 400 for both, and the attempts run out alike: the same 429', async () => {
    const [known, unknown] = await requested('ghost@example.com', 'ann@example.com');
    for (let i = 0; i < OTP_ATTEMPTS.max; i++) {
      const [a, b] = [await attempt(known), await attempt(unknown)];
      expect(answer(a)).toEqual({ status: 400, body: { status: 400, message: 'Invalid or expired OTP.', data: {} } });
      expect(answer(b)).toEqual(answer(a));
    }
    const [a, b] = [await attempt(known), await attempt(unknown)];
    expect(answer(a)).toEqual({ status: 429, body: { status: 429, message: 'Too many attempts, please try again later with a new OTP.', data: {} } });
    expect(answer(b)).toEqual(answer(a));
  });

  it('each attempt costs a hash for both: with the password pool full both are its 429', async () => {
    const [known, unknown] = await requested('ghost2@example.com', 'bob@example.com');
    const sleeping = require.resolve('../fixtures/sleeping-bcrypt.cjs');
    const held = [0, 1].map(() => pool.bcryptCompare('pw', '$2b$10$', sleeping));
    try {
      // (both at once, well within the 1.5 s the pool is held for)
      const [a, b] = await Promise.all([attempt(known), attempt(unknown)]);
      expect(answer(a)).toEqual({ status: 429, body: { status: 429, message: 'Too Many Requests.', data: {} } });
      expect(answer(b)).toEqual(answer(a));
    } finally {
      await Promise.all(held);
    }
  });
});

describe('with the mail server failing', () => {
  it('a known e-mail\'s code that could not be sent redeems as an unknown e-mail\'s: the same 400s, the same 429', async () => {
    const sdk = await startSdkServer({ smtpTimeouts: { connectionTimeout: 500, greetingTimeout: 500, socketTimeout: 500 } });
    try {
      await sdk.admin.settings.update({ smtp: { enabled: true, host: '127.0.0.1', port: await closedPort(), tls: false } });
      await sdk.admin.collections.update('users', { otp: { enabled: true, duration: 300, length: 6 } });
      const ann = await sdk.admin.collection('users').create({ email: 'ann@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
      const unknown = (await sdk.client().collection('users').requestOTP('ghost@example.com')).otpId;
      const known = (await sdk.client().collection('users').requestOTP('ann@example.com')).otpId;
      const store = sdk.server.core.store;
      // the send to ann failed (kept in the outbox as failed) and her code was dealt with; ghost's row is there
      await eventually(async () => {
        const mails = ((await sdk.admin.send('/api/mails', {})) as { items: { to: string; status: string }[] }).items;
        expect(mails.map((m) => [m.to, m.status])).toEqual([['ann@example.com', 'failed']]);
        expect(await store.get('SELECT 1 AS "x" FROM "_otps" WHERE "recordId" = ?', [ann.id])).toBeUndefined();
        expect(await store.get('SELECT 1 AS "x" FROM "_otps" WHERE "id" = ?', [unknown])).toBeDefined();
      });
      const attempt = async (otpId: string) => {
        const e = await failure(sdk.client().collection('users').authWithOTP(otpId, '0000000'));
        return { status: e.status, body: e.response };
      };
      for (let i = 0; i < OTP_ATTEMPTS.max; i++) expect(await attempt(known)).toEqual(await attempt(unknown));
      const [a, b] = [await attempt(known), await attempt(unknown)];
      expect(a.status).toBe(429);
      expect(b).toEqual(a);
    } finally {
      await sdk.server.close();
    }
  });
});
