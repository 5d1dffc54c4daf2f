// The filter language under random input, through the HTTP app and the compiler: random filters, sorts,
// expands and field pickers never give a 500, never widen what the list rule lets a caller see, and a
// value in a filter is always a bound parameter (the SQL text does not depend on it).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthInfo, RequestInfo } from '../../server/model/types.js';
import { ApiError } from '../../server/errors.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { compileFilter, compileSort, type CompileContext } from '../../server/rules/compile.js';
import { blog, type Blog } from '../support/blog.js';
import { harness, type Harness, type Res } from '../support/harness.js';
import { fuzzRuns, SOAK } from '../fixtures/hardening-soak.js';
import { anyText } from '../fixtures/any-text.js';

let h: Harness;
let b: Blog;
beforeAll(async () => {
  h = await harness();
  b = await blog(h);
  const c = await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.annDraft, message: 'on a draft' } });
  if (c.status !== 200) throw new Error(c.text);
}, 60_000);
afterAll(async () => { await h.close(); });

type Caller = 'guest' | 'ann' | 'bob' | 'su';
const tokenOf = (who: Caller) => (who === 'guest' ? undefined : who === 'su' ? b.su : b.users[who].token);

const operand = fc.oneof(
  fc.constantFrom(
    'title', 'views', 'published', 'secret', 'author', 'author.name', 'author.email', 'author.password', 'author.tokenKey',
    'tags.name', 'tags:length', 'labels:each', 'labels', 'meta.level', 'meta', 'created', 'id', 'comments_via_post.message',
    'comments_via_post.post.secret', 'author.posts_via_author.secret', 'title:lower', '@request.auth.id', '@request.auth.email',
    '@request.query.x', '@collection.posts.secret', '@collection.users.email', '@now', '@todayStart', 'true', 'false', 'null',
    "strftime('%Y', created)", "geoDistance(1, 2, 3, 4)", 'unknown', 'author.unknown', '_rowid_', '@rowid',
  ),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(n)),
  fc.integer({ min: -5, max: 20 }).map(String),
);
const op = fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '~', '!~', '?=', '?!=', '?>', '?>=', '?<', '?<=', '?~', '?!~');
const expr = fc.tuple(operand, op, operand).map(([l, o, r]) => `${l} ${o} ${r}`);
const group = fc.array(expr, { minLength: 1, maxLength: 3 }).map((es) => `(${es.join(' || ')})`);
const wellFormed = fc.array(fc.tuple(fc.constantFrom('&&', '||'), fc.oneof(expr, group)), { minLength: 1, maxLength: 4 })
  .map((items) => items.map(([join, item], i) => (i === 0 ? item : `${join} ${item}`)).join(' '));
const anyFilter = fc.oneof(wellFormed, anyText(60), fc.array(fc.constantFrom('(', ')', '&&', '"', "'", '//', '\n', '@', '.', ':', '?', 'title', '=', '1'), { maxLength: 10 }).map((p) => p.join('')));
const sortArb = fc.array(fc.constantFrom('title', '-views', '+created', 'secret', '-author.name', 'author.email', 'tags.name', '@random', '@rowid', 'meta.level', 'nope', '', '--title', '@collection.posts.title', '@request.auth.id'), { maxLength: 4 }).map((p) => p.join(','));
const expandArb = fc.array(fc.constantFrom('author', 'tags', 'comments_via_post', 'comments_via_post.post', 'author.posts_via_author', 'nope', 'tags.nope', '.', 'author..', 'a.b.c.d.e.f.g.h'), { maxLength: 3 }).map((p) => p.join(','));
const fieldsArb = fc.array(fc.constantFrom('*', 'id', 'title', 'secret', 'expand.author.email', 'expand.*', 'title:excerpt(3,true)', 'title:excerpt(0)', 'title:nope(1)', 'password', ''), { maxLength: 3 }).map((p) => p.join(','));

interface Post { id: string; published: boolean; author: string; secret?: unknown; expand?: Record<string, unknown> }

/** Everything a caller may receive from a list: the rule holds, hidden fields and others' e-mails stay out. */
function expectWithinRules(who: Caller, r: Res): void {
  expect([200, 400, 403], r.text).toContain(r.status);
  if (r.status !== 200) {
    expect(Object.keys(r.body).sort()).toEqual(['data', 'message', 'status']);
    return;
  }
  const text = r.text;
  for (const item of r.body.items as Post[]) {
    if (who === 'su') continue;
    // `fields` may pick the other keys away; the id tells which post it is
    const post = Object.entries(b.posts).find(([, id]) => id === item.id)?.[0] ?? '';
    const visible = post.endsWith('Public') || (who === 'ann' && post.startsWith('ann')) || (who === 'bob' && post.startsWith('bob'));
    if (item.id !== undefined) expect(visible, `${who} sees ${post}`).toBe(true);
  }
  if (who !== 'su') {
    expect(text).not.toContain('"secret"');
    expect(text).not.toContain('scrypt$');
    expect(text).not.toContain('tokenKey');
    // e-mails are hidden (emailVisibility false) except the caller's own
    for (const other of ['ann', 'bob'] as const) if (other !== who) expect(text).not.toContain(`${other}@example.com`);
  }
}

