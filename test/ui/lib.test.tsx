import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@solidjs/testing-library';
import { createSignal } from 'solid-js';
import type { Collection, Field } from '../../renderer/api.js';
import { displayField, formatCount, formatDate, isoToUtcInput, utcInputToIso, recordLabel, searchFilter, searchableFields, filterOfBox } from '../../renderer/lib/format.js';
import { HISTORY_MAX, loadFilterHistory, rememberFilter } from '../../renderer/lib/filter-history.js';
import { describeUserAgent } from '../../renderer/lib/user-agent.js';
import { draftFromCollection, emptyDraft, identityCandidates, newFieldId, summarize, toBody } from '../../renderer/lib/collection-draft.js';
import { operations, snippet } from '../../renderer/lib/api-examples.js';
import { href, parseHash } from '../../renderer/router.js';
import { RuleEditor } from '../../renderer/components/rule-editor.js';

afterEach(cleanup);

const text = (name: string, extra: Partial<Field> = {}): Field =>
  ({ id: `t_${name}`, name, type: 'text', system: false, hidden: false, presentable: false, min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false, ...extra }) as Field;

function collection(fields: Field[], extra: Partial<Collection> = {}): Collection {
  return { id: 'c1', name: 'posts', type: 'base', system: false, fields, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, created: '', updated: '', ...extra };
}

describe('dates and numbers', () => {
  it('round-trips ISO ↔ datetime-local in UTC, whatever the local zone', () => {
    const iso = '2025-02-03T04:05:06.000Z';
    expect(isoToUtcInput(iso)).toBe('2025-02-03T04:05:06');
    expect(utcInputToIso(isoToUtcInput(iso))).toBe(iso);
    // An input without seconds (some browsers drop ":00").
    expect(utcInputToIso('2025-02-03T04:05')).toBe('2025-02-03T04:05:00.000Z');
  });
  it.each([
    ['', ''],
    [undefined, ''],
    ['not a date', 'not a date'],
  ])('formatDate(%j) = %j', (input, out) => expect(formatDate(input)).toBe(out));
  it('shows dates in UTC with the zone, as filters compare them', () => expect(formatDate('2025-02-03T04:05:06.000Z')).toBe('2025-02-03 04:05:06 UTC'));
  it('groups digits of counts', () => expect(formatCount(10000)).toBe((10000).toLocaleString()));
});

describe('how related records are named', () => {
  it.each([
    ['the first presentable field', [text('slug'), text('headline', { presentable: true })], 'headline'],
    ['else a name/title/email field', [text('slug'), text('title')], 'title'],
    ['else nothing (the id is used)', [text('slug')], undefined],
  ])('%s', (_label, fields, expected) => expect(displayField(collection(fields))?.name).toBe(expected));

  it('labels a record by that field, or by its id when empty', () => {
    const c = collection([text('title')]);
    expect(recordLabel({ id: 'r1', collectionId: 'c1', collectionName: 'posts', title: 'Hello' }, c)).toBe('Hello');
    expect(recordLabel({ id: 'r1', collectionId: 'c1', collectionName: 'posts', title: '' }, c)).toBe('r1');
  });
});

describe('relation search filter', () => {
  it.each([
    ['ada', 'id ~ "ada" || name ~ "ada"'],
    ['say "hi"', 'id ~ "say \\"hi\\"" || name ~ "say \\"hi\\""'],
    ['trailing\\', 'id ~ "trailing" || name ~ "trailing"'],
    ['   ', ''],
  ])('%j → %j', (q, expected) => expect(searchFilter(searchableFields(collection([text('name'), text('secret', { hidden: true })])), q)).toBe(expected));
});

describe('the records filter box', () => {
  const posts = collection([text('id'), text('title'), { ...text('views'), type: 'number' } as Field]);
  it('sends plain words as a search across the text fields, and an expression as typed', () => {
    expect(filterOfBox('Ada Lovelace', posts)).toBe('id ~ "Ada Lovelace" || title ~ "Ada Lovelace"');
    expect(filterOfBox('"Ada"', posts)).toBe('id ~ "Ada" || title ~ "Ada"');
    expect(filterOfBox('views > 4', posts)).toBe('views > 4');
    expect(filterOfBox('title ~ "x"', posts)).toBe('title ~ "x"');
    expect(filterOfBox('  ', posts)).toBe('');
  });
  it('keeps recent filters per collection, newest first, each once, at most eight', () => {
    localStorage.clear();
    rememberFilter('c1', 'a');
    rememberFilter('c1', 'b');
    rememberFilter('c1', 'a');
    rememberFilter('c2', 'z');
    expect(loadFilterHistory('c1')).toEqual(['a', 'b']);
    for (let i = 0; i < 20; i++) rememberFilter('c1', `f${i}`);
    expect(loadFilterHistory('c1')).toHaveLength(HISTORY_MAX);
    expect(loadFilterHistory('c1')[0]).toBe('f19');
    expect(loadFilterHistory('c2')).toEqual(['z']);
  });
});

