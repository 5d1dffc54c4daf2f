// The collection editor against a tiny spec-shaped server: server field errors land on the right field
// (data.fields.<index in the submitted list>.<prop>), rule errors under the rule.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { createResource, createSignal } from 'solid-js';
import type { Collection } from '../../renderer/api.js';
import { createApi, storageTokenStore } from '../../renderer/api.js';
import { AppContext, type AppCtx } from '../../renderer/app-context.js';
import { createHashRouter, RouterContext } from '../../renderer/router.js';
import { ToastProvider } from '../../renderer/components/toasts.js';
import { CollectionEditor } from '../../renderer/pages/collection-editor.js';
import { startTestServer, type TestServer } from './test-server.js';
import type { DeskbaseWindow } from '../../main/preload-api.js';
import { fakeDesktop } from './fake-desktop.js';

const posts: Collection = {
  id: 'postscoll000001', name: 'posts', type: 'base', system: false, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, created: '', updated: '',
  fields: [
    { id: '_id', name: 'id', type: 'text', system: true, hidden: false, presentable: false, required: true, min: 15, max: 15, pattern: '', autogeneratePattern: '', primaryKey: true },
    { id: 'f_gone', name: 'gone', type: 'text', system: false, hidden: false, presentable: false, min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false },
    { id: 'f_title', name: 'title', type: 'text', system: false, hidden: false, presentable: false, min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false },
  ],
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((req) => {
    if (req.method === 'PATCH')
      return {
        status: 400,
        body: {
          status: 400,
          message: 'Failed to update collection.',
          data: {
            // index 1 of the submitted fields: `title`, because `gone` was removed before saving
            fields: { '1': { name: { code: 'validation_duplicated_field_name', message: 'Duplicated or invalid field name.' } } },
            listRule: { code: 'validation_invalid_rule', message: 'Invalid rule. Raw error: unknown field "nope".' },
          },
        },
      };
    return { status: 200, body: { page: 1, perPage: 1000, totalItems: 1, totalPages: 1, items: [posts] } };
  });
});
afterAll(() => server.close());
afterEach(cleanup);
beforeEach(() => window.history.replaceState(null, '', '#/collections/posts/settings'));

/** Mounts the editor; resolves once the collections list has loaded (so nothing is in flight at cleanup). */
async function mount(collection: Collection = posts): Promise<void> {
  let listed: Promise<Collection[]> | undefined;
  render(() => {
    const api = createApi({ baseUrl: server.baseUrl, store: storageTokenStore(localStorage) });
    const [list, { refetch }] = createResource(() => (listed = api.listCollections().then((page) => page.items)));
    const [session] = createSignal(null);
    const ctx: AppCtx = {
      api,
      session,
      collections: list,
      reloadCollections: async () => (await refetch()) ?? undefined,
      findCollection: (k) => list()?.find((c) => c.name === k || c.id === k),
      signOut: async () => undefined,
    };
    return (
      <RouterContext.Provider value={createHashRouter()}>
        <ToastProvider>
          <AppContext.Provider value={ctx}>
            <CollectionEditor collection={collection} />
            <a href="#/elsewhere">Elsewhere</a>
          </AppContext.Provider>
        </ToastProvider>
      </RouterContext.Provider>
    );
  });
  await listed;
}

