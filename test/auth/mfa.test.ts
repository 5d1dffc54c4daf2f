// Multi-factor sign-in (issue 26 part 3) through the official SDK over a real socket: with mfa.enabled
// the first method answers PocketBase's 401 `{mfaId}` and a second, different one with that mfaId
// completes the sign-in (password then OTP, OTP then password); the mfaId is bound to its record, single
// use, and expires (fake clock); mfa.rule decides for whom. Both engines (ON_BOTH_ENGINES).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { ADMIN, failure, sdkSuite } from '../support/sdk-server.js';
import { eventually } from '../support/smtp.js';
import { clockedApp, type Clocked } from '../support/clocked-app.js';

const PASSWORD = 'password123';

async function outbox(admin: PocketBase): Promise<{ to: string; html: string }[]> {
  return ((await admin.send('/api/mails', {})) as { items: { to: string; html: string }[] }).items;
}

const codeIn = (html: string) => (/<strong>([0-9]+)<\/strong>/.exec(html) as RegExpExecArray)[1];

describe('MFA through the SDK', () => {
  const sdk = sdkSuite();
  let mails = 0;

  /** A fresh OTP for `email`, its code read from the outbox. */
  async function otpFor(email: string): Promise<{ otpId: string; code: string }> {
    const { otpId } = await sdk.client().collection('users').requestOTP(email);
    mails++;
    const mail = await eventually(async () => {
      const items = await outbox(sdk.admin);
      expect(items.length).toBe(mails);
      return items[0];
    });
    expect(mail.to).toBe(email);
    return { otpId, code: codeIn(mail.html) };
  }

  const mfaIdOf = async (promise: Promise<unknown>) => {
    const e = await failure(promise);
    expect(e.status).toBe(401);
    expect(Object.keys(e.response)).toEqual(['mfaId']); // PocketBase's exact answer, not the error envelope
    return e.response.mfaId as string;
  };

  it('cannot be turned on without a second method, nor with a bad rule; auth-methods answers it', async () => {
    const alone = await failure(sdk.admin.collections.update('users', { mfa: { enabled: true } }));
    expect(alone.response.data.mfa.enabled.code).toBe('validation_mfa_not_enough_auths');
    const badRule = await failure(sdk.admin.collections.update('users', { otp: { enabled: true }, mfa: { enabled: true, rule: 'nope ~' } }));
    expect(badRule.response.data.mfa.rule.code).toBe('validation_invalid_rule');
    expect((await sdk.admin.collections.getOne('users')).mfa.enabled).toBe(false);

    await sdk.admin.collections.update('users', { otp: { enabled: true }, mfa: { enabled: true, duration: 900 } });
    expect((await sdk.client().collection('users').listAuthMethods()).mfa).toEqual({ enabled: true, duration: 900 });
    for (const email of ['ann@example.com', 'bob@example.com']) {
      await sdk.admin.collection('users').create({ email, password: PASSWORD, passwordConfirm: PASSWORD });
    }
    // superusers' MFA is off by default, as PocketBase's
    expect((await sdk.client().collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password)).token).toBeTruthy();
  });

  it('password, then OTP with the mfaId: signed in; the mfaId works once', async () => {
    const client = sdk.client();
    const mfaId = await mfaIdOf(client.collection('users').authWithPassword('ann@example.com', PASSWORD));
    expect(client.authStore.isValid).toBe(false);
    const { otpId, code } = await otpFor('ann@example.com');
    const auth = await client.collection('users').authWithOTP(otpId, code, { mfaId });
    expect(auth.record.email).toBe('ann@example.com');
    expect((await client.collection('users').authRefresh()).record.email).toBe('ann@example.com');

    const second = await otpFor('ann@example.com');
    const again = await failure(sdk.client().collection('users').authWithOTP(second.otpId, second.code, { mfaId }));
    expect(again.status).toBe(400);
    expect(again.response.message).toBe('Invalid or expired MFA session.');
  });

  it('OTP, then password with the mfaId: signed in', async () => {
    const { otpId, code } = await otpFor('ann@example.com');
    const mfaId = await mfaIdOf(sdk.client().collection('users').authWithOTP(otpId, code));
    const auth = await sdk.client().collection('users').authWithPassword('ann@example.com', PASSWORD, { mfaId });
    expect(auth.record.email).toBe('ann@example.com');
  });

  it('refuses the same method twice, and another record\'s mfaId', async () => {
    const mfaId = await mfaIdOf(sdk.client().collection('users').authWithPassword('ann@example.com', PASSWORD));
    const same = await failure(sdk.client().collection('users').authWithPassword('ann@example.com', PASSWORD, { mfaId }));
    expect(same.status).toBe(400);
    expect(same.response.message).toBe('A different authentication method is required.');
    const { otpId, code } = await otpFor('bob@example.com');
    const other = await failure(sdk.client().collection('users').authWithOTP(otpId, code, { mfaId }));
    expect(other.status).toBe(400);
    expect(other.response.message).toBe('Invalid MFA session.');
    // the mfaId is still ann's: her OTP completes it
    const ann = await otpFor('ann@example.com');
    expect((await sdk.client().collection('users').authWithOTP(ann.otpId, ann.code, { mfaId })).record.email).toBe('ann@example.com');
  });

  it('mfa.rule decides for whom: a record outside it signs in with one method', async () => {
    await sdk.admin.collections.update('users', { mfa: { rule: 'email != "bob@example.com"' } });
    expect((await sdk.client().collection('users').authWithPassword('bob@example.com', PASSWORD)).record.email).toBe('bob@example.com');
    await mfaIdOf(sdk.client().collection('users').authWithPassword('ann@example.com', PASSWORD));
    // a wrong password is still the plain 400, MFA or not
    expect((await failure(sdk.client().collection('users').authWithPassword('ann@example.com', 'wrong-password'))).status).toBe(400);
  });
});

