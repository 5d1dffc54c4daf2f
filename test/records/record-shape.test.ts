// A record's keys and values as the API answers them (record-serializer.ts): alphabetical keys, every
// field in its API form, hidden fields to superusers only, collectionId and collectionName of the
// collection as it is now (a renamed one keeps its fields, and the plan made for them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/harness.js';

let h: Harness;
let su = '';

beforeAll(async () => {
  h = await harness();
  su = await h.superuser();
});

afterAll(async () => {
  await h?.close();
});

describe('record shape', () => {
  it('answers every key alphabetically in API form, hidden fields to superusers only, under the collection name it has now', async () => {
    const created = await h.req('POST', '/api/collections', { token: su, body: {
      name: 'notes', listRule: '', viewRule: '',
      fields: [
        { name: 'title', type: 'text' }, { name: 'count', type: 'number' }, { name: 'done', type: 'bool' },
        { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 }, { name: 'meta', type: 'json' },
        { name: 'secret', type: 'text', hidden: true }, { name: 'when', type: 'date' },
      ],
    } });
    expect(created.status, created.text).toBe(200);
    const record = await h.req('POST', '/api/collections/notes/records', { token: su, body: { title: 'x', count: 2, done: true, tags: ['b', 'a'], meta: { k: [1] }, secret: 's', when: '2024-01-02 03:04:05.678Z' } });
    expect(record.status, record.text).toBe(200);
    const id = record.body.id as string;
    const expected = { collectionId: created.body.id, collectionName: 'notes', count: 2, done: true, id, meta: { k: [1] }, tags: ['b', 'a'], title: 'x', when: '2024-01-02T03:04:05.678Z' };
    for (const path of [`/api/collections/notes/records/${id}`, '/api/collections/notes/records']) {
      const guest = await h.req('GET', path);
      const shown = path.endsWith(id) ? guest.body : guest.body.items[0];
      expect(shown).toEqual(expected);
      expect(Object.keys(shown)).toEqual(Object.keys(expected));
    }
    expect((await h.req('GET', `/api/collections/notes/records/${id}`, { token: su })).body).toEqual({ ...expected, secret: 's' });
    const renamed = await h.req('PATCH', '/api/collections/notes', { token: su, body: { name: 'memos' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await h.req('GET', `/api/collections/memos/records/${id}`)).body).toEqual({ ...expected, collectionName: 'memos' });
  });
});
