// The engine's own row number (`_rowid_`): SQLite hides it from `SELECT *`, PostgreSQL (where Deskbase
// makes it a column) does not. No answer of the API may carry it, whatever the engine: records
// written, read, listed, expanded, exported, signed in, in a batch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/harness.js';

let h: Harness;
let su = '';
const answers: { what: string; text: string }[] = [];

beforeAll(async () => {
  h = await harness();
  su = await h.superuser();
  const keep = async (what: string, method: string, path: string, opts: Parameters<Harness['req']>[2] = {}) => {
    const r = await h.req(method, path, { token: su, ...opts });
    expect(r.status, `${what}: ${r.text}`).toBeLessThan(300);
    answers.push({ what, text: r.text });
    return r;
  };
  const users = h.core.registry.get('users')!.id;
  const posts = await keep('collection create', 'POST', '/api/collections', { body: { name: 'posts', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'author', type: 'relation', collectionId: users, maxSelect: 1, cascadeDelete: true }] } });
  const user = await keep('user create', 'POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123', name: 'Ann' } });
  const post = await keep('record create', 'POST', '/api/collections/posts/records?expand=author', { body: { title: 'one', author: user.body.id } });
  await keep('record view', 'GET', `/api/collections/posts/records/${post.body.id}?expand=author`);
  await keep('record list', 'GET', '/api/collections/posts/records?expand=author');
  await keep('back-relation expand', 'GET', `/api/collections/users/records/${user.body.id}?expand=posts_via_author`);
  await keep('record update', 'PATCH', `/api/collections/posts/records/${post.body.id}?expand=author`, { body: { title: 'two' } });
  await keep('batch', 'POST', '/api/batch', { body: { requests: [
    { method: 'POST', url: '/api/collections/posts/records', body: { title: 'b1' } },
    { method: 'PUT', url: '/api/collections/posts/records', body: { id: 'upserted1234567', title: 'b2' } },
    { method: 'PATCH', url: `/api/collections/posts/records/${post.body.id}`, body: { title: 'b3' } },
  ] } });
  for (const format of ['json', 'ndjson', 'csv']) await keep(`export ${format}`, 'GET', `/api/collections/posts/records/export?format=${format}`);
  await keep('sign-in', 'POST', '/api/collections/users/auth-with-password', { token: undefined, body: { identity: 'ann@example.com', password: 'password123' } });
  await keep('collection view', 'GET', `/api/collections/${posts.body.id}`);
  await keep('cascading delete', 'DELETE', `/api/collections/users/records/${user.body.id}`);
});
afterAll(() => h.close());

describe('the engine\'s row number', () => {
  it('reaches no answer', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const { what, text } of answers) expect(text, what).not.toContain('_rowid_');
  });
});