describe('MFA on a fake clock', () => {
  let app: Clocked;

  beforeEach(async () => {
    app = await clockedApp();
    const admin = (await app.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token;
    const on = await app.req('PATCH', '/api/collections/users', { token: admin, body: { otp: { enabled: true, duration: 3600 }, mfa: { enabled: true, duration: 60 } } });
    expect(on.status, on.text).toBe(200);
  });
  afterEach(async () => { await app.close(); });

  it('an mfaId expires after mfa.duration', async () => {
    const first = await app.signIn('ann@example.com', 'password123');
    expect(first.status).toBe(401);
    const { mfaId } = first.body as { mfaId: string };
    app.now.t += 59_000;
    // in time, the same method is refused for what it is (the mfaId, here in the body, still lives) ...
    const early = await app.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'password123', mfaId } });
    expect(early.body.message).toBe('A different authentication method is required.');
    app.now.t += 1_000;
    const expired = await app.req('POST', '/api/collections/users/auth-with-password?mfaId=' + mfaId, { body: { identity: 'ann@example.com', password: 'password123' } });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toBe('Invalid or expired MFA session.');
  });
});

describe("superusers' MFA", () => {
  const sdk = sdkSuite();

  it('is off by default, and when turned on asks superusers for a second method too', async () => {
    expect((await sdk.client().collection('_superusers').listAuthMethods()).mfa.enabled).toBe(false);
    await sdk.admin.collections.update('_superusers', { otp: { enabled: true }, mfa: { enabled: true } });
    const client = sdk.client();
    const e = await failure(client.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password));
    expect(e.status).toBe(401);
    const mfaId = e.response.mfaId as string;
    const { otpId } = await client.collection('_superusers').requestOTP(ADMIN.email);
    const mail = await eventually(async () => {
      const [m] = await outbox(sdk.admin);
      expect(m?.to).toBe(ADMIN.email);
      return m;
    });
    const auth = await client.collection('_superusers').authWithOTP(otpId, codeIn(mail.html), { mfaId });
    expect(auth.record.email).toBe(ADMIN.email);
    expect((await client.collections.getOne('users')).name).toBe('users'); // a superuser session
  });
});
