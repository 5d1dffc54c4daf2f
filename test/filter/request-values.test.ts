// @request.*, @collection.*, macros, placeholders and modifiers of request values, in rule mode,
// against real sql.js tables (rows in resolver-fixtures.ts; posts p1..p4, users u1 Alice admin verified
// friends [u2], u2 Bob user, news n1 draft/u1 and n2 live/u2).
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../server/model/types.js';
import { macroValue } from '../../server/filter/macros.js';
import { guest, matching, openFixtureDb, signedIn } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

const ALL = ['p1', 'p2', 'p3', 'p4'];
type As = 'guest' | 'u1' | 'u2' | 'root';
type Case = [src: string, as: As, extra: Partial<RequestInfo>, ids: string[]];

function request(as: As, extra: Partial<RequestInfo>): RequestInfo {
  return as === 'guest' ? guest(extra) : signedIn(db, as, extra);
}

function table(name: string, cases: Case[]): void {
  describe(name, () => {
    it.each(cases)('%s as %s %j', (src, as, extra, ids) => {
      expect(matching(db, src, { request: request(as, extra) })).toEqual(ids);
    });
  });
}

table('@request.auth', [
  ["@request.auth.id != ''", 'guest', {}, []],
  ["@request.auth.id = ''", 'guest', {}, ALL],
  ["@request.auth.id != ''", 'u1', {}, ALL],
  ['author = @request.auth.id', 'u1', {}, ['p1', 'p4']],
  ['author = @request.auth.id', 'u2', {}, ['p2']],
  // PocketBase: an empty auth id equals an empty relation, so a guest matches the post with no author.
  ['author = @request.auth.id', 'guest', {}, ['p3']],
  ['author.id = @request.auth.id && published = true', 'u1', {}, ['p1', 'p4']],
  ["@request.auth.collectionName = 'users'", 'u1', {}, ALL],
  ["@request.auth.collectionId = 'c_users'", 'u2', {}, ALL],
  ["@request.auth.collectionName = '_superusers'", 'root', {}, ALL],
  ['@request.auth.verified = true', 'u1', {}, ALL],
  ['@request.auth.verified = true', 'u2', {}, []],
  ["@request.auth.email = 'bob@x.io'", 'u2', {}, ALL],
  ["@request.auth.role = 'admin'", 'u1', {}, ALL],
  ["@request.auth.role:lower = 'admin'", 'u1', {}, ALL],
  ["@request.auth.password = 'h2'", 'u2', {}, ALL],
  ["@request.auth.nothing = ''", 'u1', {}, ALL],
  ["@request.auth.friends.name ?= 'Bob'", 'u1', {}, ALL],
  ["@request.auth.friends.name ?= 'Bob'", 'u2', {}, []],
  ['@request.auth.friends:length = 1', 'u1', {}, ALL],
  ["@request.auth.friends:each ?= 'u2'", 'u1', {}, ALL],
  ["@request.auth.friends.name ?= 'Bob'", 'guest', {}, []],
  ['author.role = @request.auth.role', 'u1', {}, ['p1', 'p4']],
]);

table('@request.query, headers, method, context', [
  ["@request.query.q = 'x'", 'guest', { query: { q: 'x' } }, ALL],
  ["@request.query.q = 'x'", 'guest', {}, []],
  ["@request.query.q = ''", 'guest', {}, ALL],
  ['@request.query.q:isset = true', 'guest', { query: { q: '' } }, ALL],
  ['@request.query.q:isset = false', 'guest', {}, ALL],
  ['title ~ @request.query.q', 'guest', { query: { q: 'WORLD' } }, ['p1']],
  ["@request.query.q:lower = 'abc'", 'guest', { query: { q: 'AbC' } }, ALL],
  ["@request.headers.x_token = 'abc'", 'guest', { headers: { x_token: 'abc' } }, ALL],
  ['@request.headers.x_token:isset = true', 'guest', {}, []],
  ["@request.method = 'POST'", 'guest', { method: 'post' }, ALL],
  ["@request.method = 'GET'", 'guest', {}, ALL],
  ["@request.context = 'default'", 'guest', {}, ALL],
  ["@request.context = 'expand'", 'guest', {}, []],
]);

