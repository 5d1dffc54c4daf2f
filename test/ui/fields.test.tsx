import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { createSignal } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Field } from '../../server/model/types.js';
import type { Collection } from '../../renderer/api.js';
import { createApi, storageTokenStore } from '../../renderer/api.js';
import { inputOf, uiOf } from '../../renderer/fields/registry.js';
import type { FieldCtx } from '../../renderer/fields/types.js';
import { startTestServer, type TestServer } from './test-server.js';

afterEach(cleanup);

function field(type: Field['type'], extra: Record<string, unknown> = {}): Field {
  return { id: `f_${type}`, name: type, type, system: false, hidden: false, presentable: false, required: false, help: '', ...uiOf(type).defaults(), ...extra } as Field;
}

interface Harness {
  changes: unknown[];
  extras: Record<string, unknown>;
  invalid: Record<string, string | null>;
}

function mount(f: Field, initial: unknown, ctxOver: Partial<FieldCtx> = {}): Harness {
  const h: Harness = { changes: [], extras: {}, invalid: {} };
  const ctx: FieldCtx = {
    api: createApi({ store: storageTokenStore(localStorage) }),
    collections: () => [],
    isNew: true,
    setExtra: (k, v) => (h.extras[k] = v),
    setInvalid: (k, m) => (h.invalid[k] = m),
    attempted: () => false,
    serverError: () => undefined,
    ...ctxOver,
  };
  render(() => {
    const [value, setValue] = createSignal<unknown>(initial);
    return (
      <>
        <label for="in">{f.name}</label>
        <Dynamic component={inputOf(f.type)} field={f} id="in" value={value()} ctx={ctx} onChange={(v: unknown) => (h.changes.push(v), setValue(() => v))} />
      </>
    );
  });
  return h;
}

const input = (id = 'in') => document.getElementById(id) as HTMLInputElement;

