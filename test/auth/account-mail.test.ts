// Settings, mail and the e-mail flows (issue 26) through the official SDK over a real socket, with a
// real SMTP server on loopback: verification, password reset and e-mail change answer as PocketBase;
// tokens are single use, bound to the record's e-mail and password; requests reveal nothing about
// which e-mails exist; with SMTP off (or failing) messages are kept in the outbox, never lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { failure, sdkSuite, startSdkServer, ADMIN } from '../support/sdk-server.js';
import { closedPort, eventually, startSilentServer, startSmtp, tokenIn, type Smtp } from '../support/smtp.js';
import { REQUEST_LIMIT } from '../../server/core/account-mail.js';

const PASSWORD = 'password123';

interface OutboxMail { id: string; created: string; status: string; from: string; to: string; subject: string; html: string; error: string }

async function outbox(admin: PocketBase): Promise<OutboxMail[]> {
  return ((await admin.send('/api/mails', {})) as { items: OutboxMail[] }).items;
}

async function newUser(admin: PocketBase, email: string, collection = 'users') {
  return admin.collection(collection).create({ email, password: PASSWORD, passwordConfirm: PASSWORD });
}

async function smtpOn(admin: PocketBase, port: number, extra: Record<string, unknown> = {}) {
  await admin.settings.update({ smtp: { enabled: true, host: '127.0.0.1', port, tls: false, ...extra } });
}

describe('settings', () => {
  const sdk = sdkSuite();

  it('answers PocketBase\'s shape with the SMTP password never shown, and keeps what it is sent', async () => {
    const s = await sdk.admin.settings.getAll();
    expect(s.meta).toEqual({ appName: 'Acme', appURL: 'http://localhost:8090', senderName: 'Support', senderAddress: 'support@example.com', hideControls: false });
    expect(s.smtp).toMatchObject({ enabled: false, host: 'smtp.example.com', port: 587, username: '', authMethod: '', tls: false, localName: '' });
    expect(s.batch).toMatchObject({ enabled: true, maxRequests: 50 });
    expect(s.rateLimits.enabled).toBe(false);
    expect(s.trustedProxy).toEqual({ headers: [], useLeftmostIP: false });

    const updated = await sdk.admin.settings.update({ meta: { appName: 'Deskbase Test', appURL: 'https://app.example.com/' }, smtp: { username: 'mailer', password: 's3cret-pw', authMethod: 'LOGIN' } });
    expect(updated.meta.appName).toBe('Deskbase Test');
    expect(JSON.stringify(updated)).not.toContain('s3cret-pw');
    const again = await sdk.admin.settings.getAll();
    expect(again.meta.appURL).toBe('https://app.example.com/');
    expect(again.smtp.username).toBe('mailer');
    expect(again.smtp).not.toHaveProperty('password');
    expect(JSON.stringify(again)).not.toContain('s3cret-pw');
    // the answered settings sent back unchanged change nothing (no password: the stored one stays)
    await sdk.admin.settings.update(again);
    await sdk.admin.settings.update({ meta: { appName: 'Acme', appURL: 'http://localhost:8090' }, smtp: { username: '', password: '', authMethod: '' } });
  });

  it('refuses bad values with PocketBase\'s validation errors', async () => {
    const e = await failure(sdk.admin.settings.update({ meta: { appURL: 'not a url', senderAddress: 'nope', appName: '' }, smtp: { enabled: true, host: '', authMethod: 'CRAM' } }));
    expect(e.status).toBe(400);
    expect(e.response.data.meta.appURL.code).toBe('validation_is_url');
    expect(e.response.data.meta.senderAddress.code).toBe('validation_is_email');
    expect(e.response.data.meta.appName.code).toBe('validation_required');
    expect(e.response.data.smtp.host.code).toBe('validation_required');
    expect(e.response.data.smtp.authMethod.code).toBe('validation_in_invalid');
    expect((await sdk.admin.settings.getAll()).meta.appName).toBe('Acme'); // nothing stored
  });

  it('refuses, naming it, every value it cannot honour instead of storing it', async () => {
    for (const [body, key] of [
      [{ rateLimits: { enabled: true, rules: [] } }, 'rateLimits'],
      [{ trustedProxy: { headers: ['X Forwarded For'] } }, 'trustedProxy'],
      [{ batch: { maxRequests: 10 } }, 'batch'],
      [{ logs: { maxDataSize: 3 } }, 'logs'], // logs are kept (server/logs/), this key of them is not Deskbase's
      [{ s3: { enabled: true } }, 's3'],
      [{ meta: { hideControls: true } }, 'meta'],
      [{ smtp: { nope: 1 } }, 'smtp'],
    ] as const) {
      const e = await failure(sdk.admin.settings.update(body));
      expect(e.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(e.response.data)).toEqual([key]);
    }
    const s = await sdk.admin.settings.getAll();
    expect(s.rateLimits.enabled).toBe(false);
    expect(s.trustedProxy.headers).toEqual([]);
  });

  it('is for superusers only', async () => {
    await newUser(sdk.admin, 'plain@example.com');
    const user = sdk.client();
    await user.collection('users').authWithPassword('plain@example.com', PASSWORD);
    const calls = [() => user.settings.getAll(), () => user.settings.update({ meta: { appName: 'x' } }), () => user.send('/api/mails', {}), () => sdk.client().settings.getAll(), () => user.settings.testEmail('users', 'a@example.com', 'verification')];
    for (const call of calls) expect([401, 403]).toContain((await failure(call())).status);
  });
});