describe('user agents', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', 'Chrome on Linux'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120 Safari/537.36 Edg/120.0', 'Edge on Windows'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Deskbase/0.1.0 Chrome/138 Electron/45.4.1 Safari/537.36', 'Deskbase desktop on Linux'],
    ['curl/8.5.0', 'curl'],
    ['', 'Unknown client'],
  ])('%s', (ua, expected) => expect(describeUserAgent(ua)).toBe(expected));
});

describe('collection drafts', () => {
  const stored = collection([text('id', { id: '_id', system: true, primaryKey: true }), text('title', { id: 'f_title' }), text('body', { id: 'f_body' })]);

  it('keeps field ids on rename and leaves removed fields out of the body', () => {
    const d = draftFromCollection(stored);
    d.fields[1].field.name = 'headline';
    d.fields[2].removed = true;
    const body = toBody(d, false);
    expect(body.fields?.map((f) => [f.id, f.name])).toEqual([['_id', 'id'], ['f_title', 'headline']]);
    expect(body.type).toBeUndefined();
    expect(summarize(d)).toEqual({ dropped: [stored.fields[2]], renamed: [{ from: 'title', to: 'headline' }] });
  });

  it('sends null rules as null and empty rules as ""', () => {
    const d = draftFromCollection({ ...stored, listRule: '', viewRule: null });
    expect(toBody(d, false)).toMatchObject({ listRule: '', viewRule: null });
  });

  it('new collections start with created/updated and send their type; auth ones send auth options', () => {
    const d = emptyDraft();
    d.name = ' people ';
    d.type = 'auth';
    const body = toBody(d, true);
    expect(body).toMatchObject({ name: 'people', type: 'auth', authRule: '', manageRule: null, identityFields: ['email'] });
    expect(body.fields?.map((f) => f.name)).toEqual(['created', 'updated']);
  });

  it('offers email as identity for a new auth collection before the server adds the field', () => {
    const d = emptyDraft();
    expect(identityCandidates(d)).toEqual([]);
    d.type = 'auth';
    expect(identityCandidates(d)).toEqual(['email']);
  });

  it('makes 10-character field ids from a-z0-9', () => expect(newFieldId()).toMatch(/^[a-z0-9]{10}$/));
});

describe('API preview examples', () => {
  const c = collection([text('id', { system: true, primaryKey: true }), text('title')], { listRule: '', createRule: null });
  it.each([
    ['list', 'curl', ["curl -X GET 'http://lan:8090/api/collections/posts/records?page=1&perPage=30"], ['Authorization']],
    ['create', 'curl', ["-H 'Authorization: Bearer YOUR_TOKEN'", '"title": "example text"'], []],
    ['list', 'fetch', ["await fetch('http://lan:8090/api/collections/posts/records?"], ['Authorization']],
    ['view', 'sdk', ["new PocketBase('http://lan:8090')", "pb.collection('posts').getOne('RECORD_ID')"], []],
  ] as const)('%s in %s', (opId, flavor, contains, absent) => {
    const op = operations(c).find((o) => o.id === opId);
    if (!op) throw new Error('no op');
    const code = snippet(c, op, flavor, 'http://lan:8090');
    for (const s of contains) expect(code).toContain(s);
    for (const s of absent) expect(code).not.toContain(s);
  });
  it('offers sign-in only for auth collections', () => {
    expect(operations(c).map((o) => o.id)).not.toContain('auth');
    expect(operations({ ...c, type: 'auth' }).map((o) => o.id)).toContain('auth');
  });
});

describe('hash routes', () => {
  it.each([
    ['#/setup?token=abc', ['setup'], { token: 'abc' }],
    ['#/collections/my%20posts/settings', ['collections', 'my posts', 'settings'], {}],
    ['', [], {}],
  ])('parses %s', (hash, segments, query) => {
    const r = parseHash(hash);
    expect(r.segments).toEqual(segments);
    expect(Object.fromEntries(r.query)).toEqual(query);
  });
  it('builds encoded hrefs', () => expect(href(['collections', 'a b'], { x: '1' })).toBe('#/collections/a%20b?x=1'));
});

describe('rule editor', () => {
  function mount(initial: string | null, error?: string) {
    const changes: Array<string | null> = [];
    render(() => {
      const [v, setV] = createSignal<string | null>(initial);
      return <RuleEditor id="r" label="List" what="can list records" value={v()} error={error} presets={[{ label: 'Everyone', value: '' }]} onChange={(x) => (changes.push(x), setV(x))} />;
    });
    return changes;
  }
  it('shows a null rule as locked to superusers, and unlocking gives ""', () => {
    const changes = mount(null);
    expect(screen.getByText('Superusers only.')).toBeTruthy();
    expect(document.getElementById('r')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Locked' }));
    expect(changes).toEqual(['']);
    expect(screen.getByText(/Everyone, including guests, can list records/)).toBeTruthy();
  });
  it('locking an expression gives null', () => {
    const changes = mount('published = true');
    expect(screen.getByText(/Only requests matching the expression/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Unlocked' }));
    expect(changes).toEqual([null]);
  });
  it('shows the server compile error under the rule', () => {
    mount('nope = 1', 'Invalid rule. Raw error: unknown field "nope".');
    expect(screen.getByRole('alert').textContent).toContain('unknown field "nope"');
  });
});
