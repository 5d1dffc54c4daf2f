// Lists page on row ids and join the full rows afterwards, sort by default on an index Deskbase keeps,
// and expand in one query per relation field: these tests pin what the plain query returned, against an
// oracle computed here in JavaScript from the stored rows. The data has heavy ties (five distinct
// `created` values over 120 records, repeated titles and numbers), so the order among equal keys and
// paging across them are what is tested.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandRecords } from '../server/core/expand.js';
import type { ApiRecord } from '../server/core/record-serializer.js';
import type { ReadDb } from '../server/store/db.js';
import { harness, type Harness } from './support/harness.js';

interface Item {
  id: string;
  /** Insertion order: the row id. */
  seq: number;
  title: string;
  n: number;
  published: boolean;
  owner: string;
  labels: string[];
  created: string;
}

type Viewer = 'guest' | 'ann' | 'su';

const COUNT = 120;
const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const CREATED = ['2024-01-01 00:00:00.000Z', '2024-03-05 10:00:00.000Z', '2024-03-05 10:00:00.001Z', '2025-07-01 12:30:00.000Z', '2025-12-31 23:59:59.999Z'];

let h: Harness;
let su: string;
let ann: { id: string; token: string };
let bob: { id: string };
let items: Item[];
let labelIds: string[];

/** mulberry32, so the data set is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  h = await harness();
  su = await h.superuser();
  const usersId = h.core.registry.get('users')!.id;
  await h.req('PATCH', '/api/collections/users', { token: su, body: { viewRule: '' } });
  const user = async (email: string) => {
    const r = await h.req('POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } });
    return { id: r.body.id as string, token: await h.signIn('users', email, 'password123') };
  };
  ann = await user('ann@example.com');
  bob = await user('bob@example.com');
  const labels = await h.req('POST', '/api/collections', { token: su, body: { name: 'labels', listRule: '', viewRule: '', fields: [{ name: 'name', type: 'text' }] } });
  labelIds = [];
  for (const name of ['red', 'green', 'blue', 'gold']) labelIds.push((await h.req('POST', '/api/collections/labels/records', { token: su, body: { name } })).body.id);
  const made = await h.req('POST', '/api/collections', {
    token: su,
    body: {
      name: 'items',
      listRule: 'published = true || owner = @request.auth.id',
      viewRule: 'published = true || owner = @request.auth.id',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'number' },
        { name: 'published', type: 'bool' },
        { name: 'owner', type: 'relation', collectionId: usersId, maxSelect: 1 },
        { name: 'labels', type: 'relation', collectionId: labels.body.id, maxSelect: 3 },
        { name: 'created', type: 'autodate', onCreate: true },
      ],
    },
  });
  expect(made.status).toBe(200);
  const rand = prng(11);
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
  items = [];
  for (let seq = 0; seq < COUNT; seq++) {
    const body = {
      title: `${pick(WORDS)} ${pick(WORDS)}`,
      n: Math.floor(rand() * 4),
      published: rand() < 0.6,
      owner: pick([ann.id, bob.id, '']),
      labels: labelIds.filter(() => rand() < 0.3).slice(0, 3),
    };
    const r = await h.req('POST', '/api/collections/items/records', { token: su, body });
    expect(r.status).toBe(200);
    items.push({ ...body, id: r.body.id, seq, created: pick(CREATED) });
  }
  // autodate values are never taken from a body: the ties are made in the table itself
  await h.core.store.write((tx) => {
    for (const it of items) tx.run('UPDATE "items" SET "created" = ? WHERE "id" = ?', [it.created.replace(' ', 'T'), it.id]);
  });
});
afterAll(() => h.close());

// ---- the oracle ----

const FILTERS: Record<string, (it: Item) => boolean> = {
  '': () => true,
  "title ~ 'al'": (it) => it.title.includes('al'),
  'n >= 2': (it) => it.n >= 2,
  "n >= 2 && title ~ 'o'": (it) => it.n >= 2 && it.title.includes('o'),
  "labels ?= '@red'": (it) => it.labels.includes('@red'), // matches nothing: an empty result pages too
};

const SORTS = ['', 'title', '-title', '-created', 'created', '-n,title', 'n,-created', '-@rowid', 'published,-n'];

/** The list rule: a guest's `@request.auth.id` is "", so guests also see records with no owner. */
function visible(it: Item, viewer: Viewer): boolean {
  return viewer === 'su' || it.published || it.owner === (viewer === 'ann' ? ann.id : '');
}

function key(it: Item, name: string): string | number | boolean {
  if (name === '@rowid') return it.seq;
  if (name === 'published') return it.published ? 1 : 0;
  return it[name as 'title' | 'n' | 'created'];
}

/**
 * The order the plain query gave: the client's sort terms, then the row id ascending; with no sort,
 * newest `created` first and the last inserted first among equal ones.
 */
function expected(viewer: Viewer, filter: string, sort: string): string[] {
  const terms = sort === '' ? [{ name: 'created', desc: true }, { name: '@rowid', desc: true }] : [
    ...sort.split(',').map((s) => ({ name: s.replace(/^-/, ''), desc: s.startsWith('-') })),
    { name: '@rowid', desc: false },
  ];
  const cmp = (a: Item, b: Item): number => {
    for (const t of terms) {
      const x = key(a, t.name);
      const y = key(b, t.name);
      if (x !== y) return (x < y ? -1 : 1) * (t.desc ? -1 : 1);
    }
    return 0;
  };
  return items.filter((it) => visible(it, viewer) && FILTERS[filter](it)).sort(cmp).map((it) => it.id);
}