describe('random list queries over HTTP', () => {
  it('never answer 500 and never show what the rules hide', async () => {
    const statuses: number[] = [];
    await fc.assert(fc.asyncProperty(
      fc.constantFrom<Caller>('guest', 'ann', 'bob', 'su'), fc.option(anyFilter), fc.option(sortArb), fc.option(expandArb), fc.option(fieldsArb),
      async (who, filter, sort, expand, fields) => {
        const q = new URLSearchParams();
        if (filter !== null) q.set('filter', filter);
        if (sort !== null) q.set('sort', sort);
        if (expand !== null) q.set('expand', expand);
        if (fields !== null) q.set('fields', fields);
        const r = await h.req('GET', `/api/collections/posts/records?${q}`, { token: tokenOf(who) });
        statuses.push(r.status);
        expectWithinRules(who, r);
      },
    ), { numRuns: fuzzRuns(300) });
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(statuses.length / 20);
  }, 30_000 * SOAK);

  it('view and back-relation lists hold the same way', async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom<Caller>('guest', 'ann', 'bob'), fc.constantFrom(...Object.keys({ annPublic: 1, annDraft: 1, bobPublic: 1, bobDraft: 1 })), fc.option(expandArb), fc.option(fieldsArb), fc.option(anyFilter),
      async (who, post, expand, fields, filter) => {
        const q = new URLSearchParams();
        if (expand !== null) q.set('expand', expand);
        if (fields !== null) q.set('fields', fields);
        const view = await h.req('GET', `/api/collections/posts/records/${b.posts[post]}?${q}`, { token: tokenOf(who) });
        const visible = post.endsWith('Public') || post.startsWith(who);
        // a bad `fields` picker is a 400 either way; a record the rule hides is never a 200
        if (visible) expect(view.status === 200 || (view.status === 400 && fields !== null), view.text).toBe(true);
        else expect([404, 400], view.text).toContain(view.status);
        if (filter !== null) q.set('filter', filter);
        const comments = await h.req('GET', `/api/collections/comments/records?${q}`, { token: tokenOf(who) });
        expect([200, 400, 403]).toContain(comments.status);
        for (const text of [view.text, comments.text]) {
          expect(text).not.toContain('"secret"');
          // the comment on Ann's draft is listable, but the draft itself never expands for others
          if (who !== 'ann') expect(text).not.toContain('Ann draft');
        }
      },
    ), { numRuns: fuzzRuns(150) });
  }, 30_000 * SOAK);
});

describe('values are always bound', () => {
  let su: AuthInfo | null = null;
  beforeAll(async () => {
    su = await h.core.sessions.resolve(b.su);
  });
  const request = (auth: 'guest' | 'su'): RequestInfo => ({
    auth: auth === 'su' ? su : null, method: 'GET', context: 'default', body: {}, query: {}, headers: {},
  });
  const ctx = (mode: CompileContext['mode'], auth: 'guest' | 'su'): CompileContext => ({
    collection: h.core.registry.get('posts')!, alias: 'r', lookup: h.core.registry.lookup, request: request(auth), mode,
  });
  // only the quote itself can be escaped (PocketBase's lexer): other backslashes stay literal
  const quoteText = (s: string) => `"${s.replaceAll('"', '\\"')}"`;
  const textValue = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.includes('\\') && !s.includes('%'));
  const templates = [
    (v: string) => `title = ${v}`,
    (v: string) => `title != ${v} && views > 3`,
    (v: string) => `tags.name ?= ${v} || author.name = ${v}`,
    (v: string) => `${v} = meta.level`,
    (v: string) => `comments_via_post.message != ${v}`,
    (v: string) => `(published = true && title:lower = ${v})`,
  ];

  it('the SQL text of a filter does not depend on the text values in it', async () => {
    await fc.assert(fc.asyncProperty(
      textValue, textValue,
      fc.constantFrom(...templates), fc.constantFrom<CompileContext['mode']>('rule', 'filter'),
      async (a, c, template, mode) => {
        const first = compileFilter(template(quoteText(a)), ctx(mode, 'su'));
        const second = compileFilter(template(quoteText(c)), ctx(mode, 'su'));
        expect(second.sql).toBe(first.sql);
        expect(first.params).toContain(a);
        await h.core.store.all(`SELECT count(*) FROM "posts" AS r WHERE ${first.sql}`, first.params);
      },
    ), { numRuns: fuzzRuns(300) });
  }, 30_000 * SOAK);

  it('the SQL text of a filter does not depend on the numbers in it', () => {
    // numbers are digits with at most one dot, no exponent (PocketBase's lexer)
    const decimal = fc.tuple(fc.integer(), fc.nat()).map(([i, f]) => `${i}.${f}`);
    fc.assert(fc.property(decimal, decimal, (x, y) => {
      const src = (n: string) => `views > ${n} && meta.level = ${n}`;
      const first = compileFilter(src(x), ctx('filter', 'guest'));
      expect(compileFilter(src(y), ctx('filter', 'guest')).sql).toBe(first.sql);
    }), { numRuns: fuzzRuns(200) });
  }, 30_000 * SOAK);

  /** Compiles, or returns null when the compiler refused the input with one of its own errors. */
  const attempt = <T>(compile: () => T): T | null => {
    try {
      return compile();
    } catch (err) {
      if (err instanceof FilterError || (err instanceof ApiError && err.status < 500)) return null;
      throw err;
    }
  };

  it('compiled filters and sorts either refuse with a FilterError / 4xx or run in SQLite', async () => {
    await fc.assert(fc.asyncProperty(anyFilter, sortArb, fc.constantFrom<'guest' | 'su'>('guest', 'su'), async (filter, sort, who) => {
      const where = attempt(() => compileFilter(filter, ctx('filter', who)));
      if (where) await h.core.store.all(`SELECT count(*) FROM "posts" AS r WHERE ${where.sql}`, where.params);
      const order = attempt(() => compileSort(sort, ctx('filter', who)));
      if (order && order.sql !== '') await h.core.store.all(`SELECT r.id FROM "posts" AS r ORDER BY ${order.sql}`, order.params);
    }), { numRuns: fuzzRuns(300) });
  }, 30_000 * SOAK);
});