describe('with SMTP off: the outbox, and verification', () => {
  const sdk = sdkSuite();

  it('keeps the verification mail in the outbox with its link on appURL; the token verifies once', async () => {
    await sdk.admin.settings.update({ meta: { appName: 'Notes <&>', appURL: 'https://notes.example.com' } });
    const ann = await newUser(sdk.admin, 'ann@example.com');
    expect(ann.verified).toBe(false);
    expect(await sdk.client().collection('users').requestVerification('ANN@example.com')).toBe(true);
    const [mail] = await eventually(async () => {
      const items = await outbox(sdk.admin);
      expect(items).toHaveLength(1);
      return items;
    });
    expect(mail).toMatchObject({ status: 'outbox', to: 'ann@example.com', subject: 'Verify your Notes <&> email', from: 'Support <support@example.com>' });
    expect(mail.html).toContain('Notes &#60;&#38;&#62;'); // escaped in the body
    expect(mail.html).toContain('https://notes.example.com/_/#/auth/confirm-verification/');
    const token = tokenIn(mail.html, 'confirm-verification');

    // the SDK marks its own signed-in record verified from the token's claims
    const annClient = sdk.client();
    await annClient.collection('users').authWithPassword('ann@example.com', PASSWORD);
    expect(await annClient.collection('users').confirmVerification(token)).toBe(true);
    expect(annClient.authStore.record?.verified).toBe(true);
    expect((await sdk.admin.collection('users').getOne(ann.id)).verified).toBe(true);

    const again = await failure(sdk.client().collection('users').confirmVerification(token));
    expect(again.status).toBe(400);
    expect(again.response.data.token.code).toBe('validation_invalid_token');
  });

  it('answers an unknown e-mail exactly as a known one, and sends nothing for it', async () => {
    await newUser(sdk.admin, 'bob@example.com');
    const before = (await outbox(sdk.admin)).length;
    const ask = (email: string) => fetch(`${sdk.server.url}/api/collections/users/request-verification`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    const known = await ask('bob@example.com');
    const unknown = await ask('nobody@example.com');
    expect([known.status, unknown.status]).toEqual([204, 204]);
    expect([await known.text(), await unknown.text()]).toEqual(['', '']);
    await eventually(async () => expect((await outbox(sdk.admin)).length).toBe(before + 1));
    expect((await outbox(sdk.admin))[0].to).toBe('bob@example.com'); // newest first
    // a second request within two minutes sends nothing more (PocketBase's resend limit), same answer
    expect((await ask('bob@example.com')).status).toBe(204);
    await new Promise((r) => setTimeout(r, 200));
    expect((await outbox(sdk.admin)).length).toBe(before + 1);
  });

  it('refuses bad bodies and superusers as PocketBase does', async () => {
    const e = await failure(sdk.client().collection('users').requestVerification('not-an-email'));
    expect(e.status).toBe(400);
    expect(e.response.data.email.code).toBe('validation_is_email');
    const su = await failure(sdk.client().collection('_superusers').requestVerification(ADMIN.email));
    expect(su.status).toBe(400);
    expect(su.response.message).toBe('All superusers are verified by default.');
    expect((await failure(sdk.client().collection('nope').requestVerification('a@example.com'))).status).toBe(404);
    expect((await failure(sdk.client().collection('users').confirmVerification('x.y.z'))).status).toBe(400);
  });

  it('limits requests per client (429 past the limit), counted in the database', async () => {
    await sdk.admin.collections.create({ name: 'members', type: 'auth', fields: [] });
    const members = sdk.client().collection('members');
    for (let i = 0; i < REQUEST_LIMIT.max; i++) await members.requestPasswordReset(`m${i}@example.com`);
    const e = await failure(members.requestPasswordReset('m-last@example.com'));
    expect(e.status).toBe(429);
  });
});

describe('with SMTP on: password reset, e-mail change, test e-mail', () => {
  const sdk = sdkSuite();
  let smtp: Smtp;
  beforeAll(async () => {
    smtp = await startSmtp({ mailer: 'mail-pw' });
    await smtpOn(sdk.admin, smtp.port, { username: 'mailer', password: 'mail-pw' });
  });
  afterAll(async () => smtp.close());

  const latestTo = (to: string) => eventually(() => {
    const m = [...smtp.received].reverse().find((r) => r.to.includes(to));
    expect(m).toBeDefined();
    return m as NonNullable<typeof m>;
  });

  it('resets a password: the token works once, every session of the record ends', async () => {
    const carl = await newUser(sdk.admin, 'carl@example.com');
    const signedIn = sdk.client();
    await signedIn.collection('users').authWithPassword('carl@example.com', PASSWORD);
    expect(await sdk.client().collection('users').requestPasswordReset('carl@example.com')).toBe(true);
    const mail = await latestTo('carl@example.com');
    expect(smtp.logins).toContain('mailer');
    expect(mail.subject).toBe('Reset your Acme password');
    expect(mail.from).toBe('support@example.com');
    const token = tokenIn(mail.html, 'confirm-password-reset');

    const short = await failure(sdk.client().collection('users').confirmPasswordReset(token, 'short', 'short'));
    expect(short.status).toBe(400);
    expect(short.response.data.password).toBeDefined();
    expect(await sdk.client().collection('users').confirmPasswordReset(token, 'a new password', 'a new password')).toBe(true);
    await sdk.client().collection('users').authWithPassword('carl@example.com', 'a new password');
    expect((await failure(signedIn.collection('users').authRefresh())).status).toBe(401);
    expect((await failure(sdk.client().collection('users').confirmPasswordReset(token, 'third password', 'third password'))).status).toBe(400);
    expect((await sdk.admin.collection('users').getOne(carl.id)).verified).toBe(true);
  });

  it('a reset token stops working once the password changed by other means', async () => {
    const dora = await newUser(sdk.admin, 'dora@example.com');
    await sdk.client().collection('users').requestPasswordReset('dora@example.com');
    const token = tokenIn((await latestTo('dora@example.com')).html, 'confirm-password-reset');
    await sdk.admin.collection('users').update(dora.id, { password: 'changed elsewhere', passwordConfirm: 'changed elsewhere' });
    const e = await failure(sdk.client().collection('users').confirmPasswordReset(token, 'a new password', 'a new password'));
    expect(e.status).toBe(400);
    expect(e.response.data.token.code).toBe('validation_invalid_token');
    await sdk.client().collection('users').authWithPassword('dora@example.com', 'changed elsewhere');
  });

  it('changes an e-mail: signed-in request, confirm with the token and the password', async () => {
    await newUser(sdk.admin, 'erin@example.com');
    const erin = sdk.client();
    await erin.collection('users').authWithPassword('erin@example.com', PASSWORD);
    expect((await failure(sdk.client().collection('users').requestEmailChange('erin2@example.com'))).status).toBe(401);
    const taken = await failure(erin.collection('users').requestEmailChange('carl@example.com'));
    expect(taken.status).toBe(400);
    expect(taken.response.data.newEmail.code).toBe('validation_invalid_new_email');
    expect((await failure(erin.collection('users').requestEmailChange('erin@example.com'))).response.data.newEmail.code).toBe('validation_not_in_invalid');
    expect((await failure(sdk.admin.collection('_superusers').requestEmailChange('root@example.com'))).response.message).toBe('All superusers can change their emails directly.');
    expect(await erin.collection('users').requestEmailChange('erin.new@example.com')).toBe(true);
    const mail = await latestTo('erin.new@example.com');
    expect(mail.subject).toBe('Confirm your Acme new email address');
    const token = tokenIn(mail.html, 'confirm-email-change');

    const wrong = await failure(sdk.client().collection('users').confirmEmailChange(token, 'wrong password'));
    expect(wrong.status).toBe(400);
    expect(wrong.response.data.password.code).toBe('validation_invalid_password');
    // the SDK clears its auth store when the token is for its own record
    expect(await erin.collection('users').confirmEmailChange(token, PASSWORD)).toBe(true);
    expect(erin.authStore.token).toBe('');
    const signedIn = await sdk.client().collection('users').authWithPassword('erin.new@example.com', PASSWORD);
    expect(signedIn.record.verified).toBe(true);
    expect((await failure(sdk.client().collection('users').authWithPassword('erin@example.com', PASSWORD))).status).toBe(400);
    expect((await failure(sdk.client().collection('users').confirmEmailChange(token, PASSWORD))).status).toBe(400);
  });

  it('an authRule that needs verified = true passes once the e-mail is verified', async () => {
    await sdk.admin.collections.update('users', { authRule: 'verified = true' });
    try {
      await newUser(sdk.admin, 'gil@example.com');
      expect((await failure(sdk.client().collection('users').authWithPassword('gil@example.com', PASSWORD))).status).toBe(400);
      await sdk.client().collection('users').requestVerification('gil@example.com');
      const mail = await latestTo('gil@example.com');
      expect(mail.subject).toBe('Verify your Acme email');
      await sdk.client().collection('users').confirmVerification(tokenIn(mail.html, 'confirm-verification'));
      expect((await sdk.client().collection('users').authWithPassword('gil@example.com', PASSWORD)).record.verified).toBe(true);
    } finally {
      await sdk.admin.collections.update('users', { authRule: '' });
    }
  });

  it('sends a test e-mail of a template (PocketBase\'s body)', async () => {
    expect(await sdk.admin.settings.testEmail('users', 'tester@example.com', 'password-reset')).toBe(true);
    expect((await latestTo('tester@example.com')).subject).toBe('Reset your Acme password');
    expect(await sdk.admin.settings.testEmail('users', 'tester@example.com', 'otp')).toBe(true);
    expect((await latestTo('tester@example.com')).html).toContain('<strong>123456</strong>');
    expect(await sdk.admin.settings.testEmail('users', 'tester@example.com', 'login-alert')).toBe(true);
    expect((await latestTo('tester@example.com')).subject).toBe('Login from a new location');
    const e = await failure(sdk.admin.settings.testEmail('users', 'tester@example.com', 'nope'));
    expect(e.status).toBe(400);
    expect(e.response.data.template.code).toBe('validation_in_invalid');
  });
});

describe('a failing SMTP server loses nothing', () => {
  it.each(['refused', 'silent'] as const)('connection %s: the request answers 204 and the mail is kept as failed', async (kind) => {
    const silent = kind === 'silent' ? await startSilentServer() : null;
    const port = silent ? silent.port : await closedPort();
    const sdk = await startSdkServer({ smtpTimeouts: { connectionTimeout: 500, greetingTimeout: 500, socketTimeout: 500 } });
    try {
      await smtpOn(sdk.admin, port);
      await newUser(sdk.admin, 'fay@example.com');
      expect(await sdk.client().collection('users').requestPasswordReset('fay@example.com')).toBe(true);
      // the answer does not wait for the mail server: a silent one has not timed out yet (500 ms)
      if (kind === 'silent') expect(await outbox(sdk.admin)).toHaveLength(0);
      const [mail] = await eventually(async () => {
        const items = await outbox(sdk.admin);
        expect(items).toHaveLength(1);
        return items;
      });
      expect(mail).toMatchObject({ status: 'failed', to: 'fay@example.com' });
      expect(mail.error).not.toBe('');
      // the kept mail's link still works
      await sdk.client().collection('users').confirmPasswordReset(tokenIn(mail.html, 'confirm-password-reset'), 'a new password', 'a new password');
      // a signed-in e-mail change waits for the send, as PocketBase's: a 400, the mail kept all the same
      const fay = sdk.client();
      await fay.collection('users').authWithPassword('fay@example.com', 'a new password');
      const change = await failure(fay.collection('users').requestEmailChange('fay.new@example.com'));
      expect([change.status, change.response.message]).toEqual([400, 'Failed to request email change.']);
      expect((await outbox(sdk.admin))[0]).toMatchObject({ status: 'failed', to: 'fay.new@example.com' });
      // the test e-mail reports the failure (PocketBase: a 400)
      expect((await failure(sdk.admin.settings.testEmail('users', 'x@example.com', 'verification'))).status).toBe(400);
    } finally {
      await sdk.server.close();
      await silent?.close();
    }
  });
});
