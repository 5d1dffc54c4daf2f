// Smaller differences from PocketBase, closed (issue 13, section 4), through the official SDK over a
// real socket: identityField, collection validation (`_via_`, duplicate indexes, the system flag,
// number and relation options), expand paths with an invalid segment, and the error shapes kept on
// purpose (filter detail for superusers only; every field error of a sign-up at once).
import { beforeAll, describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();


describe('identityField in auth-with-password', () => {
  beforeAll(async () => {
    const members = await sdk.admin.collections.create({ name: 'members', type: 'auth', fields: [{ name: 'username', type: 'text' }], createRule: '' });
    const username = members.fields.find((f: { name: string }) => f.name === 'username')!.id as string;
    await sdk.admin.collections.update('members', { indexes: [{ name: 'members_username', fields: [username], unique: true }], identityFields: ['email', 'username'] });
    // one member's username is another member's email
    await sdk.admin.collection('members').create({ email: 'a@example.com', username: 'b@example.com', password: 'password-a1', passwordConfirm: 'password-a1' });
    await sdk.admin.collection('members').create({ email: 'b@example.com', username: 'bee', password: 'password-b1', passwordConfirm: 'password-b1' });
  });

  const signIn = (body: Record<string, unknown>) => sdk.client().send('/api/collections/members/auth-with-password', { method: 'POST', body });

  it('a field that is not an identity field is a 400 on identityField', async () => {
    const err = await failure(signIn({ identity: 'a@example.com', password: 'password-a1', identityField: 'id' }));
    expect(err.status).toBe(400);
    expect(err.response.data.identityField.code).toBe('validation_in_invalid');
  });

  it('an explicit identity field restricts the lookup to it', async () => {
    // without it, an e-mail-shaped identity is looked up by email first: b@example.com is the second member
    expect((await signIn({ identity: 'b@example.com', password: 'password-b1' })).record.username).toBe('bee');
    await failure(signIn({ identity: 'b@example.com', password: 'password-a1' }));
    const byUsername = await signIn({ identity: 'b@example.com', password: 'password-a1', identityField: 'username' });
    expect(byUsername.record.email).toBe('a@example.com');
    await failure(signIn({ identity: 'b@example.com', password: 'password-b1', identityField: 'username' }));
  });
});

describe('collection validation as PocketBase', () => {
  it('refuses a collection name containing _via_', async () => {
    const err = await failure(sdk.admin.collections.create({ name: 'posts_via_tags', type: 'base' }));
    expect(err.response.data.name.code).toBe('validation_found_via');
  });

  it('refuses two indexes over the same fields', async () => {
    const c = await sdk.admin.collections.create({ name: 'indexed', type: 'base', fields: [{ name: 'a', type: 'text' }, { name: 'b', type: 'text' }] });
    const [a, b] = ['a', 'b'].map((n) => c.fields.find((f: { name: string }) => f.name === n)!.id as string);
    const err = await failure(sdk.admin.collections.update('indexed', { indexes: [{ name: 'i1', fields: [a, b] }, { name: 'i2', fields: [a, b], unique: true }] }));
    expect(err.response.data.indexes[1].fields.code).toBe('validation_duplicated_index_definition');
    // other fields, or the same ones in another order, are other indexes
    const ok = await sdk.admin.collections.update('indexed', { indexes: [{ name: 'i1', fields: [a, b] }, { name: 'i2', fields: [b, a] }, { name: 'i3', fields: [a] }] });
    expect(ok.indexes).toHaveLength(3);
  });

  it('a change of the system flag is a 400 on system; sending it unchanged is fine', async () => {
    const err = await failure(sdk.admin.collections.update('users', { system: true }));
    expect(err.response.data.system.code).toBe('validation_collection_system_flag_change');
    expect((await failure(sdk.admin.collections.update('_superusers', { system: false }))).response.data.system.code).toBe('validation_collection_system_flag_change');
    expect((await sdk.admin.collections.update('users', { system: false })).system).toBe(false);
  });

  it('a number field with min > max is refused', async () => {
    const err = await failure(sdk.admin.collections.create({ name: 'nums', type: 'base', fields: [{ name: 'n', type: 'number', min: 10, max: 5 }] }));
    expect(err.response.data.fields[0].max.code).toBe('validation_min_greater_equal_than_required');
  });

  // PocketBase's TestNumberFieldValidateSettings (core/field_number_test.go), through the API
  it.each([
    ['zero', {}, null],
    ['decimal min', { min: 1.2 }, null],
    ['decimal min (onlyInt)', { onlyInt: true, min: 1.2 }, 'min'],
    ['int min (onlyInt)', { onlyInt: true, min: 1 }, null],
    ['decimal max', { max: 1.2 }, null],
    ['decimal max (onlyInt)', { onlyInt: true, max: 1.2 }, 'max'],
    ['int max (onlyInt)', { onlyInt: true, max: 1 }, null],
    ['min > max', { min: 2, max: 1 }, 'max'],
    ['min <= max', { min: 2, max: 2 }, null],
    // a zero max is checked too (PocketBase's ozzo skips it: a field that refuses every non-zero value)
    ['min > a zero max', { min: 1, max: 0 }, 'max'],
    ['negative min, zero max', { min: -5, max: 0 }, null],
  ])('number settings: %s', async (label, options, errorOn) => {
    const name = `num_${label.replace(/\W+/g, '_')}_${label.length}${label.includes('<') ? 'le' : 'x'}`;
    const create = sdk.admin.collections.create({ name, type: 'base', fields: [{ name: 'n', type: 'number', ...options }] });
    if (errorOn === null) {
      const made = await create;
      expect(made.fields.find((f: { name: string }) => f.name === 'n')).toMatchObject({ min: null, max: null, ...options });
      return;
    }
    const err = await failure(create);
    expect(err.status).toBe(400);
    expect(Object.keys(err.response.data.fields[0])).toEqual([errorOn]);
    // an existing field's options changed the same way are refused too, and nothing is stored
    const made = await sdk.admin.collections.create({ name, type: 'base', fields: [{ name: 'n', type: 'number' }] });
    const fields = made.fields.map((f: { name: string }) => (f.name === 'n' ? { ...f, ...options } : f));
    expect((await failure(sdk.admin.collections.update(name, { fields }))).status).toBe(400);
    expect((await sdk.admin.collections.getOne(name)).fields.find((f: { name: string }) => f.name === 'n')).toMatchObject({ min: null, max: null });
  });

  it('a relation with minSelect and no maxSelect is refused on maxSelect', async () => {
    const users = sdk.server.core.registry.get('users')!.id;
    const err = await failure(sdk.admin.collections.create({ name: 'rels', type: 'base', fields: [{ name: 'r', type: 'relation', collectionId: users, minSelect: 1 }] }));
    expect(err.response.data.fields[0].maxSelect.code).toBe('validation_required');
    const ok = await sdk.admin.collections.create({ name: 'rels', type: 'base', fields: [{ name: 'r', type: 'relation', collectionId: users, minSelect: 1, maxSelect: 2 }] });
    expect(ok.fields.find((f: { name: string }) => f.name === 'r')).toMatchObject({ minSelect: 1, maxSelect: 2 });
  });
});

describe('expand paths', () => {
  it('a path with a segment that is not a relation expands nothing; the valid path beside it still expands', async () => {
    await sdk.admin.collections.create({ name: 'authors', type: 'base', fields: [{ name: 'name', type: 'text' }], listRule: '', viewRule: '' });
    const authors = sdk.server.core.registry.get('authors')!.id;
    await sdk.admin.collections.create({ name: 'books', type: 'base', fields: [{ name: 'title', type: 'text' }, { name: 'author', type: 'relation', collectionId: authors, maxSelect: 1 }], listRule: '', viewRule: '' });
    const author = await sdk.admin.collection('authors').create({ name: 'Le Guin' });
    const book = await sdk.admin.collection('books').create({ title: 'Earthsea', author: author.id });
    const guest = sdk.client();
    expect((await guest.collection('books').getOne(book.id, { expand: 'author.name' })).expand).toBeUndefined();
    expect((await guest.collection('books').getOne(book.id, { expand: 'author,author.name' })).expand?.author.name).toBe('Le Guin');
    expect((await guest.collection('books').getOne(book.id, { expand: 'author' })).expand?.author.name).toBe('Le Guin');
  });
});

describe('error shapes kept on purpose', () => {
  it('a bad filter is PocketBase\'s bare 400 for clients; superusers (the admin UI) also get the parser\'s detail', async () => {
    const guest = await failure(sdk.client().collection('books').getList(1, 10, { filter: 'title ~' }));
    expect(guest.status).toBe(400);
    expect(guest.response.data).toEqual({});
    const su = await failure(sdk.admin.collection('books').getList(1, 10, { filter: 'title ~' }));
    expect(su.response.data.filter.code).toBe('validation_invalid_filter');
    const sort = await failure(sdk.client().collection('books').getList(1, 10, { sort: 'nope' }));
    expect(sort.response.data).toEqual({});
  });

  it('a sign-up with a password mismatch and an invalid email reports both', async () => {
    const err = await failure(sdk.client().collection('users').create({ email: 'not-an-email', password: 'password123', passwordConfirm: 'different1' }));
    expect(Object.keys(err.response.data).sort()).toEqual(['email', 'passwordConfirm']);
  });
});