describe('collection editor', () => {
  it('asks before dropping a field, sends the rest by id, and shows server errors where they belong', async () => {
    await mount();
    fireEvent.click(screen.getByRole('button', { name: 'Remove gone' }));
    expect(screen.getByText(/and all its data/)).toBeTruthy();
    fireEvent.click(screen.getAllByRole('button', { name: 'Locked' })[0]);
    fireEvent.input(document.getElementById('rule-listRule') as HTMLTextAreaElement, { target: { value: 'nope = 1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));

    // The warning names the dropped field; nothing is sent before confirming.
    expect(screen.getByRole('alertdialog').textContent).toContain('gone');
    expect(server.seen.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Save and delete data' }));

    await screen.findByText('Duplicated or invalid field name.');
    const patch = server.seen.find((r) => r.method === 'PATCH');
    const body = patch?.body as { fields: Array<{ id: string }>; listRule: string; viewRule: null };
    expect(body.fields.map((f) => f.id)).toEqual(['_id', 'f_title']);
    expect(body.listRule).toBe('nope = 1');
    expect(body.viewRule).toBeNull();
    // The field error sits in the `title` row, the rule error under the list rule.
    const titleRow = document.querySelector('.field-row[data-field="title"]');
    expect(titleRow?.textContent).toContain('Duplicated or invalid field name.');
    await waitFor(() => expect(document.querySelector('.rule.has-error')?.textContent).toContain('unknown field "nope"'));
  });
});

describe('indexes Deskbase maintains', () => {
  const created = { id: 'f_created', name: 'created', type: 'autodate', system: false, hidden: false, presentable: false, onCreate: true, onUpdate: false } as const;
  const withMaintained: Collection = {
    ...posts,
    fields: [...posts.fields, created],
    maintainedIndexes: [{ name: '_postscoll000001_created_idx', fields: ['f_created'], unique: false, purpose: 'defaultSort' }],
  };

  it('are listed read-only under the indexes, by field name and purpose, and never sent back', async () => {
    await mount(withMaintained);
    const box = document.querySelector('.maintained-indexes');
    expect(box?.textContent).toContain('Maintained by Deskbase');
    expect(box?.querySelector('li')?.textContent).toBe('_postscoll000001_created_idx on created: the default sort of lists (newest first)');
    expect(box?.querySelector('input, button')).toBeNull();
    expect(screen.getByText(/No indexes\./)).toBeTruthy(); // the user's own list stays empty
    fireEvent.input(document.getElementById('col-name') as HTMLInputElement, { target: { value: 'articles' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(server.seen.some((r) => r.method === 'PATCH')).toBe(true));
    const body = server.seen.filter((r) => r.method === 'PATCH').at(-1)?.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('maintainedIndexes');
    expect(body.indexes).toEqual([]);
  });

  it('show nothing for a collection without any', async () => {
    await mount();
    expect(document.querySelector('.maintained-indexes')).toBeNull();
  });
});

describe('leaving with unsaved changes', () => {
  const unload = () => {
    const e = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(e);
    return e.defaultPrevented;
  };
  const rename = (name: string) => fireEvent.input(document.getElementById('col-name') as HTMLInputElement, { target: { value: name } });

  it('lets a clean editor go without asking, tab close included', async () => {
    await mount();
    expect(unload()).toBe(false);
    fireEvent.click(screen.getByRole('link', { name: 'Elsewhere' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await waitFor(() => expect(window.location.hash).toBe('#/elsewhere'));
    // Typing and undoing it is clean again.
    rename('articles');
    rename('posts');
    expect(unload()).toBe(false);
  });

  it('holds an in-app link behind a confirm dialog, stays on cancel, goes on confirm', async () => {
    await mount();
    rename('articles');
    expect(unload()).toBe(true);
    fireEvent.click(screen.getByRole('link', { name: 'Elsewhere' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Leave “posts” without saving?');
    expect(window.location.hash).toBe('#/collections/posts/settings');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(window.location.hash).toBe('#/collections/posts/settings');
    fireEvent.click(screen.getByRole('link', { name: 'Elsewhere' }));
    fireEvent.click(screen.getByRole('button', { name: 'Leave without saving' }));
    expect(window.location.hash).toBe('#/elsewhere');
  });

  it('holds closing or reloading the desktop window too (the main process asks through will-prevent-unload)', async () => {
    (window as DeskbaseWindow).deskbase = fakeDesktop().bridge;
    try {
      await mount();
      rename('articles');
      expect(unload()).toBe(true);
    } finally {
      delete (window as DeskbaseWindow).deskbase;
    }
  });

  it('holds back/forward (a hash change) the same way', async () => {
    await mount();
    rename('articles');
    window.location.hash = '#/sessions';
    await screen.findByRole('alertdialog');
    expect(window.location.hash).toBe('#/collections/posts/settings');
    fireEvent.click(screen.getByRole('button', { name: 'Leave without saving' }));
    expect(window.location.hash).toBe('#/sessions');
  });
});
