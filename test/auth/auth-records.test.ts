// Records of auth collections: e-mails shown only to whom they may be, `verified` set only by managers,
// passwords checked by their field and never returned, ids unique across every auth collection, and the
// last superuser kept.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../support/harness.js';
import { blog, type Blog } from '../support/blog.js';
import { scenarios } from '../support/scenario.js';
import { type RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

const USERS = '/api/collections/users/records';
const code = (c: string) => ({ code: c, message: expect.any(String) });
const listable = async (h: Harness, b: Blog) => { expect((await h.req('PATCH', '/api/collections/users', { token: b.su, body: { listRule: '' } })).status).toBe(200); };

describe('auth records', () => {
  scenarios(blog, [
    {
      name: 'a user sees her own e-mail, never a password',
      method: 'GET', url: (b) => `${USERS}/${b.users.ann.id}`, token: (b) => b.users.ann.token,
      status: 200, match: { email: 'ann@example.com' }, notExpectedContent: ['password', 'scrypt'],
    },
    {
      name: 'another user listing users sees no hidden e-mail and no hash',
      before: listable,
      method: 'GET', url: USERS, token: (b) => b.users.bob.token, status: 200, notExpectedContent: ['scrypt', 'ann@example.com'],
      after: (r, _h, b) => {
        const ann = r.body.items.find((u: { id: string }) => u.id === b.users.ann.id);
        expect(ann).toBeDefined();
        expect(ann).not.toHaveProperty('email');
      },
    },
    {
      name: 'verified is not the user\'s to set',
      method: 'PATCH', url: (b) => `${USERS}/${b.users.ann.id}`, token: (b) => b.users.ann.token, body: { verified: true }, status: 400,
    },
    {
      name: 'the superuser sets verified',
      method: 'PATCH', url: (b) => `${USERS}/${b.users.ann.id}`, token: (b) => b.su, body: { verified: true }, status: 200, match: { verified: true },
    },
    {
      name: 'sign-up validates password and confirmation',
      method: 'POST', url: USERS, body: { email: 'x@example.com', password: 'short', passwordConfirm: 'other' },
      status: 400, match: { data: { password: code('validation_min_text_constraint'), passwordConfirm: code('validation_values_mismatch') } },
    },
    {
      name: 'sign-up with a taken e-mail, whatever its case',
      method: 'POST', url: USERS, body: { email: 'ANN@example.com', password: 'password123', passwordConfirm: 'password123' },
      status: 400, match: { data: { email: code('validation_not_unique') } },
    },
  ]);
});

describe('superusers', () => {
  const withSuperuserId = async (h: Harness) => {
    const b = await blog(h);
    return { ...b, suId: (await h.req('GET', '/api/session', { token: b.su })).body.record.id as string };
  };
  scenarios(withSuperuserId, [{
    name: 'the last superuser cannot be deleted',
    method: 'DELETE', url: (c) => `/api/collections/_superusers/records/${c.suId}`, token: (c) => c.su,
    status: 400, match: { status: 400, message: "You can't delete the only existing superuser." },
  }]);
});

describe('ids', () => {
  // An auth record's id names who `@request.auth.id` is, so no two auth collections may hold the same id
  // (PocketBase's `validation_invalid_auth_id`): signing up in `users` with the id of a `staff` record
  // used to succeed, and that user then passed every `owner = @request.auth.id` rule written for staff.

  let server: RunningServer;
  let su: string;
  const password = 'password123';
  const body = (email: string, id?: string) => ({ email, password, passwordConfirm: password, ...(id ? { id } : {}) });

  beforeAll(async () => {
    ({ server, su } = await liveServer());
    for (const name of ['staff', 'members']) {
      const r = await http(server.url, 'POST', '/api/collections', { token: su, body: { name, type: 'auth', createRule: '', listRule: 'id = @request.auth.id', viewRule: 'id = @request.auth.id' } });
      expect(r.status, r.text).toBe(200);
    }
    const r = await http(server.url, 'POST', '/api/collections', {
      token: su, body: { name: 'docs', fields: [{ name: 'owner', type: 'text' }, { name: 'text', type: 'text' }], listRule: 'owner = @request.auth.id', viewRule: 'owner = @request.auth.id' },
    });
    expect(r.status, r.text).toBe(200);
  });
  afterAll(async () => { await server.close(); });

  const signUp = (collection: string, email: string, id?: string) =>
    http(server.url, 'POST', `/api/collections/${collection}/records`, { body: body(email, id) });

  describe('auth record ids are unique across auth collections', () => {
    it('signing up with the id of another auth collection\'s record is a 400 on id, and grants nothing', async () => {
      const staff = await signUp('staff', 'boss@example.com');
      expect(staff.status, staff.text).toBe(200);
      await http(server.url, 'POST', '/api/collections/docs/records', { token: su, body: { owner: staff.body.id, text: 'payroll' } });

      for (const collection of ['users', 'members']) {
        const r = await signUp(collection, `mallory-${collection}@example.com`, staff.body.id);
        expect(r.status, r.text).toBe(400);
        expect(r.body.data.id).toEqual({ code: 'validation_invalid_auth_id', message: 'Invalid or duplicated auth record id.' });
        const signIn = await http(server.url, 'POST', `/api/collections/${collection}/auth-with-password`, { body: { identity: `mallory-${collection}@example.com`, password } });
        expect(signIn.status).toBe(400); // no such account was made
      }
      // and the other way round: a staff record may not take a user's id
      const user = await signUp('users', 'ann@example.com');
      const taken = await signUp('staff', 'ann-staff@example.com', user.body.id);
      expect(taken.body.data.id.code).toBe('validation_invalid_auth_id');
    });

    it('a superuser\'s id cannot be taken, and a superuser cannot create a record with a taken id either', async () => {
      const me = await http(server.url, 'GET', '/api/session', { token: su });
      const suId = me.body.record.id as string;
      expect((await signUp('users', 'su-copy@example.com', suId)).body.data.id.code).toBe('validation_invalid_auth_id');
      const staff = await signUp('staff', 'second@example.com');
      const bySu = await http(server.url, 'POST', '/api/collections/members/records', { token: su, body: body('by-su@example.com', staff.body.id) });
      expect(bySu.status).toBe(400);
      expect(bySu.body.data.id.code).toBe('validation_invalid_auth_id');
    });

    it('concurrent sign-ups with one id in two collections: exactly one succeeds', async () => {
      const id = 'contested000001';
      const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => signUp(i % 2 ? 'users' : 'staff', `race${i}@example.com`, id)));
      expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of rs.filter((x) => x.status !== 200)) expect(['validation_invalid_auth_id', 'validation_pk_invalid']).toContain(r.body.data.id.code);
    });

    it('base collections keep their own id space, and generated ids never collide', async () => {
      const staff = await signUp('staff', 'third@example.com');
      const doc = await http(server.url, 'POST', '/api/collections/docs/records', { token: su, body: { id: staff.body.id, text: 'same id, base collection' } });
      expect(doc.status, doc.text).toBe(200);
      const ids = new Set<string>();
      for (let i = 0; i < 10; i++) ids.add((await signUp(i % 2 ? 'users' : 'members', `gen${i}@example.com`)).body.id);
      expect(ids.size).toBe(10);
    });
  });
});