table('@request.body', [
  ['@request.body.title = title', 'guest', { body: { title: 'hello' } }, ['p4']],
  ['@request.body.views = views', 'guest', { body: { views: '100' } }, ['p4']],
  ['@request.body.views > 50', 'guest', { body: { views: 51 } }, ALL],
  ['@request.body.published = true', 'guest', { body: { published: true } }, ALL],
  ["@request.body.title = ''", 'guest', {}, ALL],
  ['@request.body.title:isset = true', 'guest', { body: { title: '' } }, ALL],
  ['@request.body.title:changed = false', 'guest', { body: { title: 'hello' } }, ['p4']],
  ['@request.body.title:changed = true', 'guest', { body: { title: 'hello' } }, ['p1', 'p2', 'p3']],
  ['@request.body.title:changed = false', 'guest', {}, ALL],
  ['@request.body.tags:changed = false', 'guest', { body: { tags: ['t1'] } }, ['p2']],
  ['@request.body.views:changed = true', 'guest', { body: { views: 0 } }, ['p1', 'p3', 'p4']],
  ['@request.body.tags:length = 2', 'guest', { body: { tags: ['t1', 't2'] } }, ALL],
  ['@request.body.tags:length = 0', 'guest', {}, ALL],
  ['@request.body.author:length = 1', 'guest', { body: { author: 'u1' } }, ALL],
  ["@request.body.tags:each ?= 't1'", 'guest', { body: { tags: ['t1', 't2'] } }, ALL],
  ["@request.body.tags:each = 't1'", 'guest', { body: { tags: ['t1', 't2'] } }, []],
  ["@request.body.tags:each = 't1'", 'guest', { body: { tags: ['t1'] } }, ALL],
  ['@request.body.tags:each ?= tags.id', 'guest', { body: { tags: ['t3'] } }, ['p4']],
  ["@request.body.tags.name ?= 'blue'", 'guest', { body: { tags: ['t1', 't2'] } }, ALL],
  ["@request.body.tags.name = 'red'", 'guest', { body: { tags: ['t1', 't2'] } }, []],
  ["@request.body.tags.name = 'red'", 'guest', { body: { tags: ['t1'] } }, ALL],
  ["@request.body.author.name = 'Alice'", 'guest', { body: { author: 'u1' } }, ALL],
  ["@request.body.author.name = 'Alice'", 'guest', {}, []],
  ['@request.body.author.id = author', 'guest', { body: { author: 'u2' } }, ['p2']],
  ["@request.body.anything = 'x'", 'guest', { body: { anything: 'x' } }, ALL],
  ['@request.body.data.a = 1', 'guest', { body: { data: { a: 1 } } }, ALL],
  // nested body paths read own keys only: an inherited member is a missing key (NULL), never '{}'
  ['@request.body.data.__proto__ = null', 'guest', { body: { data: {} } }, ALL],
  ["@request.body.data.__proto__ != ''", 'guest', { body: { data: { a: 1 } } }, []],
  ['@request.body.data.a.__proto__ = null', 'guest', { body: { data: { a: { b: 1 } } } }, ALL],
  ['@request.body.data.a.b = 1', 'guest', { body: { data: { a: { b: 1 } } } }, ALL],
  ['@request.body.data.a.b = 1', 'guest', { body: { data: { a: 1 } } }, []],
  ['@request.body.tags = tags', 'guest', { body: { tags: ['t1'] } }, ['p2']],
]);

