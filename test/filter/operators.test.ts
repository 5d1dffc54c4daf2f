// Which posts each filter matches, against real sql.js tables (see resolver-fixtures.ts for the rows):
//   p1 'Hello world'      author u1  tags [t1 red/warm, t2 blue/cold]  labels [a,b] draft views 10  published
//   p2 'Second_post 100%' author u2  tags [t1]                        labels [a]   live  views 0
//   p3 ''                 no author  no tags                          no labels    ''    views 5   data NULL
//   p4 'hello'            author u1  tags [t2, t3 green/'']            labels [c]   live  views 100 published
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { matching, openFixtureDb } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

type Case = [src: string, ids: string[]];

function table(name: string, cases: Case[]): void {
  describe(name, () => {
    it.each(cases)('%s', (src, ids) => {
      expect(matching(db, src)).toEqual(ids);
    });
  });
}

table('text equality and null/empty normalisation', [
  ["title = 'hello'", ['p4']],
  ["title != 'hello'", ['p1', 'p2', 'p3']],
  ["'hello' = title", ['p4']],
  ["title = ''", ['p3']],
  ['title = null', ['p3']],
  ['null = title', ['p3']],
  ["title != ''", ['p1', 'p2', 'p4']],
  ['title != null', ['p1', 'p2', 'p4']],
  ["'' = null", ['p1', 'p2', 'p3', 'p4']],
  ["null != ''", []],
  ["'a' = 'a'", ['p1', 'p2', 'p3', 'p4']],
  ["'a' != 'a'", []],
  ['title = status', ['p3']],
  ['title != status', ['p1', 'p2', 'p4']],
  ['NULL = Null', ['p1', 'p2', 'p3', 'p4']],
]);

table('LIKE', [
  ["title ~ 'hello'", ['p1', 'p4']],
  ["title ~ 'HELLO'", ['p1', 'p4']],
  ["title !~ 'hello'", ['p2', 'p3']],
  ["title ~ 'hel%'", ['p1', 'p4']],
  ["title ~ '%world'", ['p1']],
  ["title ~ 'o_w'", []],
  ["title ~ '%o_w%'", ['p1']],
  ["title ~ 'd_p'", ['p2']],
  ["title ~ '100%'", []],
  ["title ~ '100\\%'", ['p2']],
  ["title ~ ''", ['p1', 'p2', 'p3', 'p4']],
  ['title ~ 100', ['p2']],
  ["'Hello world, again' ~ title", ['p1', 'p3', 'p4']],
]);

table('numbers, booleans, dates', [
  ['views > 5', ['p1', 'p4']],
  ['views >= 5', ['p1', 'p3', 'p4']],
  ['views < 5', ['p2']],
  ['views <= 0', ['p2']],
  ['views = 0', ['p2']],
  ['views != 0', ['p1', 'p3', 'p4']],
  ['views = 10.0', ['p1']],
  ['views > -1 && views < 6', ['p2', 'p3']],
  ['published = true', ['p1', 'p4']],
  ['published = TRUE', ['p1', 'p4']],
  ['published = false', ['p2', 'p3']],
  ['published != true', ['p2', 'p3']],
  ["created > '2024-03-01'", ['p2', 'p4']],
  ["created >= '2024-01-01T10:00:00.000Z' && created < '2025'", ['p1', 'p2']],
  ["created = ''", ['p3']],
]);

table('joins: && || and groups, in source order with SQL precedence', [
  ["title = 'hello' || views = 0 && published = true", ['p4']],
  ["(title = 'hello' || views = 0) && published = false", ['p2']],
  ["views = 0 && published = false || title = 'hello'", ['p2', 'p4']],
  ["views = 0 && (published = true || title ~ 'second')", ['p2']],
  ["((((views = 5))))", ['p3']],
  ["title = 'hello' // a comment\n || title = ''", ['p3', 'p4']],
  ['true = true', ['p1', 'p2', 'p3', 'p4']],
  ['false = true', []],
  ['1 = 1', ['p1', 'p2', 'p3', 'p4']],
]);

