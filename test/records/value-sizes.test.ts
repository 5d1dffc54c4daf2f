// Issue 21, item 3, in process: oversized values are answered with their fields' errors only to a caller
// the rule lets write (before that, a guest could probe a collection's field names by sending large
// values); to anyone else the answer is the rule's, the same as for a small value.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/harness.js';

let h: Harness;
let user: string;
let id: string;

beforeEach(async () => {
  // not about the query budget: a loaded machine's 150 ms deadline must not stand in for the answers checked
  h = await harness({ queryBudgetMs: 10_000 });
  const su = await h.superuser();
  const made = await h.req('POST', '/api/collections', {
    token: su,
    body: {
      name: 'notes', listRule: '', viewRule: '', createRule: '@request.auth.id != ""', updateRule: '@request.auth.id != ""',
      fields: [{ name: 'title', type: 'text' }, { name: 'body', type: 'editor' }, { name: 'body2', type: 'editor' }],
    },
  });
  expect(made.status, made.text).toBe(200);
  await h.req('POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' } });
  user = await h.signIn('users', 'ann@example.com', 'password123');
  id = (await h.req('POST', '/api/collections/notes/records', { token: user, body: { title: 'first' } })).body.id;
});
afterEach(async () => { await h.close(); });

const RULE_FAILED = { status: 400, message: 'Failed to create record.', data: {} };

describe('who learns that a value is too large', () => {
  it('a guest failing the createRule gets the rule failure whatever the key, field or not', async () => {
    for (const body of [{ title: 'small' }, { title: 'x'.repeat(6000) }, { nothere: 'x'.repeat(6000) }, { body: 'x'.repeat(6 << 20) }, { body: 'x'.repeat(4 << 20), body2: 'x'.repeat(5 << 20) }]) {
      const r = await h.req('POST', '/api/collections/notes/records', { body });
      expect(r.body).toEqual(RULE_FAILED);
    }
  });

  it('a guest failing the updateRule gets the 404 whatever it sends', async () => {
    const small = await h.req('PATCH', `/api/collections/notes/records/${id}`, { body: { title: 'small' } });
    expect(small.status).toBe(404);
    const big = await h.req('PATCH', `/api/collections/notes/records/${id}`, { body: { title: 'x'.repeat(6000) } });
    expect(big.body).toEqual(small.body);
  });

  it('a caller the rule lets write gets each field error, and the write budget', async () => {
    const text = await h.req('POST', '/api/collections/notes/records', { token: user, body: { title: 'x'.repeat(6000) } });
    expect(text.body.data.title.code).toBe('validation_max_text_constraint');
    const update = await h.req('PATCH', `/api/collections/notes/records/${id}`, { token: user, body: { body: 'x'.repeat(6 << 20) } });
    expect(update.body.data.body.code).toBe('validation_content_size_limit');
    const heavy = await h.req('POST', '/api/collections/notes/records', { token: user, body: { body: 'x'.repeat(4 << 20), body2: 'x'.repeat(5 << 20) } });
    expect(heavy.status).toBe(400);
    expect(heavy.body.message).toMatch(/more than 8 MiB/);
    expect((await h.req('GET', '/api/collections/notes/records')).body.totalItems).toBe(1);
  });

  it('keys that name no field are not stored and do not count', async () => {
    const r = await h.req('POST', '/api/collections/notes/records', { token: user, body: { title: 'ok', junk: 'x'.repeat(9 << 20) } });
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    expect(r.body.junk).toBeUndefined();
  });
});
