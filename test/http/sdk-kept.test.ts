// Nothing accepted and then dropped (issue 20, section 3), through the official SDK over a real socket:
// PocketBase's `CREATE INDEX` strings in the collections API, auth collection options stored or refused,
// the schema import of a bare new collection and of a user's own `created` index, a multipart batch with
// files (and its rollback), and the records import's CSV refusals.
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.js';
import { failure, startSdkServer } from '../support/sdk-server.js';

let server: RunningServer;
let admin: PocketBase;
let client: () => PocketBase;

beforeAll(async () => {
  ({ server, admin, client } = await startSdkServer());
});
afterAll(async () => { await server.close(); });

interface Idx { name: string; fields: string[]; unique: boolean }
const fieldId = (c: { fields: { name: string; id: string }[] }, name: string) => c.fields.find((f) => f.name === name)!.id;

describe('indexes as CREATE INDEX strings', () => {
  it('are accepted beside index objects on create and update; the answer keeps the spec form', async () => {
    const made = await admin.collections.create({
      name: 'tagged', type: 'base',
      fields: [{ name: 'slug', type: 'text' }, { name: 'title', type: 'text' }, { name: 'rank', type: 'number' }],
      indexes: ['CREATE UNIQUE INDEX `idx_tagged_slug` ON `tagged` (`slug`)', { name: 'idx_tagged_rank', fields: ['rank'], unique: false }],
    }).catch((e: unknown) => e) as { status: number; response: { data: { indexes: Record<number, { fields: { code: string } }> } } };
    // an index object names field ids: the second one above names a field by name, so it is refused
    expect(made.status).toBe(400);
    expect(made.response.data.indexes[1].fields.code).toBe('validation_missing_field');

    const ok = await admin.collections.create({
      name: 'tagged', type: 'base',
      fields: [{ name: 'slug', type: 'text' }, { name: 'title', type: 'text' }, { name: 'rank', type: 'number' }],
      indexes: ['CREATE UNIQUE INDEX `idx_tagged_slug` ON `tagged` (`slug`)', 'CREATE INDEX idx_tagged_title_rank ON tagged (title, rank)'],
    });
    expect(ok.indexes).toEqual([
      { name: 'idx_tagged_slug', fields: [fieldId(ok, 'slug')], unique: true },
      { name: 'idx_tagged_title_rank', fields: [fieldId(ok, 'title'), fieldId(ok, 'rank')], unique: false },
    ]);
    // the unique index is real
    await admin.collection('tagged').create({ slug: 'a' });
    const dup = await failure(admin.collection('tagged').create({ slug: 'a' }));
    expect(dup.response.data.slug.code).toBe('validation_not_unique');

    // PATCH: a string beside an object (the stored ones sent back as objects)
    const updated = await admin.collections.update('tagged', {
      indexes: [...(ok.indexes as Idx[]).slice(0, 1), 'CREATE INDEX IF NOT EXISTS "idx_tagged_rank" ON "whatever" ("rank")'],
    });
    expect(updated.indexes).toEqual([
      { name: 'idx_tagged_slug', fields: [fieldId(ok, 'slug')], unique: true },
      { name: 'idx_tagged_rank', fields: [fieldId(ok, 'rank')], unique: false },
    ]);
    expect((await admin.collections.getOne('tagged')).indexes).toEqual(updated.indexes);
  });

  it('what Deskbase cannot keep is a 400 naming the index, and nothing changes', async () => {
    const before = await admin.collections.getOne('tagged');
    const cases: [string, RegExp][] = [
      ['CREATE INDEX idx_t_lower ON tagged (title) WHERE rank > 0', /WHERE is not supported yet/],
      ['CREATE INDEX idx_t_nocase ON tagged (title COLLATE NOCASE)', /COLLATE NOCASE is not supported yet/],
      ['CREATE INDEX idx_t_desc ON tagged (rank DESC)', /DESC is not supported yet/],
      ['CREATE INDEX idx_t_expr ON tagged (lower(title))', /Not a field of the collection: lower\(title\)/],
      ['CREATE INDEX idx_t_missing ON tagged (nope)', /Not a field of the collection: nope/],
      ['DROP TABLE tagged', /Invalid CREATE INDEX expression/],
    ];
    for (const [sql, message] of cases) {
      const err = await failure(admin.collections.update('tagged', { indexes: [sql] }));
      expect(err.status).toBe(400);
      expect(err.response.data.indexes[0].code).toBe('validation_invalid_index_expression');
      expect(err.response.data.indexes[0].message).toMatch(message);
    }
    expect((await admin.collections.getOne('tagged')).indexes).toEqual(before.indexes);
  });

  it("an auth collection's PocketBase email and tokenKey indexes are Deskbase's own, not user indexes", async () => {
    const made = await admin.collections.create({
      name: 'members', type: 'auth', fields: [{ name: 'handle', type: 'text' }],
      indexes: [
        'CREATE UNIQUE INDEX `idx_tokenKey_members` ON `members` (`tokenKey`)',
        "CREATE UNIQUE INDEX `idx_email_members` ON `members` (`email`) WHERE `email` != ''",
        'CREATE UNIQUE INDEX idx_members_handle ON members (handle)',
      ],
    });
    expect(made.indexes).toEqual([{ name: 'idx_members_handle', fields: [fieldId(made, 'handle')], unique: true }]);
    expect(made.maintainedIndexes.map((i: Idx & { purpose: string }) => i.purpose)).toContain('email');
  });
});
