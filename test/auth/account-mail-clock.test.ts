// The e-mail flows' tokens and limits in time, on a fake clock: a token expires after its collection's
// duration (verificationToken, passwordResetToken), the per-record resend limit and the per-client
// request limit end with their windows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clockedApp, type Clocked } from '../support/clocked-app.js';
import { tokenIn } from '../support/smtp.js';
import { REQUEST_LIMIT, RESEND_SECONDS } from '../../server/core/account-mail.js';
import { OUTBOX_KEEP } from '../../server/core/mail/mailer.js';
import { startServer } from '../../server/index.js';
import { ADMIN, startSdkServer } from '../support/sdk-server.js';
import PocketBase from 'pocketbase';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('mailed tokens on a fake clock', () => {
  let app: Clocked;
  let admin = '';
  const mails = async () => (await app.req('GET', '/api/mails', { token: admin })).body.items as { to: string; html: string }[];
  /** Waits for the mail sent after the answer (in the background, on this process). */
  const nextMail = async (count: number) => {
    for (let i = 0; i < 200; i++) {
      const items = await mails();
      if (items.length >= count) return items[0];
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no mail');
  };

  beforeEach(async () => {
    app = await clockedApp();
    admin = (await app.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token;
  });
  afterEach(async () => { await app.close(); });

  it('a verification token works until its duration ends, and not after', async () => {
    expect((await app.req('POST', '/api/collections/users/request-verification', { body: { email: 'ann@example.com' } })).status).toBe(204);
    const annToken = tokenIn((await nextMail(1)).html, 'confirm-verification');
    expect((await app.req('POST', '/api/collections/users/request-verification', { body: { email: 'bob@example.com' } })).status).toBe(204);
    const bobToken = tokenIn((await nextMail(2)).html, 'confirm-verification');

    app.now.t += 259_200_000 - 1000; // PocketBase's default: 3 days
    expect((await app.req('POST', '/api/collections/users/confirm-verification', { body: { token: annToken } })).status).toBe(204);
    app.now.t += 2000;
    const late = await app.req('POST', '/api/collections/users/confirm-verification', { body: { token: bobToken } });
    expect(late.status).toBe(400);
    expect(late.body.data.token.code).toBe('validation_invalid_token');
  });

  it('the collection\'s passwordResetToken duration takes effect', async () => {
    const users = (await app.req('GET', '/api/collections/users', { token: admin })).body;
    expect((await app.req('PATCH', `/api/collections/${users.id}`, { token: admin, body: { passwordResetToken: { duration: 60 } } })).status).toBe(200);
    await app.req('POST', '/api/collections/users/request-password-reset', { body: { email: 'ann@example.com' } });
    const token = tokenIn((await nextMail(1)).html, 'confirm-password-reset');
    app.now.t += 61_000;
    const r = await app.req('POST', '/api/collections/users/confirm-password-reset', { body: { token, password: 'new password 1', passwordConfirm: 'new password 1' } });
    expect(r.status).toBe(400);
    expect((await app.signIn('ann@example.com', 'password123')).status).toBe(200);
  });

  it('a superuser resets a forgotten password the same way', async () => {
    expect((await app.req('POST', '/api/collections/_superusers/records', { token: admin, body: { email: 'root2@example.com', password: 'first password', passwordConfirm: 'first password' } })).status).toBe(200);
    expect((await app.req('POST', '/api/collections/_superusers/request-password-reset', { body: { email: 'root2@example.com' } })).status).toBe(204);
    const token = tokenIn((await nextMail(1)).html, 'confirm-password-reset');
    expect((await app.req('POST', '/api/collections/_superusers/confirm-password-reset', { body: { token, password: 'second password', passwordConfirm: 'second password' } })).status).toBe(204);
    expect((await app.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'root2@example.com', password: 'second password' } })).status).toBe(200);
    // a token of one collection is nothing in another
    await app.req('POST', '/api/collections/users/request-password-reset', { body: { email: 'ann@example.com' } });
    const annToken = tokenIn((await nextMail(2)).html, 'confirm-password-reset');
    expect((await app.req('POST', '/api/collections/_superusers/confirm-password-reset', { body: { token: annToken, password: 'third password', passwordConfirm: 'third password' } })).status).toBe(400);
  });

  it('one mail per record per resend window; the per-client limit ends with its window', async () => {
    const ask = () => app.req('POST', '/api/collections/users/request-password-reset', { body: { email: 'ann@example.com' } });
    expect((await ask()).status).toBe(204);
    await nextMail(1);
    expect((await ask()).status).toBe(204);
    app.now.t += RESEND_SECONDS * 1000 + 1000;
    expect((await ask()).status).toBe(204);
    await nextMail(2);
    expect((await mails()).length).toBe(2);
    // the resend window outlasts the client's: this client has made one request in its current window
    for (let i = 1; i < REQUEST_LIMIT.max; i++) expect((await ask()).status).toBe(204);
    expect((await ask()).status).toBe(429);
    app.now.t += REQUEST_LIMIT.windowSeconds * 1000 + 1000;
    expect((await ask()).status).toBe(204);
  });
});

describe('the outbox and the settings, kept', () => {
  it('keeps the newest OUTBOX_KEEP messages, newest first', async () => {
    const app = await clockedApp();
    try {
      const admin = (await app.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token;
      for (let i = 0; i < OUTBOX_KEEP + 5; i++) {
        app.now.t += 1000;
        const r = await app.req('POST', '/api/settings/test/email', { token: admin, body: { email: `t${i}@example.com`, template: 'verification', collection: 'users' } });
        expect(r.status).toBe(204);
      }
      const items = (await app.req('GET', '/api/mails', { token: admin })).body.items as { to: string }[];
      expect(items).toHaveLength(OUTBOX_KEEP);
      expect(items[0].to).toBe(`t${OUTBOX_KEEP + 4}@example.com`);
      expect(items.at(-1)?.to).toBe('t5@example.com');
    } finally {
      await app.close();
    }
  });

  it('settings survive a restart of a data folder, the rate limits and trusted proxy in effect at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-settings-'));
    try {
      const first = await startSdkServer({ dir });
      await first.admin.settings.update({
        meta: { appName: 'Kept' }, smtp: { host: 'mail.example.com', password: 'pw-kept' },
        rateLimits: { enabled: true, rules: [{ label: 'GET /api/health', maxRequests: 1, duration: 60 }] }, trustedProxy: { headers: ['X-Real-IP'] },
      });
      await first.server.close();
      const second = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
      try {
        // in effect from the first request after the start: the rules and the proxy's header
        const health = (ip: string) => fetch(`${second.url}/api/health`, { headers: { 'x-real-ip': ip } }).then((r) => r.status);
        expect([await health('192.0.2.7'), await health('192.0.2.7'), await health('192.0.2.8')]).toEqual([200, 429, 200]);
        const admin = new PocketBase(second.url);
        await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
        const s = await admin.settings.getAll();
        expect(s.meta.appName).toBe('Kept');
        expect(s.smtp.host).toBe('mail.example.com');
        expect(JSON.stringify(s)).not.toContain('pw-kept');
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