describe('field inputs turn what a person types into the value the API expects', () => {
  it.each([
    ['text', {}, 'Hello', 'Hello'],
    ['editor', {}, '<p>Hi</p>', '<p>Hi</p>'],
    ['email', {}, 'me@example.com', 'me@example.com'],
    ['url', {}, 'https://example.com', 'https://example.com'],
    ['number', {}, '12.5', 12.5],
    ['number', {}, '', 0],
    ['date', {}, '2025-01-02T03:04:05', new Date('2025-01-02T03:04:05').toISOString()],
    ['date', {}, '', ''],
    ['json', {}, '{"a":[1,2]}', { a: [1, 2] }],
    ['json', {}, '', null],
    ['password', {}, 'secret-123', 'secret-123'],
  ] as const)('%s %j: %j → %j', (type, extra, typed, expected) => {
    const h = mount(field(type, extra), undefined);
    fireEvent.input(input(), { target: { value: typed } });
    expect(h.changes.at(-1)).toEqual(expected);
  });

  it('bool toggles to true', () => {
    const h = mount(field('bool'), false);
    fireEvent.click(input());
    expect(h.changes.at(-1)).toBe(true);
  });

  it('date shows a stored ISO value in local time', () => {
    const iso = '2025-06-01T12:30:15.000Z';
    mount(field('date'), iso);
    expect(new Date(input().value).toISOString()).toBe(iso);
  });

  it('single select sends the chosen value', () => {
    const h = mount(field('select', { values: ['draft', 'published'], maxSelect: 1 }), '');
    fireEvent.change(input(), { target: { value: 'published' } });
    expect(h.changes.at(-1)).toBe('published');
  });

  it('multiple select toggles values in and out of the list', () => {
    const h = mount(field('select', { values: ['a', 'b', 'c'], maxSelect: 3 }), []);
    fireEvent.click(screen.getByRole('button', { name: 'b' }));
    fireEvent.click(screen.getByRole('button', { name: 'a' }));
    expect(h.changes.at(-1)).toEqual(['b', 'a']);
    fireEvent.click(screen.getByRole('button', { name: 'b' }));
    expect(h.changes.at(-1)).toEqual(['a']);
  });

  it('multiple select stops at its maximum: the other choices are disabled', () => {
    const h = mount(field('select', { values: ['a', 'b', 'c', 'd'], maxSelect: 2 }), []);
    fireEvent.click(screen.getByRole('button', { name: 'a' }));
    fireEvent.click(screen.getByRole('button', { name: 'b' }));
    expect((screen.getByRole('button', { name: 'c' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'c' }));
    expect(h.changes.at(-1)).toEqual(['a', 'b']);
    expect(screen.getByText('2 of at most 2 selected')).toBeTruthy();
    // A chosen value can still be taken out, which frees a place.
    fireEvent.click(screen.getByRole('button', { name: 'a' }));
    expect((screen.getByRole('button', { name: 'c' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('json refuses invalid text and says why, without sending it', () => {
    const h = mount(field('json'), null);
    fireEvent.input(input(), { target: { value: '{"a":' } });
    expect(h.changes).toEqual([]);
    expect(h.invalid.json).toMatch(/Not valid JSON/);
    expect(screen.getByText(/Not valid JSON/)).toBeTruthy();
    fireEvent.input(input(), { target: { value: '{"a":1}' } });
    expect(h.invalid.json).toBeNull();
    expect(h.changes.at(-1)).toEqual({ a: 1 });
  });

  it('password asks for a confirmation and sends it as <name>Confirm', () => {
    const h = mount(field('password'), undefined);
    fireEvent.input(input(), { target: { value: 'pw-12345678' } });
    fireEvent.input(input('in-confirm'), { target: { value: 'pw-1234567' } });
    expect(screen.getAllByText('The passwords do not match.')).toHaveLength(1);
    // The mismatch is held back from saving, and marked on the confirmation, not on the password.
    expect(h.invalid.passwordConfirm).toBe('The passwords do not match.');
    expect(input('in-confirm').getAttribute('aria-invalid')).toBe('true');
    expect(input().getAttribute('aria-invalid')).toBeNull();
    fireEvent.input(input('in-confirm'), { target: { value: 'pw-12345678' } });
    expect(h.extras.passwordConfirm).toBe('pw-12345678');
    expect(h.invalid.passwordConfirm).toBeNull();
  });

  it('password left empty while editing keeps the current one (no value sent)', () => {
    const h = mount(field('password'), undefined, { isNew: false });
    fireEvent.input(input(), { target: { value: 'x' } });
    fireEvent.input(input(), { target: { value: '' } });
    expect(h.changes.at(-1)).toBeUndefined();
  });

  it('geoPoint edits longitude and latitude', () => {
    const h = mount(field('geoPoint'), { lon: 0, lat: 0 });
    fireEvent.input(input(), { target: { value: '4.35' } });
    fireEvent.input(input('in-lat'), { target: { value: '50.85' } });
    expect(h.changes.at(-1)).toEqual({ lon: 4.35, lat: 50.85 });
  });

  it('autodate is shown read-only', () => {
    mount(field('autodate'), '');
    expect(input().readOnly).toBe(true);
  });
});

describe('relation picker', () => {
  let server: TestServer;
  const authors: Collection = {
    id: 'authorscoll0001', name: 'authors', type: 'base', system: false, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, created: '', updated: '',
    fields: [
      { id: 'text3208210256', name: 'id', type: 'text', system: true, hidden: false, presentable: false, required: true, min: 15, max: 15, pattern: '', autogeneratePattern: '', primaryKey: true },
      { id: 'fname00001', name: 'name', type: 'text', system: false, hidden: false, presentable: true, min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false },
    ],
  };
  const people = [
    { id: 'ada000000000001', collectionId: authors.id, collectionName: 'authors', name: 'Ada Lovelace' },
    { id: 'alan00000000002', collectionId: authors.id, collectionName: 'authors', name: 'Alan Turing' },
  ];
  beforeAll(async () => {
    server = await startTestServer((req) => {
      const url = new URL(req.url, 'http://x');
      const filter = url.searchParams.get('filter') ?? '';
      const q = /~ "([^"]*)"/.exec(filter)?.[1]?.toLowerCase() ?? '';
      const items = people.filter((p) => q === '' || p.name.toLowerCase().includes(q) || p.id.includes(q));
      return { status: 200, body: { page: 1, perPage: 20, totalItems: -1, totalPages: -1, items } };
    });
  });
  afterAll(() => server.close());

  it('searches the related collection on its text fields and picks a record by its presentable field', async () => {
    const api = createApi({ baseUrl: server.baseUrl, store: storageTokenStore(localStorage) });
    const h = mount(field('relation', { collectionId: authors.id, maxSelect: 1 }), '', { api, collections: () => [authors] });
    fireEvent.click(screen.getByText('Choose a record'));
    await screen.findByText('Ada Lovelace');
    fireEvent.input(screen.getByLabelText('Search related records'), { target: { value: 'alan' } });
    await waitFor(() => expect(screen.queryByText('Ada Lovelace')).toBeNull());
    const lastUrl = new URL(server.seen.at(-1)?.url ?? '', 'http://x');
    expect(lastUrl.pathname).toBe(`/api/collections/${authors.id}/records`);
    expect(lastUrl.searchParams.get('filter')).toBe('id ~ "alan" || name ~ "alan"');
    fireEvent.click(screen.getByText('Alan Turing'));
    expect(h.changes.at(-1)).toBe('alan00000000002');
    // The chosen record is shown by its label, not its id.
    expect(screen.getByText('Alan Turing')).toBeTruthy();
  });
});
