// A view, a list and the row a create or an update reads back name each field (records-read.ts
// wholeRow, getRow), and the store keeps the column names of such statements (statements.ts
// columnNames): a field added, renamed or removed shows in the next read or write answer, on either engine. The serializer's plan is made once per fields list and kind of caller
// (record-serializer.ts): a hidden field reaches superusers only, whoever asked first, and shows to
// everyone once it is no longer hidden.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/harness.js';

let h: Harness;
let su = '';

beforeAll(async () => {
  h = await harness();
  su = await h.superuser();
});
afterAll(() => h.close());

describe('reads after a schema change', () => {
  it('a view and a list show a field added, renamed and removed at once', async () => {
    const made = await h.req('POST', '/api/collections', { token: su, body: { name: 'cols', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }] } });
    expect(made.status).toBe(200);
    const rec = await h.req('POST', '/api/collections/cols/records', { token: su, body: { title: 'one' } });
    const view = async () => (await h.req('GET', `/api/collections/cols/records/${rec.body.id}`)).body as Record<string, unknown>;
    const listed = async () => ((await h.req('GET', '/api/collections/cols/records')).body as { items: Record<string, unknown>[] }).items[0];
    for (const read of [view, listed]) expect(Object.keys(await read()).sort()).toEqual(['collectionId', 'collectionName', 'id', 'title']);
    const fields = (made.body as { fields: Record<string, unknown>[] }).fields;
    const title = fields.find((f) => f.name === 'title')!;
    const added = await h.req('PATCH', '/api/collections/cols', { token: su, body: { fields: [...fields, { name: 'score', type: 'number' }] } });
    expect(added.status).toBe(200);
    for (const read of [view, listed]) expect(await read()).toMatchObject({ title: 'one', score: 0 });
    const renamed = (added.body as { fields: Record<string, unknown>[] }).fields.map((f) => (f.id === title.id ? { ...f, name: 'heading' } : f));
    expect((await h.req('PATCH', '/api/collections/cols', { token: su, body: { fields: renamed } })).status).toBe(200);
    for (const read of [view, listed]) {
      const r = await read();
      expect(r).toMatchObject({ heading: 'one', score: 0 });
      expect(r).not.toHaveProperty('title');
    }
    const removed = renamed.filter((f) => f.name !== 'score');
    expect((await h.req('PATCH', '/api/collections/cols', { token: su, body: { fields: removed } })).status).toBe(200);
    for (const read of [view, listed]) expect(Object.keys(await read()).sort()).toEqual(['collectionId', 'collectionName', 'heading', 'id']);
  });

  it('a create and an update answer with a field added, renamed and removed at once (the row they read back names each field)', async () => {
    const made = await h.req('POST', '/api/collections', { token: su, body: { name: 'written', fields: [{ name: 'title', type: 'text' }] } });
    expect(made.status).toBe(200);
    const create = async (body: Record<string, unknown>) => {
      const res = await h.req('POST', '/api/collections/written/records', { token: su, body });
      expect(res.status).toBe(200);
      return res.body as Record<string, unknown>;
    };
    const update = async (id: unknown, body: Record<string, unknown>) => {
      const res = await h.req('PATCH', `/api/collections/written/records/${String(id)}`, { token: su, body });
      expect(res.status).toBe(200);
      return res.body as Record<string, unknown>;
    };
    const first = await create({ title: 'one' });
    expect(Object.keys(first).sort()).toEqual(['collectionId', 'collectionName', 'id', 'title']);
    const fields = (made.body as { fields: Record<string, unknown>[] }).fields;
    const title = fields.find((f) => f.name === 'title')!;
    const added = await h.req('PATCH', '/api/collections/written', { token: su, body: { fields: [...fields, { name: 'score', type: 'number' }] } });
    expect(added.status).toBe(200);
    expect(await create({ title: 'two', score: 2 })).toMatchObject({ title: 'two', score: 2 });
    expect(await update(first.id, { score: 5 })).toMatchObject({ title: 'one', score: 5 });
    const renamed = (added.body as { fields: Record<string, unknown>[] }).fields.map((f) => (f.id === title.id ? { ...f, name: 'heading' } : f));
    expect((await h.req('PATCH', '/api/collections/written', { token: su, body: { fields: renamed } })).status).toBe(200);
    const third = await create({ heading: 'three', score: 3 });
    expect(third).toMatchObject({ heading: 'three', score: 3 });
    expect(third).not.toHaveProperty('title');
    const removed = renamed.filter((f) => f.name !== 'score');
    expect((await h.req('PATCH', '/api/collections/written', { token: su, body: { fields: removed } })).status).toBe(200);
    expect(Object.keys(await create({ heading: 'four' })).sort()).toEqual(['collectionId', 'collectionName', 'heading', 'id']);
    expect(Object.keys(await update(first.id, { heading: 'uno' })).sort()).toEqual(['collectionId', 'collectionName', 'heading', 'id']);
  });

  it('a hidden field reaches superusers only, whoever asks first, and everyone once it is shown', async () => {
    const made = await h.req('POST', '/api/collections', { token: su, body: { name: 'secretive', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'note', type: 'text', hidden: true }] } });
    expect(made.status).toBe(200);
    const rec = await h.req('POST', '/api/collections/secretive/records', { token: su, body: { title: 't', note: 'n' } });
    const path = `/api/collections/secretive/records/${rec.body.id}`;
    const guest = async () => (await h.req('GET', path)).body as Record<string, unknown>;
    const admin = async () => (await h.req('GET', path, { token: su })).body as Record<string, unknown>;
    expect(await guest()).not.toHaveProperty('note');
    expect(await admin()).toMatchObject({ note: 'n' });
    expect(await guest()).not.toHaveProperty('note');
    const fields = (made.body as { fields: Record<string, unknown>[] }).fields.map((f) => (f.name === 'note' ? { ...f, hidden: false } : f));
    expect((await h.req('PATCH', '/api/collections/secretive', { token: su, body: { fields } })).status).toBe(200);
    expect(await guest()).toMatchObject({ note: 'n' });
  });
});