const tokenOf = (viewer: Viewer): string | undefined => (viewer === 'guest' ? undefined : viewer === 'su' ? su : ann.token);

async function page(viewer: Viewer, query: Record<string, string>) {
  const r = await h.req('GET', `/api/collections/items/records?${new URLSearchParams(query)}`, { token: tokenOf(viewer) });
  expect(r.status, r.text).toBe(200);
  return r.body as { page: number; perPage: number; totalItems: number; totalPages: number; items: ApiRecord[] };
}

/** Every page in turn: concatenated, they must be the whole ordered result, with right totals on each. */
async function walk(viewer: Viewer, filter: string, sort: string, perPage: number): Promise<string[]> {
  const want = expected(viewer, filter, sort);
  const pages = Math.max(1, Math.ceil(want.length / perPage));
  const seen: string[] = [];
  for (let p = 1; p <= pages + 1; p++) {
    const body = await page(viewer, { page: String(p), perPage: String(perPage), filter, sort });
    expect(body.totalItems).toBe(want.length);
    expect(body.totalPages).toBe(Math.ceil(want.length / perPage));
    if (p > pages) expect(body.items).toEqual([]); // past the end: nothing, the same totals
    seen.push(...body.items.map((i) => String(i.id)));
  }
  return seen;
}

describe('list order and paging', () => {
  it('the default sort is newest created first, the last inserted first among equal ones, and pages across ties without duplicates or gaps', async () => {
    const want = expected('su', '', '');
    // the data really has ties, and the default order is not insertion order
    expect(new Set(items.map((i) => i.created)).size).toBe(CREATED.length);
    expect(want).not.toEqual(items.map((i) => i.id).reverse());
    for (const perPage of [1, 7, 30, 500]) {
      const seen = await walk('su', '', '', perPage);
      expect(seen).toEqual(want);
      expect(new Set(seen).size).toBe(COUNT);
    }
  });

  it('an explicit -created keeps ties in insertion order (row id ascending), unlike the default', async () => {
    const explicit = await walk('su', '', '-created', 13);
    expect(explicit).toEqual(expected('su', '', '-created'));
    expect(explicit).not.toEqual(expected('su', '', ''));
  });

  it('a deep page is the same slice as in the full list', async () => {
    const want = expected('guest', '', 'title');
    const body = await page('guest', { page: '6', perPage: '9', sort: 'title' });
    expect(body.items.map((i) => i.id)).toEqual(want.slice(45, 54));
  });

  it('skipTotal leaves the totals at -1 and the items as they were', async () => {
    const body = await page('ann', { page: '2', perPage: '10', sort: '-n,title', skipTotal: '1' });
    expect([body.totalItems, body.totalPages]).toEqual([-1, -1]);
    expect(body.items.map((i) => i.id)).toEqual(expected('ann', '', '-n,title').slice(10, 20));
  });

  it('the records of a page are whole: every field as a view of the same record shows it', async () => {
    const body = await page('su', { page: '3', perPage: '11' });
    for (const item of body.items) {
      const one = await h.req('GET', `/api/collections/items/records/${String(item.id)}`, { token: su });
      expect(item).toEqual(one.body);
    }
  });

  it('any sort, filter, rule, viewer and page size: the pages are exactly the ordered result', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Viewer>('guest', 'ann', 'su'),
        fc.constantFrom(...Object.keys(FILTERS)),
        fc.constantFrom(...SORTS),
        fc.integer({ min: 1, max: 45 }),
        async (viewer, filter, sort, perPage) => {
          expect(await walk(viewer, filter, sort, perPage)).toEqual(expected(viewer, filter, sort));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('expand on a list', () => {
  it('attaches the same records a view of each related record gives, in the stored order', async () => {
    const body = await page('ann', { page: '1', perPage: '40', expand: 'owner,labels' });
    const view = async (collection: string, id: string) => (await h.req('GET', `/api/collections/${collection}/records/${id}`, { token: ann.token })).body as ApiRecord;
    let withLabels = 0;
    for (const item of body.items) {
      const it = items.find((x) => x.id === item.id)!;
      const expand = item.expand as Record<string, unknown>;
      if (it.owner === '') expect(expand.owner).toBeUndefined();
      else expect(expand.owner).toEqual(await view('users', it.owner));
      if (it.labels.length === 0) expect(expand.labels).toBeUndefined();
      else {
        withLabels++;
        expect(expand.labels).toEqual(await Promise.all(it.labels.map((id) => view('labels', id))));
      }
    }
    expect(withLabels).toBeGreaterThan(5);
  });

  it('runs one query per relation field for a whole page, however many records it has', () => {
    const c = h.core.registry.get('items')!;
    const input = { auth: null, method: 'GET', query: { perPage: '100', skipTotal: 'true', expand: 'owner,labels' }, headers: [] };
    const page = h.core.listContext({ ...input, query: { perPage: '100', skipTotal: 'true' } });
    const records = h.core.records.list('items', page).items as ApiRecord[];
    let queries = 0;
    const counting: ReadDb = {
      all: (sql, params) => (queries++, h.core.store.all(sql, params)),
      get: (sql, params) => (queries++, h.core.store.get(sql, params)),
    };
    const out = expandRecords(counting, c, records, h.core.context(input));
    expect(records.length).toBeGreaterThan(50);
    expect(out.filter((r) => (r.expand as Record<string, unknown>).labels !== undefined).length).toBeGreaterThan(10);
    expect(queries).toBe(2);
  });
});
