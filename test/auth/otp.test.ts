// One-time passwords (issue 26 part 3) through the official SDK over a real socket: request-otp answers
// an otpId whatever the e-mail, the mailed code (read from the outbox, SMTP off; or a real SMTP server)
// signs in once, marks the e-mail verified, and only while OTP is on; then, on a fake clock, expiry and
// the wrong-attempt limit. Both engines (ON_BOTH_ENGINES).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { eventually, startSmtp } from '../support/smtp.js';
import { clockedApp, type Clocked } from '../support/clocked-app.js';
import { OTP_ATTEMPTS, REQUEST_LIMIT } from '../../server/core/account-mail.js';

const PASSWORD = 'password123';

interface OutboxMail { to: string; subject: string; html: string }

async function outbox(admin: PocketBase): Promise<OutboxMail[]> {
  return ((await admin.send('/api/mails', {})) as { items: OutboxMail[] }).items;
}

/** The code in the default OTP template's `<strong>`. */
function codeIn(html: string): string {
  const m = /<strong>([0-9]+)<\/strong>/.exec(html);
  expect(m, html).not.toBeNull();
  return (m as RegExpExecArray)[1];
}

describe('OTP sign-in through the SDK', () => {
  const sdk = sdkSuite();

  /** The newest outbox mail to `to`, once there are `count` mails to it. */
  const mailTo = (to: string, count = 1) => eventually(async () => {
    const mine = (await outbox(sdk.admin)).filter((m) => m.to === to);
    expect(mine.length).toBeGreaterThanOrEqual(count);
    return mine[0];
  });

  it('is refused while off (403, PocketBase\'s), and auth-methods says so', async () => {
    const methods = await sdk.client().collection('users').listAuthMethods();
    expect(methods.otp).toEqual({ enabled: false, duration: 0 });
    const e = await failure(sdk.client().collection('users').requestOTP('ann@example.com'));
    expect(e.status).toBe(403);
    expect(e.response.message).toBe('The collection is not configured to allow OTP authentication.');
    expect((await failure(sdk.client().collection('users').authWithOTP('x', '123'))).status).toBe(403);
  });

  it('turned on, auth-methods answers it; a code mailed to the record signs in once and verifies the e-mail', async () => {
    const users = await sdk.admin.collections.update('users', { otp: { enabled: true, duration: 300, length: 6 } });
    expect(users.otp).toMatchObject({ enabled: true, duration: 300, length: 6 });
    expect((await sdk.client().collection('users').listAuthMethods()).otp).toEqual({ enabled: true, duration: 300 });
    const ann = await sdk.admin.collection('users').create({ email: 'ann@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
    expect(ann.verified).toBe(false);

    const client = sdk.client();
    const { otpId } = await client.collection('users').requestOTP('ANN@example.com');
    expect(otpId).toMatch(/^[a-z0-9]{15}$/);
    const mail = await mailTo('ann@example.com');
    expect(mail.subject).toBe('OTP for Acme');
    const code = codeIn(mail.html);
    expect(code).toHaveLength(6);

    const auth = await client.collection('users').authWithOTP(otpId, code);
    expect(auth.record.id).toBe(ann.id);
    expect(auth.record.verified).toBe(true);
    expect(client.authStore.isValid).toBe(true);
    // a real Deskbase session: it refreshes, and the record is verified in the database
    expect((await client.collection('users').authRefresh()).record.email).toBe('ann@example.com');
    expect((await sdk.admin.collection('users').getOne(ann.id)).verified).toBe(true);

    // single use
    const again = await failure(sdk.client().collection('users').authWithOTP(otpId, code));
    expect(again.status).toBe(400);
    expect(again.response.message).toBe('Invalid or expired OTP.');
  });

  it('answers an unknown e-mail with the same shape, and sends nothing for it', async () => {
    const before = (await outbox(sdk.admin)).length;
    const ask = (email: string) => fetch(`${sdk.server.url}/api/collections/users/request-otp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    const known = await ask('ann@example.com');
    const unknown = await ask('nobody@example.com');
    expect([known.status, unknown.status]).toEqual([200, 200]);
    const [k, u] = [await known.json(), await unknown.json()] as { otpId: string }[];
    expect(Object.keys(k)).toEqual(['otpId']);
    expect(Object.keys(u)).toEqual(['otpId']);
    expect(u.otpId).toMatch(/^[a-z0-9]{15}$/);
    await eventually(async () => expect((await outbox(sdk.admin)).length).toBe(before + 1));
    await new Promise((r) => setTimeout(r, 200));
    const after = await outbox(sdk.admin);
    expect(after).toHaveLength(before + 1);
    expect(after.some((m) => m.to === 'nobody@example.com')).toBe(false);
    // the unknown e-mail's otpId redeems nothing, with the same 400 as a wrong code
    const e = await failure(sdk.client().collection('users').authWithOTP(u.otpId, '12345678'));
    expect(e.status).toBe(400);
    expect(e.response.message).toBe('Invalid or expired OTP.');
  });

  it('refuses a wrong code, another collection\'s otpId, and bad bodies', async () => {
    const { otpId } = await sdk.client().collection('users').requestOTP('ann@example.com');
    const code = codeIn((await mailTo('ann@example.com', 3)).html);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect((await failure(sdk.client().collection('users').authWithOTP(otpId, wrong))).response.message).toBe('Invalid or expired OTP.');
    await sdk.admin.collections.create({ name: 'members', type: 'auth', fields: [], otp: { enabled: true } });
    expect((await failure(sdk.client().collection('members').authWithOTP(otpId, code))).status).toBe(400);
    const bad = await failure(sdk.client().collection('users').authWithOTP('', ''));
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.response.data).sort()).toEqual(['otpId', 'password']);
    const badEmail = await failure(sdk.client().collection('users').requestOTP('not-an-email'));
    expect(badEmail.response.data.email.code).toBe('validation_is_email');
    // the right code still works after a wrong one
    expect((await sdk.client().collection('users').authWithOTP(otpId, code)).record.email).toBe('ann@example.com');
  });

  it('obeys the authRule (PocketBase\'s 403) and the collection\'s template', async () => {
    await sdk.admin.collections.update('users', { authRule: 'email != "ann@example.com"', otp: { emailTemplate: { subject: 'Code {OTP}', body: '<p>id {OTP_ID}: <strong>{OTP}</strong></p>' } } });
    try {
      const { otpId } = await sdk.client().collection('users').requestOTP('ann@example.com');
      const mail = await mailTo('ann@example.com', 4);
      const code = codeIn(mail.html);
      expect(mail.subject).toBe(`Code ${code}`);
      expect(mail.html).toContain(`id ${otpId}:`);
      const e = await failure(sdk.client().collection('users').authWithOTP(otpId, code));
      expect(e.status).toBe(403);
    } finally {
      await sdk.admin.collections.update('users', { authRule: '' });
    }
  });

  it('refuses values PocketBase refuses when OTP is on', async () => {
    const e = await failure(sdk.admin.collections.update('users', { otp: { enabled: true, length: 3, duration: 5 } }));
    expect(e.response.data.otp.length.code).toBe('validation_min_greater_equal_than_required');
    expect(e.response.data.otp.duration.code).toBe('validation_min_greater_equal_than_required');
    expect((await sdk.admin.collections.getOne('users')).otp.length).toBe(6);
  });

  it('limits requests per client (429 past the limit)', async () => {
    const members = sdk.client().collection('members');
    for (let i = 0; i < REQUEST_LIMIT.max; i++) await members.requestOTP(`m${i}@example.com`);
    expect((await failure(members.requestOTP('m-last@example.com'))).status).toBe(429);
  });
});

describe('OTP through a real SMTP server', () => {
  const sdk = sdkSuite();

  it('mails the code, which signs in', async () => {
    const smtp = await startSmtp();
    try {
      await sdk.admin.settings.update({ smtp: { enabled: true, host: '127.0.0.1', port: smtp.port, tls: false } });
      await sdk.admin.collections.update('users', { otp: { enabled: true } });
      await sdk.admin.collection('users').create({ email: 'sam@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
      const { otpId } = await sdk.client().collection('users').requestOTP('sam@example.com');
      const mail = await eventually(() => {
        expect(smtp.received).toHaveLength(1);
        return smtp.received[0];
      });
      expect(mail.to).toEqual(['sam@example.com']);
      const code = codeIn(mail.html);
      expect(code).toHaveLength(8); // PocketBase's default length
      expect((await sdk.client().collection('users').authWithOTP(otpId, code)).record.email).toBe('sam@example.com');
    } finally {
      await smtp.close();
    }
  });
});

describe('OTP on a fake clock', () => {
  let app: Clocked;
  let admin = '';
  const mails = async () => (await app.req('GET', '/api/mails', { token: admin })).body.items as { to: string; html: string }[];
  const request = async (email: string, count: number) => {
    const res = await app.req('POST', '/api/collections/users/request-otp', { body: { email } });
    expect(res.status, res.text).toBe(200);
    for (let i = 0; i < 300; i++) {
      const items = await mails();
      if (items.length >= count) return { otpId: res.body.otpId as string, code: codeIn(items[0].html) };
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no mail');
  };
  const redeem = (otpId: string, password: string) => app.req('POST', '/api/collections/users/auth-with-otp', { body: { otpId, password } });

  beforeEach(async () => {
    app = await clockedApp();
    admin = (await app.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token;
    const on = await app.req('PATCH', '/api/collections/users', { token: admin, body: { otp: { enabled: true, duration: 600 } } });
    expect(on.status, on.text).toBe(200);
  });
  afterEach(async () => { await app.close(); });

  it('a code works until its duration ends, and not after', async () => {
    const first = await request('ann@example.com', 1);
    const second = await request('bob@example.com', 2);
    app.now.t += 599_000;
    expect((await redeem(first.otpId, first.code)).status).toBe(200);
    app.now.t += 1_000;
    const late = await redeem(second.otpId, second.code);
    expect(late.status).toBe(400);
    expect(late.body.message).toBe('Invalid or expired OTP.');
  });

  it(`allows ${OTP_ATTEMPTS.max} attempts per record, then answers 429 and deletes its codes`, async () => {
    const { otpId, code } = await request('ann@example.com', 1);
    const wrong = code === '00000000' ? '11111111' : '00000000';
    for (let i = 0; i < 3; i++) expect((await redeem(otpId, wrong)).status).toBe(400);
    // the attempts' 3-minute window outlives the requests' 1-minute one, which other requests clear
    app.now.t += 70_000;
    expect((await app.req('POST', '/api/collections/users/request-verification', { body: { email: 'bob@example.com' } })).status).toBe(204);
    for (let i = 3; i < OTP_ATTEMPTS.max; i++) expect((await redeem(otpId, wrong)).status).toBe(400);
    const blocked = await redeem(otpId, code);
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe('Too many attempts, please try again later with a new OTP.');
    // after the window the code is gone all the same: a new one is needed
    app.now.t += OTP_ATTEMPTS.windowSeconds * 1000 + 1000;
    expect((await redeem(otpId, code)).status).toBe(400);
    const fresh = await request('ann@example.com', 3); // after the verification mail to bob
    expect((await redeem(fresh.otpId, fresh.code)).status).toBe(200);
  });

  it('a code sent to an address the record no longer has redeems nothing', async () => {
    const { otpId, code } = await request('ann@example.com', 1);
    const ann = (await app.req('GET', '/api/collections/users/records?filter=' + encodeURIComponent('email="ann@example.com"'), { token: admin })).body.items[0];
    const moved = await app.req('PATCH', `/api/collections/users/records/${ann.id}`, { token: admin, body: { email: 'ann2@example.com' } });
    expect(moved.status, moved.text).toBe(200);
    const res = await redeem(otpId, code);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid or expired OTP.');
  });
});
