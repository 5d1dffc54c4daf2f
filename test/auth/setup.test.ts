// First start: setup is required while no superuser exists, the printed one-time token creates the
// first superuser (once, whatever the races), and stays valid for its whole hour.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness, type Res } from '../support/harness.js';
import { scenarios, type Scenario } from '../support/scenario.js';
import { SETUP_TOKEN_MS } from '../../server/core/setup.js';
import { createCore } from '../../server/core/index.js';
import { createApp } from '../../server/http/app.js';
import { openStore, type Store } from '../../server/store/db.js';
import { startServer } from '../../server/index.js';
import { http } from '../fixtures/hardening-http.js';

describe('setup refusals', () => {
  /** A fresh data folder: setup required, its one-time token printed (the harness keeps it). */
  const freshFolder = async () => ({});
  const stillRequired = async (_r: Res, h: Harness) => { expect((await h.req('GET', '/api/setup')).body).toEqual({ required: true }); };
  const refused = (name: string, body: Record<string, unknown>): Scenario<object> => ({
    name: `refuses a ${name} with 403 pointing at the log`,
    method: 'POST', url: '/api/setup', body, status: 403,
    match: { status: 403, data: {}, message: expect.stringMatching(/log/i) }, after: stillRequired,
  });
  const invalid = (name: string, body: Record<string, unknown>, data: Record<string, unknown>): Scenario<object> => ({
    name, method: 'POST', url: '/api/setup', body: (_c, h) => ({ token: h.setupToken(), ...body }),
    status: 400, match: { status: 400, data }, after: stillRequired,
  });
  scenarios(freshFolder, [
    refused('missing token', { email: 'a@b.co', password: 'long enough' }),
    refused('wrong token', { token: 'nope', email: 'a@b.co', password: 'long enough' }),
    invalid('400 with per-field codes for short password', { email: 'a@b.co', password: 'short' }, { password: { code: 'validation_length_out_of_range' } }),
    invalid('400 with per-field codes for missing password', { email: 'a@b.co' }, { password: { code: 'validation_required' } }),
    invalid('400 with per-field codes for bad email', { email: 'not-an-email', password: 'long enough' }, { email: { code: 'validation_is_email' } }),
    invalid('400 with per-field codes for missing email', { password: 'long enough' }, { email: { code: 'validation_required' } }),
    // the email is checked by the superusers' email field, and reported beside a password problem
    invalid('a numeric TLD is no email', { email: 'a@b.c1', password: 'short' }, { email: { code: 'validation_is_email' }, password: { code: 'validation_length_out_of_range' } }),
    invalid('an email of 255 characters is too long', { email: `${'a'.repeat(243)}@example.com`, password: 'short' }, { email: { code: 'validation_is_email' }, password: { code: 'validation_length_out_of_range' } }),
  ]);
});

describe('first superuser', () => {
  let h: Harness;
  beforeEach(async () => { h = await harness(); });
  afterEach(async () => { await h.close(); });

  describe('setup', () => {
    it('is required on a fresh data folder, and the system collections exist', async () => {
      expect((await h.req('GET', '/api/setup')).body).toEqual({ required: true });
      expect(h.core.registry.get('_superusers')?.system).toBe(true);
      const users = h.core.registry.get('users');
      expect(users?.type).toBe('auth');
      expect(users?.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['id', 'email', 'name', 'avatar', 'created', 'updated']));
      // PocketBase's default users: an avatar apps upload to as they are
      expect(users?.fields.find((f) => f.name === 'avatar')).toMatchObject({
        type: 'file', maxSelect: 1, maxSize: 5_242_880, protected: false,
        mimeTypes: ['image/jpeg', 'image/png', 'image/svg+xml', 'image/gif', 'image/webp'],
      });
    });

    it('creates the first superuser once, then answers 404 Not found.', async () => {
      const r = await h.req('POST', '/api/setup', { body: { token: h.setupToken(), email: 'Admin@Example.com', password: 'correct horse' } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ collectionName: '_superusers', email: 'Admin@Example.com', verified: true });
      expect(r.body.password).toBeUndefined();
      expect((await h.req('GET', '/api/setup')).body).toEqual({ required: false });
      const again = await h.req('POST', '/api/setup', { body: { token: h.setupToken(), email: 'b@b.co', password: 'correct horse' } });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ status: 404, message: 'Not found.', data: {} });
    });

    it('an expired token is refused and a new one is issued at most once a minute', async () => {
      let now = Date.now();
      const { createCore } = await import('../../server/core/index.js');
      const { openStore } = await import('../../server/store/db.js');
      const tokens: string[] = [];
      const core = await createCore(await openStore({ dir: null }), { onSetupToken: (t) => tokens.push(t), now: () => now });
      await core.setup.issue();
      expect(tokens).toHaveLength(1);
      await core.setup.issue();
      expect(tokens).toHaveLength(1); // within the minute: same token
      now += 61 * 60 * 1000;
      await expect(core.setup.complete({ token: tokens[0], email: 'a@b.co', password: 'long enough' })).rejects.toMatchObject({ status: 403 });
      expect(tokens).toHaveLength(2);
      await expect(core.setup.complete({ token: tokens[1], email: 'a@b.co', password: 'long enough' })).resolves.toMatchObject({ email: 'a@b.co' });
    });
  });

  describe('setup races', () => {
    it('two concurrent POST /setup create exactly one superuser', async () => {
      const body = (email: string) => ({ body: { token: h.setupToken(), email, password: 'long enough' } });
      const [a, b] = await Promise.all([h.req('POST', '/api/setup', body('a@b.co')), h.req('POST', '/api/setup', body('b@b.co'))]);
      expect([a.status, b.status].sort()).toEqual([200, 404]);
      expect((await h.core.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM "_superusers"'))?.n).toBe(1);
    });
  });
});

