// Lists of records: the client's filter and sort, paging and totals, the default order (newest
// `created` first, on an index Deskbase keeps), and `~` patterns longer than SQLite's LIKE takes.
// Rules on lists are in rules/record-rules.test.ts, expand in expand.test.ts.

import { describe, expect, it } from 'vitest';
import { type Harness, type Res } from '../support/harness.js';
import { blog, eachBlog, type Blog } from '../support/blog.js';
import { scenarios, type Scenario } from '../support/scenario.js';
import fc from 'fast-check';
import { ann, COUNT, CREATED, h, type Item, items, page, su, useListFixture, type Viewer } from '../support/list-fixture.js';
import { TEST_ENGINE } from '../support/test-store.js';

const POSTS = '/api/collections/posts/records';
const titles = (r: Res) => (r.body.items as { title: string }[]).map((i) => i.title).sort();
const asSu = (b: Blog) => b.su;

describe('filter, sort and paging on the blog', () => {
  const filtered = (filter: string, expected: string[]): Scenario<Blog> => ({
    name: `filter ${filter}`,
    method: 'GET', url: `${POSTS}?filter=${encodeURIComponent(filter)}`, token: asSu, status: 200,
    match: { totalItems: expected.length },
    after: (r) => { expect(titles(r)).toEqual(expected); },
  });
  const badFilter = (filter: string, status: number): Scenario<Blog> => ({
    name: `bad filter ${filter} → ${status}`,
    method: 'GET', url: `${POSTS}?filter=${encodeURIComponent(filter)}`, token: (b) => b.users.ann.token,
    status, match: { status, data: {} },
  });
  scenarios(blog, [
    filtered('views > 5', ['Ann public', 'Bob public']),
    filtered('views >= 7 && published = true', ['Ann public', 'Bob public']),
    filtered("title ~ 'draft'", ['Ann draft', 'Bob draft']),
    filtered("title !~ 'draft'", ['Ann public', 'Bob public']),
    filtered("author.name = 'Ann'", ['Ann draft', 'Ann public']),
    filtered("tags.name ?= 'db'", ['Ann public']),
    filtered("tags.name = 'js'", ['Ann draft']),
    filtered("labels:each ?= 'tech'", ['Ann public']),
    filtered('labels:length = 0', ['Bob draft', 'Bob public']),
    filtered('meta.level = 2', ['Ann public']),
    filtered("(views = 0 || views = 3) && title ~ 'draft'", ['Ann draft', 'Bob draft']),
    // a direct multiple relation compares its stored JSON text, as in PocketBase: use :length for "empty"
    filtered('tags = ""', []),
    filtered('tags:length = 0', ['Bob public']),
    badFilter('nope = 1', 400),
    badFilter('title = ', 400),
    badFilter("title = 'x' &&", 400),
    badFilter('((((', 400),
    badFilter("title ~ 'x' || @collection.users.email = 'a'", 403),
    {
      name: 'sorts and pages',
      method: 'GET', url: `${POSTS}?sort=-views,title&perPage=2&page=2`, token: asSu, status: 200,
      match: { page: 2, perPage: 2, totalItems: 4, totalPages: 2 },
      after: (r) => { expect(r.body.items.map((i: { title: string }) => i.title)).toEqual(['Ann draft', 'Bob draft']); },
    },
    {
      name: 'skips totals',
      method: 'GET', url: `${POSTS}?skipTotal=true&perPage=1`, token: asSu, status: 200,
      match: { totalItems: -1, totalPages: -1 },
      after: (r) => { expect(r.body.items).toHaveLength(1); },
    },
    { name: 'an unknown sort field is a 400', method: 'GET', url: `${POSTS}?sort=nope`, token: asSu, status: 400, match: { status: 400 } },
    { name: 'a page that is no number is a 400', method: 'GET', url: `${POSTS}?page=abc`, token: asSu, status: 400, match: { status: 400 } },
    { name: 'perPage is clamped to 1000', method: 'GET', url: `${POSTS}?perPage=5000`, token: asSu, status: 200, match: { perPage: 1000 } },
    {
      name: 'sorts by -created by default',
      method: 'GET', url: POSTS, token: asSu, status: 200,
      after: (r) => { expect(r.body.items[0].title).toBe('Bob draft'); },
    },
  ]);
});

describe('on the blog', () => {
  let h: Harness;
  let b: Blog;
  eachBlog((fresh, data) => ((h = fresh), (b = data)));

  describe('long ~ patterns', () => {
    // SQLite's LIKE refuses patterns over 50,000 bytes: a rule reading one from the body, or a client filter
    // whose pattern is a long column, used to answer 500. They go to the JavaScript LIKE and answer.
    it('a pattern over 50,000 bytes, from the body or from a column, is matched', async () => {
      const c = await h.req('POST', '/api/collections', {
        token: b.su,
        body: {
          name: 'notes', listRule: '', createRule: 'title ~ @request.body.q',
          fields: [{ name: 'title', type: 'text', max: 100_000 }, { name: 'note', type: 'text', max: 100_000 }],
        },
      });
      expect(c.status, c.text).toBe(200);
      const long = 'x'.repeat(60_000);
      const refused = await h.req('POST', '/api/collections/notes/records', { body: { title: 'x', q: long } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.message).toBe('Failed to create record.');
      const hit = await h.req('POST', '/api/collections/notes/records', { body: { title: `${long}!`, note: long, q: long } });
      const miss = await h.req('POST', '/api/collections/notes/records', { token: b.su, body: { title: `${long}!`, note: `${long}?` } });
      expect([hit.status, miss.status], hit.text).toEqual([200, 200]);
      const r = await h.req('GET', `/api/collections/notes/records?filter=${encodeURIComponent('title ~ note')}&fields=id`);
      if (TEST_ENGINE === 'sqlite') {
        expect(r.status, r.text).toBe(200);
        expect(r.body.items).toEqual([{ id: hit.body.id }]);
      } else {
        // PostgreSQL's own LIKE has no length limit, but it is quadratic: the 60,000-byte pattern that
        // fails at its last byte against the other row's 60,000 bytes is seconds of its work on a busy
        // machine, stopped at the budget's far backstop with its 400 (store-postgres/budget.ts; the
        // desktop matches such a pattern in JavaScript, linearly), and may finish under it on a quiet one
        // (the fresh-clone CI got its 200): either way the answer is right or refused whole
        if (r.status === 200) expect(r.body.items).toEqual([{ id: hit.body.id }]);
        else {
          expect(r.status, r.text).toBe(400);
          expect(r.body.message).toMatch(/^The request needed more than 150 ms of database time/);
        }
        // the same column pattern over the row that matches is found
        const one = await h.req('GET', `/api/collections/notes/records?filter=${encodeURIComponent(`id = "${hit.body.id}" && title ~ note`)}&fields=id`);
        expect(one.status, one.text).toBe(200);
        expect(one.body.items).toEqual([{ id: hit.body.id }]);
      }
    });
  });
});

describe('order and paging against an oracle', () => {
  // Lists page on row ids and join the full rows afterwards, and sort by default on an index Deskbase
  // keeps: these tests pin what the plain query returned, against an oracle computed here in JavaScript
  // from the stored rows (support/list-fixture.ts), whose heavy ties make the order among equal keys
  // and paging across them what is tested.
  useListFixture();

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
});