table('@collection (unconstrained, shared rows unless aliased)', [
  ['@collection.news.category ?= status && @collection.news.author ?= @request.auth.id', 'u1', {}, ['p1']],
  ['@collection.news.category ?= status && @collection.news.author ?= @request.auth.id', 'u2', {}, ['p2', 'p4']],
  ['@collection.news:a.category ?= status && @collection.news:b.author ?= @request.auth.id', 'u1', {}, ['p1', 'p2', 'p4']],
  ["@collection.news.category = 'draft'", 'guest', {}, []],
  ["@collection.news.category ?= 'draft'", 'guest', {}, ALL],
  ['@collection.c_news.author ?= author', 'guest', {}, ['p1', 'p2', 'p4']],
  ["@collection.news.author.name ?= 'Bob' && @collection.news.category ?= 'live'", 'guest', {}, ALL],
  ["@collection.news.author.name ?= 'Bob' && @collection.news.category ?= 'draft'", 'guest', {}, []],
  ["@collection.users.friends.name ?= 'Alice'", 'guest', {}, ALL],
]);

table('macros (now = 2024-06-15T12:30:45.123Z)', [
  ['created < @now', 'guest', {}, ['p1', 'p2', 'p3']],
  ['created > @now', 'guest', {}, ['p4']],
  ["@todayStart = '2024-06-15T00:00:00.000Z' && @todayEnd = '2024-06-15T23:59:59.999Z'", 'guest', {}, ALL],
  ["@yesterday = '2024-06-14T12:30:45.123Z' && @tomorrow = '2024-06-16T12:30:45.123Z'", 'guest', {}, ALL],
  ["@monthStart = '2024-06-01T00:00:00.000Z' && @monthEnd = '2024-06-30T23:59:59.999Z'", 'guest', {}, ALL],
  ["@yearStart = '2024-01-01T00:00:00.000Z' && @yearEnd = '2024-12-31T23:59:59.999Z'", 'guest', {}, ALL],
  ['@second = 45 && @minute = 30 && @hour = 12 && @day = 15 && @month = 6 && @weekday = 6 && @year = 2024', 'guest', {}, ALL],
  ['created >= @yearStart', 'guest', {}, ['p1', 'p2', 'p4']],
]);

describe('macros at month and year edges', () => {
  it.each([
    ['2024-02-10T00:00:00.000Z', '@monthEnd', '2024-02-29T23:59:59.999Z'],
    ['2023-12-31T23:59:59.999Z', '@tomorrow', '2024-01-01T23:59:59.999Z'],
    ['2023-12-31T23:59:59.999Z', '@monthEnd', '2023-12-31T23:59:59.999Z'],
    ['2024-03-01T00:00:00.000Z', '@yesterday', '2024-02-29T00:00:00.000Z'],
    ['2024-06-16T08:00:00.000Z', '@weekday', 0],
    ['2024-06-16T08:00:00.000Z', '@nope', undefined],
  ])('%s %s', (now, macro, value) => {
    expect(macroValue(macro, new Date(now))).toBe(value);
  });
});

describe('placeholders (server-side filters)', () => {
  it.each([
    ['title = {:t}', { t: 'hello' }, ['p4']],
    ['title = {:t}', { t: "'; DROP TABLE posts; --" }, []],
    ['title = {:t}', { t: null }, ['p3']],
    ['title = {:t}', { t: '' }, ['p3']],
    ['views > {:n}', { n: 5 }, ['p1', 'p4']],
    ['published = {:b}', { b: true }, ['p1', 'p4']],
    ['created < {:d}', { d: new Date('2024-03-01T00:00:00.000Z') }, ['p1', 'p3']],
    ['labels = {:l}', { l: ['a'] }, ['p2']],
    ['title ~ {:q} || title ~ {:q}', { q: 'world' }, ['p1']],
  ])('%s %j', (src, params, ids) => {
    expect(matching(db, src, { params })).toEqual(ids);
    expect(matching(db, 'id != ""')).toEqual(ALL);
  });

  it('refuses a missing value and placeholders without values', () => {
    expect(() => matching(db, 'title = {:t}', { params: {} })).toThrow('missing value for placeholder "{:t}" at character 9');
    expect(() => matching(db, 'title = {:t}')).toThrow('invalid character at character 9');
  });
});
