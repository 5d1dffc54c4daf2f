// Nothing accepted and then dropped (issue 20, section 3), through the official SDK over a real socket:
// PocketBase's `CREATE INDEX` strings in the collections API, auth collection options stored or refused,
// the schema import of a bare new collection and of a user's own `created` index, a multipart batch with
// files (and its rollback), and the records import's CSV refusals.
import { beforeAll, describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();


interface Idx { name: string; fields: string[]; unique: boolean }
const fieldId = (c: { fields: { name: string; id: string }[] }, name: string) => c.fields.find((f) => f.name === name)!.id;

describe('indexes as CREATE INDEX strings', () => {
  it('are accepted beside index objects on create and update; the answer keeps the spec form', async () => {
    const made = await sdk.admin.collections.create({
      name: 'tagged', type: 'base',
      fields: [{ name: 'slug', type: 'text' }, { name: 'title', type: 'text' }, { name: 'rank', type: 'number' }],
      indexes: ['CREATE UNIQUE INDEX `idx_tagged_slug` ON `tagged` (`slug`)', { name: 'idx_tagged_rank', fields: ['rank'], unique: false }],
    }).catch((e: unknown) => e) as { status: number; response: { data: { indexes: Record<number, { fields: { code: string } }> } } };
    // an index object names field ids: the second one above names a field by name, so it is refused
    expect(made.status).toBe(400);
    expect(made.response.data.indexes[1].fields.code).toBe('validation_missing_field');

    const ok = await sdk.admin.collections.create({
      name: 'tagged', type: 'base',
      fields: [{ name: 'slug', type: 'text' }, { name: 'title', type: 'text' }, { name: 'rank', type: 'number' }],
      indexes: ['CREATE UNIQUE INDEX `idx_tagged_slug` ON `tagged` (`slug`)', 'CREATE INDEX idx_tagged_title_rank ON tagged (title, rank)'],
    });
    expect(ok.indexes).toEqual([
      { name: 'idx_tagged_slug', fields: [fieldId(ok, 'slug')], unique: true },
      { name: 'idx_tagged_title_rank', fields: [fieldId(ok, 'title'), fieldId(ok, 'rank')], unique: false },
    ]);
    // the unique index is real
    await sdk.admin.collection('tagged').create({ slug: 'a' });
    const dup = await failure(sdk.admin.collection('tagged').create({ slug: 'a' }));
    expect(dup.response.data.slug.code).toBe('validation_not_unique');

    // PATCH: a string beside an object (the stored ones sent back as objects)
    const updated = await sdk.admin.collections.update('tagged', {
      indexes: [...(ok.indexes as unknown as Idx[]).slice(0, 1), 'CREATE INDEX IF NOT EXISTS "idx_tagged_rank" ON "whatever" ("rank")'],
    });
    expect(updated.indexes).toEqual([
      { name: 'idx_tagged_slug', fields: [fieldId(ok, 'slug')], unique: true },
      { name: 'idx_tagged_rank', fields: [fieldId(ok, 'rank')], unique: false },
    ]);
    expect((await sdk.admin.collections.getOne('tagged')).indexes).toEqual(updated.indexes);
  });

  it('what Deskbase cannot keep is a 400 naming the index, and nothing changes', async () => {
    const before = await sdk.admin.collections.getOne('tagged');
    const cases: [string, RegExp][] = [
      ['CREATE INDEX idx_t_lower ON tagged (title) WHERE rank > 0', /WHERE is not supported yet/],
      ['CREATE INDEX idx_t_nocase ON tagged (title COLLATE NOCASE)', /COLLATE NOCASE is not supported yet/],
      ['CREATE INDEX idx_t_desc ON tagged (rank DESC)', /DESC is not supported yet/],
      ['CREATE INDEX idx_t_expr ON tagged (lower(title))', /Not a field of the collection: lower\(title\)/],
      ['CREATE INDEX idx_t_missing ON tagged (nope)', /Not a field of the collection: nope/],
      ['DROP TABLE tagged', /Invalid CREATE INDEX expression/],
    ];
    for (const [sql, message] of cases) {
      const err = await failure(sdk.admin.collections.update('tagged', { indexes: [sql] }));
      expect(err.status).toBe(400);
      expect(err.response.data.indexes[0].code).toBe('validation_invalid_index_expression');
      expect(err.response.data.indexes[0].message).toMatch(message);
    }
    expect((await sdk.admin.collections.getOne('tagged')).indexes).toEqual(before.indexes);
  });

  it("an auth collection's PocketBase email and tokenKey indexes are Deskbase's own, not user indexes", async () => {
    const made = await sdk.admin.collections.create({
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

describe('CSV import: malformed input is refused, naming its row; nothing is imported', () => {
  beforeAll(async () => {
    await sdk.admin.collections.create({ name: 'notes', type: 'base', fields: [{ name: 'title', type: 'text' }, { name: 'body', type: 'text' }] });
  });
  const importCsv = (csv: string) => sdk.admin.send('/api/collections/notes/records/import?format=csv', { method: 'POST', body: csv, headers: { 'content-type': 'text/csv' } });
  const count = async () => (await sdk.admin.collection('notes').getList(1, 1)).totalItems;

  it.each([
    ['a quote closed in the middle of a cell', 'title,body\nfine,one\n"x"y,z\n', 2, 3, /Invalid Closing Quote/],
    ['a quote inside an unquoted cell', 'title,body\nfine,one\na"b,z\n', 2, 3, /Invalid Opening Quote/],
    ['a row with fewer cells than the header', 'title,body\nfine,one\nonly-title\n', 2, 3, /expect 2, got 1/],
    ['a row with more cells than the header', 'title,body\nfine,one\nfine,two\na,b,c\n', 3, 4, /expect 2, got 3/],
    ['a quote never closed (the line is where the text ends)', 'title,body\nfine,one\n"open,z\nmore,rows\n', 2, 4, /Quote Not Closed/],
  ])('%s', async (_label, csv, row, line, reason) => {
    const err = await failure(importCsv(csv));
    expect(err.status).toBe(400);
    expect(err.response.message).toContain(`row ${row} (line ${line})`);
    expect(err.response.message).toMatch(reason);
    expect(err.response.message).toContain('Nothing was imported');
    expect(err.response.data.rows[row].row.message).toMatch(reason);
    expect(await count()).toBe(0);
  });

  it('RFC 4180 CSV still imports: quoted commas, quotes, line breaks, a BOM, CRLF, blank lines, guarded formulas', async () => {
    const csv = '\uFEFFtitle,body\r\n"a, b","say ""hi"""\r\n\r\n"two\nlines",\'=1+1\r\nplain,\r\n';
    expect(await importCsv(csv)).toEqual({ imported: 3 });
    const rows = await sdk.admin.collection('notes').getFullList({ sort: 'title', fields: 'title,body' });
    expect(rows.map((r) => [r.title, r.body])).toEqual([['a, b', 'say "hi"'], ['plain', ''], ['two\nlines', '=1+1']]);
  });
});

describe('schema import', () => {
  it('a new collection given without its system fields gets them, as PocketBase adds them', async () => {
    await sdk.admin.collections.import([
      { name: 'bare_posts', type: 'base', fields: [{ name: 'title', type: 'text' }], listRule: '' },
      { name: 'bare_people', type: 'auth', fields: [{ name: 'nick', type: 'text' }] },
      // only some system fields given (an e-mail with its own options): the rest are added
      { name: 'some_people', type: 'auth', fields: [{ name: 'email', type: 'email', required: true, system: true, onlyDomains: ['example.com'] }, { name: 'nick', type: 'text' }] },
    ] as never[], false);
    const posts = await sdk.admin.collections.getOne('bare_posts');
    expect(posts.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'title']);
    const people = await sdk.admin.collections.getOne('bare_people');
    expect(people.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'nick', 'password', 'email', 'emailVisibility', 'verified']);
    const some = await sdk.admin.collections.getOne('some_people');
    expect(some.fields.map((f: { name: string }) => f.name).sort()).toEqual(['email', 'emailVisibility', 'id', 'nick', 'password', 'verified']);
    expect(some.fields.find((f: { name: string }) => f.name === 'email')).toMatchObject({ system: true, onlyDomains: ['example.com'] });

    // and they work: a record, a sign-up and a sign-in
    const post = await sdk.client().collection('bare_posts').getList(1, 1);
    expect(post.totalItems).toBe(0);
    await sdk.admin.collections.update('bare_people', { createRule: '' });
    await sdk.client().collection('bare_people').create({ email: 'p@example.com', password: 'password-123', passwordConfirm: 'password-123', nick: 'p' });
    const signedIn = await sdk.client().collection('bare_people').authWithPassword('p@example.com', 'password-123');
    expect(signedIn.record.nick).toBe('p');
  });

  it("a user's own index over created is kept under its own name and exported back", async () => {
    await sdk.admin.collections.import([
      {
        name: 'diary', type: 'base',
        fields: [{ name: 'title', type: 'text' }, { name: 'created', type: 'autodate', onCreate: true, onUpdate: false }, { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true }],
        indexes: ['CREATE INDEX `idx_diary_created` ON `diary` (`created`)'],
      },
    ] as never[], false);
    // as PocketBase exports it: ids everywhere
    await sdk.admin.collections.import([
      {
        id: 'pbc_3000000001', name: 'journal', type: 'base', system: false, listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null,
        fields: [
          { autogeneratePattern: '[a-z0-9]{15}', hidden: false, id: 'text3208210256', max: 15, min: 15, name: 'id', pattern: '^[a-z0-9]+$', presentable: false, primaryKey: true, required: true, system: true, type: 'text' },
          { hidden: false, id: 'autodate2990389176', name: 'created', onCreate: true, onUpdate: false, presentable: false, system: false, type: 'autodate' },
        ],
        indexes: ['CREATE INDEX `idx_journal_created` ON `journal` (`created`)'],
      },
    ] as never[], false);
    const journal = await sdk.admin.collections.getOne('journal');
    expect(journal.indexes).toEqual([{ name: 'idx_journal_created', fields: ['autodate2990389176'], unique: false }]);
    expect(journal.maintainedIndexes).toEqual([]);

    // an older PocketBase's own `_<id>_created_idx` (apps such as UpSnap ship it), on a collection whose id Deskbase keeps
    await sdk.admin.collections.import([
      { id: 'z5lghx2r3tm45n1', name: 'devices', type: 'base', fields: [{ name: 'created', type: 'autodate', onCreate: true }], indexes: ['CREATE INDEX `_z5lghx2r3tm45n1_created_idx` ON `devices` (`created`)'] },
    ] as never[], false);
    const devices = await sdk.admin.collections.getOne('devices');
    expect(devices.id).toBe('z5lghx2r3tm45n1');
    expect(devices.indexes).toEqual([{ name: '_z5lghx2r3tm45n1_created_idx', fields: [fieldId(devices, 'created')], unique: false }]);
    expect(devices.maintainedIndexes).toEqual([]);

    const diary = await sdk.admin.collections.getOne('diary');
    expect(diary.indexes).toEqual([{ name: 'idx_diary_created', fields: [fieldId(diary, 'created')], unique: false }]);
    // the user's index serves the default sort: Deskbase adds none of its own beside it
    expect(diary.maintainedIndexes.filter((i: { purpose: string }) => i.purpose === 'defaultSort')).toEqual([]);
    const exported = await sdk.admin.send('/api/collections/meta/export', {}) as { name: string; indexes: string[] }[];
    expect(exported.find((c) => c.name === 'diary')!.indexes).toEqual(['CREATE INDEX `idx_diary_created` ON `diary` (`created`)']);
    expect(exported.find((c) => c.name === 'journal')!.indexes).toEqual(['CREATE INDEX `idx_journal_created` ON `journal` (`created`)']);
    expect(exported.find((c) => c.name === 'devices')!.indexes).toEqual(['CREATE INDEX `_z5lghx2r3tm45n1_created_idx` ON `devices` (`created`)']);
    // imported again unchanged
    const again = await sdk.admin.send('/api/collections/import', { method: 'PUT', body: { collections: exported.filter((c) => c.name === 'diary'), dryRun: true } }) as { changes: { name: string; action: string }[] };
    expect(again.changes.find((c) => c.name === 'diary')!.action).toBe('unchanged');
  });
});

describe('auth collection options', () => {
  const OPTION_KEYS = ['authAlert', 'oauth2', 'passwordAuth', 'mfa', 'otp', 'authToken', 'passwordResetToken', 'emailChangeToken', 'verificationToken', 'fileToken', 'verificationTemplate', 'resetPasswordTemplate', 'confirmEmailChangeTemplate'];

  it("every PocketBase auth option is answered, with PocketBase's defaults where Deskbase does the same", async () => {
    const users = await sdk.admin.collections.getOne('users');
    for (const key of OPTION_KEYS) expect(users, key).toHaveProperty(key);
    expect(users.passwordAuth).toEqual({ enabled: true, identityFields: ['email'] });
    expect(users.mfa).toEqual({ enabled: false, duration: 1800, rule: '' });
    expect(users.otp).toMatchObject({ enabled: false, duration: 180, length: 8, emailTemplate: { subject: 'OTP for {APP_NAME}' } });
    expect(users.oauth2).toEqual({ enabled: false, mappedFields: { id: '', name: '', username: '', avatarURL: '' }, providers: [] });
    expect(users.authAlert.enabled).toBe(true); // as PocketBase's new collections
    expect(users.authToken).toEqual({ duration: 604800 });
    expect(users.fileToken).toEqual({ duration: 180 });
    expect(users.verificationTemplate.subject).toBe('Verify your {APP_NAME} email');
    // never a secret
    expect(JSON.stringify(users)).not.toMatch(/secret/i);
    // a base collection has none
    expect(await sdk.admin.collections.getOne('notes')).not.toHaveProperty('mfa');
  });

  it('what Deskbase does is stored and answered by a later GET: settings of options that are off, templates, e-mail token durations', async () => {
    const patch = {
      mfa: { enabled: false, duration: 600, rule: "email ~ '@example.com'" },
      otp: { enabled: false, duration: 300, length: 6, emailTemplate: { subject: 'Your code', body: '<p>{OTP}</p>' } },
      oauth2: { enabled: false, mappedFields: { name: 'handle', avatarURL: 'avatar' }, providers: [] },
      authAlert: { enabled: false, emailTemplate: { subject: 'New sign-in', body: '<p>{ALERT_INFO}</p>' } },
      passwordAuth: { enabled: true, identityFields: ['email'] },
      authToken: { duration: 604800 },
      fileToken: { duration: 180 },
      passwordResetToken: { duration: 3600 },
      emailChangeToken: { duration: 7200 },
      verificationToken: { duration: 86400 },
      verificationTemplate: { subject: 'Verify', body: '<a href="{APP_URL}/verify/{TOKEN}">verify</a>' },
      resetPasswordTemplate: { subject: 'Reset', body: '<a href="{APP_URL}/reset/{TOKEN}">reset</a>' },
      confirmEmailChangeTemplate: { subject: 'Confirm', body: '<a href="{APP_URL}/confirm/{TOKEN}">confirm</a>' },
    };
    const answered = await sdk.admin.collections.update('members', patch);
    const read = await sdk.admin.collections.getOne('members');
    for (const c of [answered, read]) {
      expect(c.mfa).toEqual(patch.mfa);
      expect(c.otp).toEqual(patch.otp);
      // a mapped field naming no field of the collection is unset, as PocketBase does
      expect(c.oauth2).toEqual({ enabled: false, mappedFields: { id: '', name: 'handle', username: '', avatarURL: '' }, providers: [] });
      expect(c.authAlert).toEqual(patch.authAlert);
      for (const key of ['passwordResetToken', 'emailChangeToken', 'verificationToken', 'verificationTemplate', 'resetPasswordTemplate', 'confirmEmailChangeTemplate'] as const) expect(c[key]).toEqual(patch[key]);
    }
    // a PATCH of one sub-key keeps the others, as PocketBase binds onto the stored options
    const partial = await sdk.admin.collections.update('members', { otp: { length: 7 } });
    expect(partial.otp).toEqual({ ...patch.otp, length: 7 });
    // passwordAuth.identityFields is the spec's identityFields
    const byPasswordAuth = await sdk.admin.collections.update('members', { passwordAuth: { identityFields: ['email', 'handle'] } });
    expect(byPasswordAuth.identityFields).toEqual(['email', 'handle']);
    expect(byPasswordAuth.passwordAuth).toEqual({ enabled: true, identityFields: ['email', 'handle'] });
    // and it takes effect: a member signs in by handle
    await sdk.admin.collection('members').create({ email: 'm@example.com', handle: 'em', password: 'password-123', passwordConfirm: 'password-123' });
    expect((await sdk.client().collection('members').authWithPassword('em', 'password-123')).record.email).toBe('m@example.com');
  });

  it('turning on what Deskbase does not do yet is a 400 naming the key, and nothing changes', async () => {
    const before = await sdk.admin.collections.getOne('members');
    const cases: [Record<string, unknown>, string[], RegExp][] = [
      [{ oauth2: { enabled: true, providers: [{ name: 'facebook', clientId: 'x', clientSecret: 'y' }] } }, ['oauth2', 'providers'], /facebook provider is not supported yet/],
      [{ passwordAuth: { enabled: false } }, ['passwordAuth', 'enabled'], /Turning password sign-in off is not supported yet/],
      [{ authToken: { duration: 3600 } }, ['authToken', 'duration'], /authToken duration other than 604800 seconds .* is not supported yet/],
      [{ fileToken: { duration: 60 } }, ['fileToken', 'duration'], /not supported yet/],
      [{ authToken: { secret: 'x'.repeat(40) } }, ['authToken', 'secret'], /not supported yet/],
    ];
    for (const [body, path, message] of cases) {
      const err = await failure(sdk.admin.collections.update('members', { ...body, listRule: 'id != ""' }));
      expect(err.status, JSON.stringify(body)).toBe(400);
      let item = err.response.data[path[0]][path[1]];
      if (path[1] === 'providers') item = item['0'].name;
      expect(item.code).toBe('validation_not_supported');
      expect(item.message).toMatch(message);
    }
    // on create too
    const created = await failure(sdk.admin.collections.create({ name: 'mfa_people', type: 'auth', mfa: { enabled: true } }));
    expect(created.response.data.mfa.enabled.code).toBe('validation_mfa_not_enough_auths'); // PocketBase's: MFA needs a second method
    expect((await sdk.admin.collections.getFullList()).some((c) => c.name === 'mfa_people')).toBe(false);
    expect(await sdk.admin.collections.getOne('members')).toEqual(before);
  });

  it("PocketBase's validation: templates need a subject and a body, durations a range, unknown keys and wrong types are refused", async () => {
    const cases: [Record<string, unknown>, string[], string][] = [
      [{ verificationTemplate: { subject: '', body: 'x' } }, ['verificationTemplate', 'subject'], 'validation_required'],
      [{ otp: { emailTemplate: { subject: 'x', body: '' } } }, ['otp', 'emailTemplate'], 'body'],
      [{ passwordResetToken: { duration: 5 } }, ['passwordResetToken', 'duration'], 'validation_min_greater_equal_than_required'],
      [{ verificationToken: { duration: 94670857 } }, ['verificationToken', 'duration'], 'validation_max_less_equal_than_required'],
      [{ emailChangeToken: { duration: 'long' } }, ['emailChangeToken', 'duration'], 'validation_invalid_value'],
      [{ mfa: { enabled: false, sometimes: true } }, ['mfa', 'sometimes'], 'validation_unknown_option'],
      [{ mfa: 'off' }, ['mfa'], 'validation_invalid_value'],
    ];
    for (const [body, path, code] of cases) {
      const err = await failure(sdk.admin.collections.update('members', body));
      expect(err.status).toBe(400);
      let item = err.response.data;
      for (const key of path) item = item[key];
      if (code === 'body') expect(item.body.code).toBe('validation_required');
      else expect(item.code, JSON.stringify(body)).toBe(code);
    }
    // a base collection has no auth options: they are refused, not ignored
    const base = await failure(sdk.admin.collections.update('notes', { mfa: { enabled: false } }));
    expect(base.response.data.mfa.code).toBe('validation_auth_only');
  });

  it('options travel with the schema export and import', async () => {
    const exported = await sdk.admin.send('/api/collections/meta/export', {}) as Record<string, unknown>[];
    const members = exported.find((c) => c.name === 'members')!;
    expect(members.otp).toMatchObject({ length: 7, duration: 300 });
    expect(members.mfa).toMatchObject({ duration: 600 });
    const again = await sdk.admin.send('/api/collections/import', { method: 'PUT', body: { collections: [members], dryRun: true } }) as { changes: { name: string; action: string }[] };
    expect(again.changes[0].action).toBe('unchanged');
    const changed = await sdk.admin.send('/api/collections/import', { method: 'PUT', body: { collections: [{ ...members, mfa: { enabled: false, duration: 900, rule: '' } }] } }) as { changes: { name: string; action: string; settings: string[] }[] };
    expect(changed.changes[0]).toMatchObject({ action: 'changed', settings: ['mfa'] });
    expect((await sdk.admin.collections.getOne('members')).mfa.duration).toBe(900);
  });

  it("PocketBase's import keeps the options it can, turned off where Deskbase cannot do them, and lists them in its notes", async () => {
    const pbStaff = {
      id: 'pbc_2000000002', name: 'staff', type: 'auth', system: false, fields: [],
      mfa: { enabled: true, duration: 900, rule: '' },
      otp: { enabled: true, duration: 120, length: 6, emailTemplate: { subject: 'Code', body: '{OTP}' } },
      authAlert: { enabled: true, emailTemplate: { subject: 'Alert', body: '{ALERT_INFO}' } },
      oauth2: { enabled: true, mappedFields: { id: '', name: 'name', username: '', avatarURL: '' }, providers: [{ name: 'github', clientId: 'x' }] },
      authToken: { duration: 1209600 },
      verificationToken: { duration: 3600 },
      resetPasswordTemplate: { subject: 'Reset it', body: '{TOKEN}' },
    };
    const r = await sdk.admin.send('/api/collections/import', { method: 'PUT', body: { collections: [pbStaff] } }) as { notes: { collection: string; item: string; reason: string }[] };
    const staff = await sdk.admin.collections.getOne('staff');
    expect(staff.mfa).toEqual({ enabled: false, duration: 900, rule: '' });
    expect(staff.otp).toEqual({ enabled: true, duration: 120, length: 6, emailTemplate: { subject: 'Code', body: '{OTP}' } }); // OTP works: kept on
    expect(staff.authAlert).toEqual({ enabled: true, emailTemplate: { subject: 'Alert', body: '{ALERT_INFO}' } }); // alerts are sent: kept on
    expect(staff.oauth2).toEqual({ enabled: false, mappedFields: { id: '', name: '', username: '', avatarURL: '' }, providers: [] }); // no name field here
    expect(staff.authToken).toEqual({ duration: 604800 });
    expect(staff.verificationToken).toEqual({ duration: 3600 });
    expect(staff.resetPasswordTemplate).toEqual({ subject: 'Reset it', body: '{TOKEN}' });
    const keys = r.notes.filter((n) => n.collection === 'staff').map((n) => n.item);
    expect(keys).toEqual(expect.arrayContaining(['OAuth2', 'MFA', 'authToken']));
    expect(keys).not.toContain('OTP');
    expect(keys).not.toContain('authAlert');
  });
});
