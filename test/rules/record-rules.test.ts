// What each collection rule lets a caller do (null: superusers only, "": everyone, an expression: the
// records it matches), a client filter never reaching past them, manageRule, and a stored rule that no
// longer compiles failing closed. Rules reading the request are in request-rules.test.ts, attempts to
// get around them in bypass.test.ts.

import { describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness, type Res } from '../support/harness.js';
import { blog, type Blog, type Caller, patchAsSuperuser, tokenOf } from '../support/blog.js';
import { envelope, scenarios, type Scenario } from '../support/scenario.js';

const POSTS = '/api/collections/posts/records';
const titles = (r: Res) => (r.body.items as { title: string }[]).map((i) => i.title).sort();
const patch = (name: string, body: Record<string, unknown>) => (h: Harness, b: Blog) => patchAsSuperuser(h, b, name, body).then(() => undefined);

describe('who lists and views posts', () => {
  const lists = (who: Caller, expected: string[]): Scenario<Blog> => ({
    name: `${who} lists ${JSON.stringify(expected)}`,
    method: 'GET', url: POSTS, token: (b) => tokenOf(b, who), status: 200,
    match: { totalItems: expected.length },
    after: (r) => { expect(titles(r)).toEqual(expected); },
  });
  const views = (who: Caller, post: string, status: number): Scenario<Blog> => ({
    name: `${who} views ${post} → ${status}`,
    method: 'GET', url: (b) => `${POSTS}/${b.posts[post]}`, token: (b) => tokenOf(b, who), status,
    ...(status === 404 ? { json: envelope(404, 'Not found.') } : {}),
  });
  scenarios(blog, [
    lists('guest', ['Ann public', 'Bob public']),
    lists('ann', ['Ann draft', 'Ann public', 'Bob public']),
    lists('bob', ['Ann public', 'Bob draft', 'Bob public']),
    lists('su', ['Ann draft', 'Ann public', 'Bob draft', 'Bob public']),
    views('guest', 'annDraft', 404),
    views('bob', 'annDraft', 404),
    views('ann', 'annDraft', 200),
    views('su', 'annDraft', 200),
    views('guest', 'annPublic', 200),
  ]);
});

describe('null, empty and expression rules', () => {
  scenarios(blog, [
    { name: 'an expression listRule: a guest lists users and sees none of them', method: 'GET', url: '/api/collections/users/records', status: 200, match: { totalItems: 0, items: [] } },
    {
      name: 'a null listRule is superusers only: a user gets 403',
      before: patch('tags', { listRule: null }),
      method: 'GET', url: '/api/collections/tags/records', token: (b) => b.users.ann.token,
      status: 403, json: envelope(403, 'Only superusers can perform this action.'),
    },
    {
      name: 'a null listRule: the superuser still lists every tag',
      before: patch('tags', { listRule: null }),
      method: 'GET', url: '/api/collections/tags/records', token: (b) => b.su,
      status: 200, match: { totalItems: 3 },
    },
    {
      name: 'createRule is checked against the new record: ann cannot post as bob',
      method: 'POST', url: POSTS, token: (b) => b.users.ann.token, body: (b) => ({ title: 'forged', author: b.users.bob.id }),
      status: 400, json: envelope(400, 'Failed to create record.'),
    },
    {
      name: 'createRule: a guest cannot post',
      method: 'POST', url: POSTS, body: { title: 'x' },
      status: 400, json: envelope(400, 'Failed to create record.'),
    },
  ]);
});

describe('client filters stay inside the rules', () => {
  const filter = (f: string) => `${POSTS}?filter=${encodeURIComponent(f)}`;
  scenarios(blog, [
    { name: 'a filter cannot widen the rule', method: 'GET', url: filter('published = false'), status: 200, match: { items: [], totalItems: 0 } },
    {
      // users.listRule = "id = @request.auth.id": a guest must not learn who wrote what by email
      name: 'guests cannot probe fields of collections they cannot list through a relation filter',
      method: 'GET', url: filter("author.email ~ 'ann'"), status: 200, match: { items: [], totalItems: 0 },
    },
    { name: 'a user cannot filter by a hidden field', method: 'GET', url: filter("secret = 's1'"), token: (b) => b.users.ann.token, status: 400, match: { status: 400, data: {} } },
    { name: 'a user cannot sort by a hidden field', method: 'GET', url: `${POSTS}?sort=secret`, token: (b) => b.users.ann.token, status: 400, match: { status: 400, data: {} } },
    {
      name: 'the superuser filters by a hidden field',
      method: 'GET', url: filter("secret = 's1'"), token: (b) => b.su, status: 200,
      after: (r) => { expect(titles(r)).toEqual(['Ann public']); },
    },
  ]);
});

describe('manageRule', () => {
  const manager = async (h: Harness, b: Blog) => {
    const usersC = (await h.req('GET', '/api/collections/users', { token: b.su })).body;
    await patchAsSuperuser(h, b, 'users', { fields: [...usersC.fields, { name: 'admin', type: 'bool' }] });
    expect((await h.req('PATCH', `/api/collections/users/records/${b.users.ann.id}`, { token: b.su, body: { admin: true } })).status).toBe(200);
    await patchAsSuperuser(h, b, 'users', { manageRule: '@request.auth.admin = true', updateRule: 'id = @request.auth.id || @request.auth.admin = true', listRule: '' });
  };
  scenarios(blog, [{
    name: 'managers may verify accounts and set passwords without oldPassword, and see emails',
    before: manager,
    method: 'PATCH', url: (b) => `/api/collections/users/records/${b.users.bob.id}`, token: (b) => b.users.ann.token,
    body: { verified: true, password: 'brandnew123', passwordConfirm: 'brandnew123' },
    status: 200, match: { verified: true, email: 'bob@example.com' },
    after: async (_r, h, b) => {
      const asBob = await h.req('PATCH', `/api/collections/users/records/${b.users.bob.id}`, { token: b.users.bob.token, body: { name: 'B' } });
      expect(asBob.status).toBe(404); // Bob's session ended with the password change
      expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'bob@example.com', password: 'brandnew123' } })).status).toBe(200);
    },
  }]);
});

describe('stored rules', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const create = (body: unknown) => h.req('POST', '/api/collections', { token: su, body });

  it('a rule that no longer compiles fails closed with the generic 400, for list and view', async () => {
    await create({ name: 'notes', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] });
    const rec = await h.req('POST', '/api/collections/notes/records', { body: { title: 'a' } });
    // a rule the save-time check would refuse, as if the field it names had gone
    const notes = h.core.registry.get('notes')!;
    notes.listRule = 'gone = 1';
    notes.viewRule = 'gone = 1';
    for (const path of ['/api/collections/notes/records', `/api/collections/notes/records/${rec.body.id}`]) {
      const r = await h.req('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body).toEqual({ status: 400, message: 'Something went wrong while processing your request.', data: {} });
    }
  });
});
