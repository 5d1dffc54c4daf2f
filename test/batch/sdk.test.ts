// Batch requests through the official PocketBase SDK's createBatch() against a real server: create,
// update, upsert and delete in one transaction; rules per sub-request as the caller with
// @request.context = "batch"; rollback naming the failing request (before and inside the transaction);
// limits; realtime events after the commit, in order, and none for a rolled-back batch.
import type { RecordSubscription } from 'pocketbase';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH_REQUESTS } from '../../server/core/batch.js';
import { failure, sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();

let annId: string;

async function count(collection: string): Promise<number> {
  return (await sdk.admin.collection(collection).getList(1, 1)).totalItems;
}

beforeAll(async () => {
  const users = sdk.server.core.registry.get('users')!.id;
  annId = (await sdk.admin.collection('users').create({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123', name: 'Ann' })).id;
  await sdk.admin.collections.create({
    name: 'items', type: 'base',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'owner', type: 'relation', collectionId: users, maxSelect: 1 },
    ],
    listRule: '', viewRule: '', createRule: '@request.auth.id != ""', updateRule: 'owner = @request.auth.id', deleteRule: 'owner = @request.auth.id',
  });
  const codes = await sdk.admin.collections.create({ name: 'codes', type: 'base', fields: [{ name: 'title', type: 'text' }, { name: 'code', type: 'text' }], listRule: '', viewRule: '', createRule: '' });
  const code = codes.fields.find((f: { name: string }) => f.name === 'code')!.id as string;
  await sdk.admin.collections.update('codes', { indexes: [{ name: 'codes_code', fields: [code], unique: true }] });
  // only batches may create here: the rule reads @request.context
  await sdk.admin.collections.create({ name: 'batched', type: 'base', fields: [{ name: 'title', type: 'text' }], listRule: '', viewRule: '', createRule: '@request.context = "batch"' });
});

describe('batch with the SDK', () => {
  it('creates, updates, upserts and deletes in one go, answering each sub-request', async () => {
    const ann = sdk.client();
    await ann.collection('users').authWithPassword('ann@example.com', 'password123');
    const existing = await ann.collection('items').create({ title: 'old', owner: annId });
    const doomed = await ann.collection('items').create({ title: 'doomed', owner: annId });
    const batch = ann.createBatch();
    batch.collection('items').create({ title: 'a', owner: annId }, { expand: 'owner', fields: 'title,expand.owner.name' });
    batch.collection('items').update(existing.id, { title: 'old-2' });
    batch.collection('items').upsert({ id: existing.id, title: 'old-3' });
    batch.collection('items').upsert({ id: 'newid123456789a', title: 'upserted', owner: annId });
    batch.collection('items').delete(doomed.id);
    const results = await batch.send();
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 204]);
    expect(results[0].body).toEqual({ title: 'a', expand: { owner: { name: 'Ann' } } });
    expect(results[1].body).toMatchObject({ id: existing.id, title: 'old-2' });
    expect(results[2].body).toMatchObject({ id: existing.id, title: 'old-3' });
    expect(results[3].body).toMatchObject({ id: 'newid123456789a', title: 'upserted' });
    expect(results[4].body).toBeNull();
    expect((await sdk.admin.collection('items').getOne(existing.id)).title).toBe('old-3');
    expect((await sdk.admin.collection('items').getOne('newid123456789a')).title).toBe('upserted');
    await expect(sdk.admin.collection('items').getOne(doomed.id)).rejects.toMatchObject({ status: 404 });
  });

  it('checks each sub-request as the caller: a failing rule rolls back the whole batch and names the request', async () => {
    const before = await count('items');
    const guest = sdk.client();
    const batch = guest.createBatch();
    batch.collection('batched').create({ title: 'fine' });
    batch.collection('items').create({ title: 'guest' }); // createRule needs a user
    const err = await failure(batch.send());
    expect(err.status).toBe(400);
    expect(err.response.message).toBe('Batch transaction failed.');
    expect(err.response.data).toEqual({
      requests: { 1: { code: 'batch_request_failed', message: 'Batch request failed.', response: { status: 400, message: 'Failed to create record.', data: {} } } },
    });
    expect(await count('items')).toBe(before);
    expect(await count('batched')).toBe(0);
  });

  it('@request.context is "batch" inside a batch, "default" outside', async () => {
    const guest = sdk.client();
    await expect(guest.collection('batched').create({ title: 'single' })).rejects.toMatchObject({ status: 400 });
    const batch = guest.createBatch();
    batch.collection('batched').create({ title: 'in a batch' });
    expect((await batch.send())[0].status).toBe(200);
  });

  it('a failure inside the transaction (a unique index) rolls back every write, realtime sees nothing of it, then a good batch arrives in order', async () => {
    const ann = sdk.client();
    await ann.collection('users').authWithPassword('ann@example.com', 'password123');
    const events: RecordSubscription[] = [];
    const watcher = sdk.client();
    await watcher.collection('codes').subscribe('*', (e) => events.push(e));
    const before = await count('codes');
    const bad = ann.createBatch();
    bad.collection('codes').create({ title: 'x1', code: 'same' });
    bad.collection('codes').create({ title: 'x2', code: 'other' });
    bad.collection('codes').create({ title: 'x3', code: 'same' });
    const err = await failure(bad.send());
    expect(Object.keys(err.response.data.requests)).toEqual(['2']);
    expect(err.response.data.requests[2].response.data.code.code).toBe('validation_not_unique');
    expect(await count('codes')).toBe(before);
    const good = ann.createBatch();
    for (const title of ['g1', 'g2', 'g3']) good.collection('codes').create({ title, code: title });
    await good.send();
    await expect.poll(() => events.length, { timeout: 5000 }).toBe(3);
    expect(events.map((e) => [e.action, e.record.title])).toEqual([['create', 'g1'], ['create', 'g2'], ['create', 'g3']]);
    await watcher.realtime.unsubscribe();
  });

  it('refuses more than 50 requests, an empty batch, unknown actions and bodies past the limit', async () => {
    const tooMany = sdk.admin.createBatch();
    for (let i = 0; i <= MAX_BATCH_REQUESTS; i++) tooMany.collection('batched').create({ title: `t${i}` });
    const many = await failure(tooMany.send());
    expect(many.status).toBe(400);
    expect(many.response.data.requests.code).toBe('validation_length_too_long');
    expect((await failure(sdk.admin.createBatch().send())).response.data.requests.code).toBe('validation_required');
    const unknown = await failure(sdk.admin.send('/api/batch', { method: 'POST', body: { requests: [{ method: 'POST', url: '/api/collections' }] } }));
    expect(unknown.response.data.requests[0].response.message).toBe('Unknown batch request action.');
    const huge = await fetch(`${sdk.server.url}/api/batch`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: sdk.admin.authStore.token },
      body: JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/batched/records', body: { title: 'x'.repeat(33 * 1024 * 1024) } }] }),
    });
    expect(huge.status).toBe(413);
    expect(await count('batched')).toBe(1);
  });

  it('takes multipart with the requests under @jsonPayload (as the SDK sends sub-requests with files)', async () => {
    const form = new FormData();
    form.append('@jsonPayload', JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/batched/records', body: { title: 'from a form' } }] }));
    const res = await fetch(`${sdk.server.url}/api/batch`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: number; body: { title: string } }[])[0]).toMatchObject({ status: 200, body: { title: 'from a form' } });
  });
});
