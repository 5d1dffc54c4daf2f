// The write funnel's seam (server/core/writes/): each record write is prepared (normalised, pre-checked,
// validated, hashed), applied inside the store transaction, then its effects run once the outcome is
// known. Several prepared writes commit in one transaction (what batch requests build on), and every
// committed write's record changes reach core.changes subscribers once durable, in commit order, never
// for a write that rolled back (what realtime builds on).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../server/core/index.js';
import type { RecordChange } from '../../server/core/writes/changes.js';
import type { Collection, Row } from '../../server/model/types.js';
import { openStore } from '../../server/store/db.js';

let dir: string;
let core: Core;
let errors: unknown[];
let posts: Collection;
let tags: Collection;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deskbase-funnel-'));
  errors = [];
  core = await createCore(await openStore({ dir }), { onError: (e) => errors.push(e) });
  const ctx = core.internalContext();
  await core.collections.create({ name: 'tags', listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '', fields: [{ name: 'name', type: 'text' }] }, ctx);
  tags = core.registry.get('tags')!;
  await core.collections.create({
    name: 'posts', listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'views', type: 'number', min: 0 },
      { name: 'tags', type: 'relation', collectionId: tags.id, maxSelect: 5, cascadeDelete: false },
      { name: 'main', type: 'relation', collectionId: tags.id, maxSelect: 1, cascadeDelete: true },
    ],
    indexes: [],
  }, ctx);
  posts = core.registry.get('posts')!;
});

