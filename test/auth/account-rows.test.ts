// An auth record's rows beside its own (issue 26): its sessions, mailed tokens, one-time passwords,
// MFA steps, known devices and OTP attempt counts go with it when it is deleted, so a record made
// again with the same id and e-mail inherits none of them (a pending OTP or MFA step of the old one
// would otherwise sign the new one in). Through the SDK over a socket; both engines (ON_BOTH_ENGINES).
import { describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { eventually, tokenIn } from '../support/smtp.js';

const PASSWORD = 'password123';
const ID = 'reuseduser00001';
const EMAIL = 'reused@example.com';

async function mailsTo(admin: PocketBase, email: string): Promise<{ subject: string; html: string }[]> {
  return ((await admin.send('/api/mails', {})) as { items: { to: string; subject: string; html: string }[] }).items.filter((m) => m.to === email);
}

describe('an auth record deleted takes its account rows with it', () => {
  const sdk = sdkSuite();

  const rowsOf = async (recordId: string) => {
    const store = sdk.server.core.store;
    const count = async (sql: string, params: unknown[]) => Number((await store.get<{ n: number }>(sql, params as never))?.n ?? 0);
    return {
      sessions: await count('SELECT COUNT(*) AS n FROM "_sessions" WHERE "recordId" = ?', [recordId]),
      tokens: await count('SELECT COUNT(*) AS n FROM "_authTokens" WHERE "recordId" = ?', [recordId]),
      otps: await count('SELECT COUNT(*) AS n FROM "_otps" WHERE "recordId" = ?', [recordId]),
      mfas: await count('SELECT COUNT(*) AS n FROM "_mfas" WHERE "recordId" = ?', [recordId]),
      origins: await count('SELECT COUNT(*) AS n FROM "_authOrigins" WHERE "recordId" = ?', [recordId]),
      attempts: await count('SELECT COUNT(*) AS n FROM "_mailRequests" WHERE "key" LIKE ?', [`otpAttempt:%:${recordId}`]),
    };
  };

  it('a pending OTP, MFA step and password-reset token of the old record do nothing for the new one', async () => {
    await sdk.admin.collections.update('users', { otp: { enabled: true }, mfa: { enabled: true, rule: '' }, authAlert: { enabled: true } });
    const create = () => sdk.admin.collection('users').create({ id: ID, email: EMAIL, password: PASSWORD, passwordConfirm: PASSWORD });
    await create();

    // a device known and a session held (OTP then password: MFA's two methods)
    const first = await sdk.client().collection('users').requestOTP(EMAIL);
    const firstCode = await eventually(async () => (/<strong>([0-9]+)<\/strong>/.exec((await mailsTo(sdk.admin, EMAIL))[0]!.html) as RegExpExecArray)[1]!);
    const mfa = await failure(sdk.client().collection('users').authWithOTP(first.otpId, firstCode));
    await sdk.client().collection('users').authWithPassword(EMAIL, PASSWORD, { mfaId: mfa.response.mfaId });
    // pending: an MFA step, a code with a wrong attempt counted, a password-reset token
    const pendingMfa = (await failure(sdk.client().collection('users').authWithPassword(EMAIL, PASSWORD))).response.mfaId as string;
    const otp = await sdk.client().collection('users').requestOTP(EMAIL);
    const code = await eventually(async () => {
      const mails = await mailsTo(sdk.admin, EMAIL);
      expect(mails.filter((m) => m.subject.includes('OTP')).length).toBe(2);
      return (/<strong>([0-9]+)<\/strong>/.exec(mails[0]!.html) as RegExpExecArray)[1]!;
    });
    expect((await failure(sdk.client().collection('users').authWithOTP(otp.otpId, '00000000', { mfaId: pendingMfa }))).status).toBe(400);
    await sdk.client().collection('users').requestPasswordReset(EMAIL);
    const token = await eventually(async () => tokenIn((await mailsTo(sdk.admin, EMAIL)).find((m) => m.html.includes('confirm-password-reset'))!.html, 'confirm-password-reset'));
    expect(Object.values(await rowsOf(ID)).every((n) => n > 0), JSON.stringify(await rowsOf(ID))).toBe(true);

    await sdk.admin.collection('users').delete(ID);
    expect(await rowsOf(ID)).toEqual({ sessions: 0, tokens: 0, otps: 0, mfas: 0, origins: 0, attempts: 0 });

    // the same id and e-mail again: nothing of the old record's pending steps works for it
    await create();
    const reused = await failure(sdk.client().collection('users').authWithOTP(otp.otpId, code, { mfaId: pendingMfa }));
    expect(reused.status).toBe(400);
    const reset = await failure(sdk.client().collection('users').confirmPasswordReset(token, 'another-password', 'another-password'));
    expect(reset.response.data.token.code).toBe('validation_invalid_token');
  });

  it('deleting the auth collection takes every record\'s rows', async () => {
    const c = await sdk.admin.collections.create({ name: 'members', type: 'auth', fields: [], otp: { enabled: true } });
    await sdk.admin.collection('members').create({ id: 'member000000001', email: 'm@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
    await sdk.client().collection('members').authWithPassword('m@example.com', PASSWORD);
    await sdk.client().collection('members').requestOTP('m@example.com');
    await eventually(async () => expect((await rowsOf('member000000001')).otps).toBe(1));
    await sdk.admin.collections.delete(c.id);
    expect(await rowsOf('member000000001')).toEqual({ sessions: 0, tokens: 0, otps: 0, mfas: 0, origins: 0, attempts: 0 });
  });
});

describe('a superuser changing a user\'s e-mail or password', () => {
  const sdk = sdkSuite();

  it('ends every session of the user (PocketBase refreshes its tokenKey), and its mailed tokens stop working', async () => {
    const user = await sdk.admin.collection('users').create({ email: 'kept@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
    const signedIn = async (email: string, password = PASSWORD) => {
      const pb = sdk.client();
      await pb.collection('users').authWithPassword(email, password);
      return pb;
    };
    const live = async (pb: PocketBase) => (await pb.collection('users').authRefresh().then(() => 200, (e: { status: number }) => e.status));

    // the e-mail: sessions end, a pending reset token (sent to the old address) is refused
    const [a, b] = [await signedIn('kept@example.com'), await signedIn('kept@example.com')];
    await sdk.client().collection('users').requestPasswordReset('kept@example.com');
    const token = await eventually(async () => tokenIn((await mailsTo(sdk.admin, 'kept@example.com'))[0]!.html, 'confirm-password-reset'));
    await sdk.admin.collection('users').update(user.id, { email: 'moved@example.com' });
    expect([await live(a), await live(b)]).toEqual([401, 401]);
    expect((await failure(sdk.client().collection('users').confirmPasswordReset(token, 'another-password', 'another-password'))).status).toBe(400);

    // the password: sessions end, the new one signs in
    const c = await signedIn('moved@example.com');
    await sdk.admin.collection('users').update(user.id, { password: 'set-by-admin', passwordConfirm: 'set-by-admin' });
    expect(await live(c)).toBe(401);
    expect(await live(await signedIn('moved@example.com', 'set-by-admin'))).toBe(200);

    // another field changes nothing
    const d = await signedIn('moved@example.com', 'set-by-admin');
    await sdk.admin.collection('users').update(user.id, { name: 'Renamed' });
    expect(await live(d)).toBe(200);
  });
});