describe('the printed token', () => {
  // The printed setup token stays valid for its whole hour. A wrong POST /setup used to replace it once
  // the token was a minute old, so anyone who could reach the port kept invalidating the link the owner
  // was given. A new token is issued only once the old one expired (and never twice within a minute).

  let store: Store;
  let now: number;
  let tokens: string[];
  let post: (body: unknown) => Promise<number>;
  beforeEach(async () => {
    store = await openStore({ dir: null });
    now = Date.parse('2030-01-01T00:00:00Z');
    tokens = [];
    const core = await createCore(store, { onSetupToken: (t) => tokens.push(t), now: () => now });
    await core.setup.issue();
    const app = createApp(core, { uiDir: null });
    post = async (body) => (await app.request('http://localhost:8090/api/setup', {
      method: 'POST', headers: { host: 'localhost:8090', 'content-type': 'application/json' }, body: JSON.stringify(body),
    })).status;
  });
  afterEach(async () => { await store.close(); });

  const credentials = { email: 'owner@example.com', password: 'correct horse' };

  describe('the setup token', () => {
    it('outlives wrong attempts for its whole hour, then is replaced once', async () => {
      expect(tokens).toHaveLength(1);
      for (const minutes of [2, 10, 30, 59]) {
        now = Date.parse('2030-01-01T00:00:00Z') + minutes * 60_000;
        for (let i = 0; i < 5; i++) expect(await post({ token: `guess-${i}`, ...credentials })).toBe(403);
      }
      expect(tokens).toHaveLength(1); // the printed link still works
      now = Date.parse('2030-01-01T00:00:00Z') + SETUP_TOKEN_MS;
      expect(await post({ token: tokens[0], ...credentials })).toBe(403); // expired
      expect(tokens).toHaveLength(2);
      for (let i = 0; i < 5; i++) expect(await post({ token: 'wrong', ...credentials })).toBe(403);
      expect(tokens).toHaveLength(2);
      expect(await post({ token: tokens[1], ...credentials })).toBe(200);
    });

    it('works on the server that printed it also when the stored tokens are gone (a restore replaced _params)', async () => {
      // the tokens' hashes are kept in _params for the other nodes of a team server (setup.ts)
      expect((await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "_params" WHERE substr("key", 1, 11) = 'setupToken.'`))?.n).toBe(1);
      await store.write((tx) => tx.run(`DELETE FROM "_params" WHERE substr("key", 1, 11) = 'setupToken.'`));
      expect(await post({ token: tokens[0], ...credentials })).toBe(200);
      expect(tokens).toHaveLength(1);
    });

    it('the first token still completes setup after an hour\'s worth of wrong attempts minus a second', async () => {
      now += SETUP_TOKEN_MS - 1000;
      expect(await post({ token: 'nope', ...credentials })).toBe(403);
      expect(await post({ token: tokens[0], ...credentials })).toBe(200);
      expect(tokens).toHaveLength(1);
    });
  });
});

describe('password bounds', () => {
  // the superusers' password field decides, as for every other auth collection (auth-records.test.ts)
  it('setup answers the spec\'s code for a password outside the superusers\' bounds', async () => {
    const fresh = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined });
    try {
      const r = await http(fresh.url, 'POST', '/api/setup', { body: { token: (await fresh.setupToken()), email: 'a@b.co', password: '1234567' } });
      expect(r.status).toBe(400);
      expect(r.body.data.password).toEqual({ code: 'validation_length_out_of_range', message: 'The length must be between 8 and 71.' });
      const emoji = await http(fresh.url, 'POST', '/api/setup', { body: { token: (await fresh.setupToken()), email: 'a@b.co', password: '😀😀😀😀😀😀😀😀' } });
      expect(emoji.status, emoji.text).toBe(200); // eight characters, sixteen UTF-16 units
    } finally {
      await fresh.close();
    }
  });
});