afterEach(async () => {
  await core.store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ctx = () => core.internalContext();
const writes = () => core.records.writes;
const summary = (changes: readonly RecordChange[]) =>
  changes.map((c) => `${c.action} ${c.collection.name} ${String((c.after ?? c.before)?.id)}`);

/** Every published write's changes, with the journal's sync count when each was published. */
function listen(): { published: RecordChange[][]; syncsAtPublish: number[] } {
  const published: RecordChange[][] = [];
  const syncsAtPublish: number[] = [];
  core.changes.subscribe((changes) => {
    published.push([...changes]);
    syncsAtPublish.push(core.store.stats().syncs);
  });
  return { published, syncsAtPublish };
}

describe('record changes', () => {
  it('a create, an update and a delete publish their rows before and after, once the journal is synced', async () => {
    const heard = listen();
    const syncsBefore: number[] = [];
    const synced = <T>(write: () => Promise<T>): Promise<T> => {
      syncsBefore.push(core.store.stats().syncs);
      return write();
    };
    const created = await synced(() => writes().create(posts, { title: 'one', views: 1 }, ctx()));
    const updated = await synced(() => writes().update(posts, String(created.id), { 'views+': 2 }, ctx()));
    await synced(() => writes().remove(posts, String(created.id), ctx()));
    expect(heard.published.map(summary)).toEqual([[`create posts ${created.id}`], [`update posts ${created.id}`], [`delete posts ${created.id}`]]);
    const [[create], [update], [remove]] = heard.published;
    expect(create).toMatchObject({ before: null, after: { id: created.id, title: 'one', views: 1 } });
    expect(update.before).toMatchObject({ views: 1 });
    expect(update.after).toEqual(updated);
    expect(update.after).toMatchObject({ views: 3 });
    expect(remove).toMatchObject({ before: { id: created.id, views: 3 }, after: null });
    // each was published after its own journal sync, never before
    expect(heard.syncsAtPublish.map((n, i) => n > syncsBefore[i])).toEqual([true, true, true]);
  });

  it('a delete publishes its cascade in one list: the records it deleted and the ones it changed', async () => {
    const a = await writes().create(tags, { name: 'a' }, ctx());
    const b = await writes().create(tags, { name: 'b' }, ctx());
    const owned = await writes().create(posts, { title: 'owned by a', main: a.id }, ctx());
    const tagged = await writes().create(posts, { title: 'tagged a and b', tags: [a.id, b.id] }, ctx());
    const heard = listen();
    await writes().remove(tags, String(a.id), ctx());
    // in the cascade's order (PocketBase's): referring collections by name, their fields in order
    expect(heard.published.map(summary)).toEqual([[`delete tags ${a.id}`, `update posts ${tagged.id}`, `delete posts ${owned.id}`]]);
    const change = heard.published[0].find((c) => c.action === 'update');
    expect(JSON.parse(String(change?.before?.tags))).toEqual([a.id, b.id]);
    expect(JSON.parse(String(change?.after?.tags))).toEqual([b.id]);
  });

  it('concurrent writes publish in commit order, each once', async () => {
    const heard = listen();
    const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => writes().create(posts, { title: `p${i}` }, ctx())));
    const order = (await core.store.all<{ id: string }>('SELECT "id" AS id FROM "posts" ORDER BY _rowid_')).map((r) => r.id);
    expect(heard.published.map((changes) => String(changes[0].after?.id))).toEqual(order);
    expect(new Set(order)).toEqual(new Set(rows.map((r) => String(r.id))));
  });

  it('a write that rolls back publishes nothing, and a failing listener fails no write', async () => {
    const heard = listen();
    core.changes.subscribe(() => {
      throw new Error('listener broke');
    });
    await expect(writes().create(posts, { title: '' }, ctx())).rejects.toMatchObject({ status: 400 });
    const prepared = await writes().prepareCreate(posts, { title: 'kept out' }, ctx());
    const failing = { apply: () => { throw new Error('apply failed'); } };
    await expect(writes().commit([prepared, failing])).rejects.toThrow('apply failed');
    expect(await core.store.all('SELECT * FROM "posts"')).toEqual([]);
    expect(heard.published).toEqual([]);
    const ok = await writes().create(posts, { title: 'fine' }, ctx());
    expect(heard.published.map(summary)).toEqual([[`create posts ${ok.id}`]]);
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it('unsubscribing stops the changes', async () => {
    const heard: string[] = [];
    const stop = core.changes.subscribe((changes) => heard.push(...summary(changes)));
    const one = await writes().create(posts, { title: 'one' }, ctx());
    stop();
    await writes().create(posts, { title: 'two' }, ctx());
    expect(heard).toEqual([`create posts ${one.id}`]);
  });
});

describe('prepared writes', () => {
  it('several commit in one transaction: one journal entry, one list of changes, effects after it is durable', async () => {
    const heard = listen();
    const log: string[] = [];
    const entries = core.store.stats().entries;
    const first = await writes().prepareCreate(posts, { title: 'first' }, ctx());
    const second = await writes().prepareCreate(tags, { name: 'second' }, ctx());
    const withEffects = {
      apply: (tx: Parameters<typeof first.apply>[0], changes: RecordChange[]) => first.apply(tx, changes),
      afterCommit: () => void log.push(`after commit, ${core.store.stats().entries - entries} entry`),
      afterRollback: () => void log.push('after rollback'),
    };
    const [a, b] = await writes().commit<Row>([withEffects, second]);
    expect(core.store.stats().entries).toBe(entries + 1);
    expect(heard.published.map(summary)).toEqual([[`create posts ${a.id}`, `create tags ${b.id}`]]);
    expect(log).toEqual(['after commit, 1 entry']);
  });

  it('all or nothing: a failing apply rolls back the others, runs the rollback effects and no commit effect', async () => {
    const log: string[] = [];
    const good = await writes().prepareCreate(tags, { name: 'good' }, ctx());
    const dup = await writes().prepareCreate(tags, { id: 'duplicateid0001', name: 'x' }, ctx());
    const again = await writes().prepareCreate(tags, { id: 'duplicateid0001', name: 'y' }, ctx());
    const tracked = { ...good, afterCommit: () => void log.push('commit'), afterRollback: () => void log.push('rollback') };
    await expect(writes().commit([tracked, dup, again])).rejects.toMatchObject({ status: 400, data: { id: { code: 'validation_pk_invalid' } } });
    expect(await core.store.all('SELECT * FROM "tags"')).toEqual([]);
    expect(log).toEqual(['rollback']);
  });

  it('an update prepared from a record another write has changed since is resolved again inside the transaction', async () => {
    const post = await writes().create(posts, { title: 'counted', views: 10 }, ctx());
    const id = String(post.id);
    const plusOne = await writes().prepareUpdate(posts, id, { 'views+': 1 }, ctx());
    const plusTwo = await writes().prepareUpdate(posts, id, { 'views+': 2 }, ctx());
    await writes().commit([plusOne]);
    const [after] = await writes().commit([plusTwo]);
    expect(after.views).toBe(13);
    // and validated again: a change valid when prepared but not for the record as it is now fails
    const toZero = await writes().prepareUpdate(posts, id, { 'views-': 13 }, ctx());
    await writes().update(posts, id, { views: 5 }, ctx());
    await expect(writes().commit([toZero])).rejects.toMatchObject({ status: 400, data: { views: { code: 'validation_min_number_constraint' } } });
    expect(await core.store.get('SELECT views FROM "posts" WHERE id = ?', [id])).toEqual({ views: 5 });
  });

  it('a createRule that reads a table is checked again inside the transaction; one that reads only the request and values holds', async () => {
    const guest = () => core.context({ auth: null, method: 'POST', query: {}, headers: new Headers(), client: 'funnel-test' });
    const open = await writes().create(tags, { name: 'open' }, ctx());
    await core.collections.update('posts', { createRule: "@collection.tags.name ?= 'open'" }, ctx());
    const reading = await writes().prepareCreate(core.registry.get('posts')!, { title: 'while a tag is open' }, guest());
    await writes().remove(tags, String(open.id), ctx());
    await expect(writes().commit([reading])).rejects.toMatchObject({ status: 400 });
    expect(await core.store.get('SELECT count(*) AS n FROM "posts"')).toEqual({ n: 0 });
    await core.collections.update('posts', { createRule: "@request.method = 'POST' && title != 'refused'" }, ctx());
    const pure = await writes().prepareCreate(core.registry.get('posts')!, { title: 'by a guest' }, guest());
    await writes().create(tags, { name: 'a write between' }, ctx());
    const [row] = await writes().commit([pure]);
    expect(row).toMatchObject({ title: 'by a guest', views: 0 });
    await expect(writes().create(core.registry.get('posts')!, { title: 'refused' }, guest())).rejects.toMatchObject({ status: 400 });
  });
});