table('multiple select columns: raw JSON text unless :each', [
  ["labels = 'a'", []],
  ["labels ?= 'a'", []],
  ['labels = \'["a"]\'', ['p2']],
  ["labels ~ 'a'", ['p1', 'p2']],
  ["labels:each ?= 'a'", ['p1', 'p2']],
  ["labels:each = 'a'", ['p2']],
  ["labels:each != 'a'", ['p3', 'p4']],
  ["labels:each ?!= 'a'", ['p1', 'p3', 'p4']],
  ['labels:length = 2', ['p1']],
  ['labels:length = 0', ['p3']],
  ['labels:length > 0', ['p1', 'p2', 'p4']],
  ["status:each = 'live'", ['p2', 'p4']],
  ['status:length = 1', ['p1', 'p2', 'p4']],
  ["status = 'live'", ['p2', 'p4']],
  ["status:lower = 'LIVE'", []],
  ["title:lower = 'hello world'", ['p1']],
]);

table('multiple relations: all vs any', [
  ["tags.name ?= 'red'", ['p1', 'p2']],
  ["tags.name = 'red'", ['p2']],
  ["tags.name != 'red'", ['p3', 'p4']],
  ["tags.name ?!= 'red'", ['p1', 'p3', 'p4']],
  ["tags.name = ''", ['p3']],
  ["tags.name ?~ 'e'", ['p1', 'p2', 'p4']],
  ["tags.name ~ 'e'", ['p1', 'p2', 'p4']],
  ["tags.name ~ 'r'", ['p2']],
  ["tags.color ?= ''", ['p3', 'p4']],
  ["tags.id ?= 't3'", ['p4']],
  ["tags.id = 't1'", ['p2']],
  ['tags:length = 2', ['p1', 'p4']],
  ["tags:each ?= 't1'", ['p1', 'p2']],
  ["tags ?= 't1'", []],
  ['tags = \'["t1"]\'', ['p2']],
  ["tags.name:lower ?= 'RED'", []],
  ["tags.name ?= 'red' && tags.color ?= 'cold'", []],
  ["tags.name ?= 'blue' && tags.color ?= 'cold'", ['p1', 'p4']],
  ["tags.name ?= 'red' || tags.color ?= 'cold'", ['p1', 'p2', 'p4']],
  ["tags.name ?= 'red' && title ~ 'world'", ['p1']],
  ["title = 'hello' || tags.name ?= 'red'", ['p1', 'p2', 'p4']],
  ["tags.name ?= tags.name", ['p1', 'p2', 'p3', 'p4']],
]);

table('single relations, nested paths, back-relations', [
  ["author.name = 'Alice'", ['p1', 'p4']],
  ["author.name != 'Alice'", ['p2', 'p3']],
  ["author.name = ''", ['p3']],
  ["author.id = 'u1'", ['p1', 'p4']],
  ["author = 'u1'", ['p1', 'p4']],
  ['author.verified = true', ['p1', 'p4']],
  ["author.friends.name ?= 'Bob'", ['p1', 'p4']],
  ["author.friends.name = 'Bob'", ['p1', 'p4']],
  ["author.friends.friends.name ?= 'Alice'", []],
  ['author.friends:length = 0', ['p2', 'p3']],
  ['author:length = 1', ['p1', 'p2', 'p4']],
  ["author:each ?= 'u1'", ['p1', 'p4']],
  ["comments_via_post.message ?~ 'hi'", ['p1', 'p2']],
  ["comments_via_post.message ~ 'hi'", ['p2']],
  ["comments_via_post.author.name ?= 'Bob'", ['p1']],
  ["comments_via_post ?= 'c3'", ['p2']],
  ["comments_via_post.id ?= 'c2' && comments_via_post.message ?= 'bye'", ['p1']],
  ["comments_via_post.id ?= 'c1' && comments_via_post.message ?= 'bye'", []],
  ["comments_via_post.message = ''", ['p3', 'p4']],
]);

table('json and geoPoint paths (no null fallback)', [
  ['data.a.b = 2', ['p2']],
  ['data.a.b > 0', ['p1', 'p2']],
  ['data.items.1 = 20', ['p1']],
  ["data = 'plain'", ['p4']],
  ['data.a.b = null', ['p3', 'p4']],
  ['data.a.b != null', ['p1', 'p2']],
  ['data = null', ['p3']],
  ["data.a.b = ''", []],
  ['location.lat > 50', ['p2']],
  ['location.lon < 0', ['p2']],
  ['geoDistance(location.lon, location.lat, 2.35, 48.85) < 10', ['p1', 'p4']],
  ['geoDistance(location.lon, location.lat, location.lon, location.lat) < 0.001', ['p1', 'p2', 'p3', 'p4']],
  ["strftime('%Y', created) = '2024'", ['p1', 'p2']],
  ["strftime('%Y-%m', created, 'start of month', '+1 month') = '2024-07'", ['p2']],
  ["strftime('%Y', created) = ''", ['p3']],
]);