describe('passwords', () => {
  // One owner for password rules: the password field's spec (min, max, pattern, counted in characters).
  // Record writes used to run their own check, which ignored `pattern` and counted UTF-16 units.

  let server: RunningServer;
  let su: string;
  beforeAll(async () => {
    ({ server, su } = await liveServer());
    const users = (await http(server.url, 'GET', '/api/collections/users', { token: su })).body;
    const fields = users.fields.map((f: { name: string }) => (f.name === 'password' ? { ...f, min: 10, max: 12, pattern: '^\\S*\\d\\S*$' } : f));
    const r = await http(server.url, 'PATCH', '/api/collections/users', { token: su, body: { fields } });
    expect(r.status, r.text).toBe(200);
  });
  afterAll(async () => { await server.close(); });

  const signUp = (password: string) =>
    http(server.url, 'POST', '/api/collections/users/records', { body: { email: `u${Math.random()}@example.com`, password, passwordConfirm: password } });

  it.each([
    ['matches the pattern and the bounds', 'abcdefghi1', 200, null],
    ['does not match the pattern (no digit)', 'abcdefghij', 400, 'validation_invalid_format'],
    ['does not match the pattern (a space)', 'abc defgh1', 400, 'validation_invalid_format'],
    ['too short', 'abc1', 400, 'validation_min_text_constraint'],
    ['too long', 'abcdefghijk12', 400, 'validation_max_text_constraint'],
    ['12 characters in 24 UTF-16 units: within max', '😀😀😀😀😀😀😀😀😀😀😀1', 200, null],
    ['10 characters, some outside the BMP: within min', '😀😀😀😀😀😀😀😀😀1', 200, null],
  ])('%s', async (_name, password, status, code) => {
    const r = await signUp(password);
    expect(r.status, r.text).toBe(status);
    if (code) expect(r.body.data.password.code).toBe(code);
  });

  it('the same rules hold when a password is changed', async () => {
    const created = await signUp('abcdefghi1');
    const changed = await http(server.url, 'PATCH', `/api/collections/users/records/${created.body.id}`, { token: su, body: { password: 'nodigitshere', passwordConfirm: 'nodigitshere' } });
    expect(changed.status).toBe(400);
    expect(changed.body.data.password.code).toBe('validation_invalid_format');
  });
});
