// `$app.db()` from pb_hooks, as PocketBase apps write it (dbx's builder, `$dbx` expressions, `bind`,
// `one`/`all` into `new DynamicModel({...})`, `execute`), through the official SDK over a real socket,
// on both engines; and the host's reading of dbx's SQL text (hooks/db.ts translateDbx).
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';
import { translateDbx } from '../../server/hooks/db.js';
import { POSTGRES, SQLITE } from '../../server/rules/compile.js';

const dir = hooksFolder({
  'db.pb.js': `
onRecordCreateRequest((e) => {
  const title = e.record.getString("title");
  if (title === "report") {
    // the builder: select ... from ... where, with $dbx expressions
    const rows = arrayOf(new DynamicModel({ id: "", title: "", views: 0, tags: [], meta: {} }));
    $app.db()
      .select("p.id", "p.title", "p.views", "p.tags", "p.meta")
      .from("posts p")
      .where($dbx.hashExp({ "p.status": ["live", "pinned"] }))
      .andWhere($dbx.or($dbx.like("p.title", "100%"), $dbx.in("p.views", 3, 7), $dbx.between("p.views", 40, 50)))
      .andWhere($dbx.not($dbx.exp("p.views = {:skip}", { skip: 999 })))
      .orderBy("p.views DESC", "p.title")
      .limit(10)
      .all(rows);
    e.record.set("summary", JSON.stringify(rows));
    // a raw query with a bound parameter into one model
    const total = new DynamicModel({ n: 0, top: "" });
    $app.db().newQuery("SELECT COUNT(*) AS n, MAX([[title]]) AS top FROM {{posts}} WHERE [[views]] >= {:min}").bind({ min: 5 }).one(total);
    e.record.set("count", total.n);
    e.record.set("top", total.top);
    // one() without a row throws, as dbx's One does
    try {
      $app.db().select("id").from("posts").where($dbx.hashExp({ title: "nothing like it" })).one(new DynamicModel({ id: "" }));
    } catch (err) {
      e.record.set("missing", String(err.message ?? err));
    }
  }
  e.next();
}, "reports");

onRecordCreate((e) => {
  if (e.record.getString("title") !== "builder") return e.next();
  // insert/update/delete builders, a join with groupBy/having, distinct, andBind
  const db = $app.db();
  db.insert("posts", { id: "zzzzzzzzzzzzzz1", title: "Inserted", status: "live", views: 10 }).execute();
  const updated = db.update("posts", { views: $dbx.exp("views + {:by}", { by: 5 }) }, $dbx.hashExp({ id: "zzzzzzzzzzzzzz1" })).execute();
  const byStatus = arrayOf(new DynamicModel({ status: "", n: 0, total: 0 }));
  db.select("p.status", "COUNT(*) AS n", "SUM(p.views) AS total")
    .from("posts p")
    .innerJoin("posts q", $dbx.exp("q.id = p.id"))
    .groupBy("p.status")
    .having($dbx.exp("COUNT(*) >= {:min}"))
    .andBind({ min: 2 })
    .orderBy("p.status")
    .all(byStatus);
  const statuses = arrayOf(new DynamicModel({ status: "" }));
  db.select("status").distinct(true).from("posts").orderBy("status ASC").all(statuses);
  const gone = db.delete("posts", $dbx.hashExp({ id: "zzzzzzzzzzzzzz1" })).execute();
  e.record.set("summary", { byStatus, statuses: statuses.map((s) => s.status), updated: updated.rowsAffected(), deleted: gone.rowsAffected() });
  e.next();
}, "reports");

onRecordCreate((e) => {
  // inside the write's transaction: the insert goes with it, or is rolled back with it
  $app.db().insert("audit", { id: $security.randomStringWithAlphabet(15, "abcdefghijklmnopqrstuvwxyz0123456789"), note: e.record.getString("title") }).execute();
  if (e.record.getString("title") === "rollback") throw new BadRequestError("Refused after the insert.");
  e.next();
}, "reports");

onRecordCreateRequest((e) => {
  // before e.next(): outside the write, under a query budget of its own
  if (e.record.getString("title") === "endless") {
    const rows = arrayOf(new DynamicModel({ x: 0 }));
    $app.db().newQuery("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c").all(rows);
  }
  if (e.record.getString("title") === "outside") {
    // no write around it: the statement commits in a transaction of its own, whatever follows
    const r = $app.db().newQuery("UPDATE {{posts}} SET [[views]] = [[views]] + 1 WHERE [[title]] = {:t}").bind({ t: "Three" }).execute();
    throw new BadRequestError("Refused after " + r.rowsAffected() + " update.");
  }
  if (e.record.getString("title") === "unbound") {
    $app.db().newQuery("SELECT * FROM posts WHERE title = {:title}").execute();
  }
  e.next();
}, "audit");
`,
});

const sdk = sdkSuite({ hooksDir: dir });

describe('$app.db() in hooks', () => {
  it('select/where/$dbx/orderBy/limit into arrayOf(DynamicModel), newQuery().bind().one(), one() without a row', async () => {
    await sdk.admin.collections.create({
      name: 'posts', type: 'base', listRule: '', viewRule: '',
      fields: [{ name: 'title', type: 'text' }, { name: 'status', type: 'text' }, { name: 'views', type: 'number' }, { name: 'tags', type: 'json' }, { name: 'meta', type: 'json' }],
    });
    await sdk.admin.collections.create({
      name: 'reports', type: 'base', createRule: '', viewRule: '',
      fields: [{ name: 'title', type: 'text' }, { name: 'summary', type: 'json' }, { name: 'count', type: 'number' }, { name: 'top', type: 'text' }, { name: 'missing', type: 'text' }],
    });
    await sdk.admin.collections.create({ name: 'audit', type: 'base', listRule: '', createRule: '', fields: [{ name: 'note', type: 'text' }, { name: 'title', type: 'text' }] });
    const posts = sdk.admin.collection('posts');
    await posts.create({ title: '100% done', status: 'live', views: 1, tags: ['a'], meta: { k: 1 } });
    await posts.create({ title: '100x', status: 'live', views: 2, tags: [], meta: {} }); // `%` is escaped: no match
    await posts.create({ title: 'Seven', status: 'pinned', views: 7, tags: ['b', 'c'], meta: null });
    await posts.create({ title: 'Three', status: 'draft', views: 3 });
    await posts.create({ title: 'Forty', status: 'live', views: 45 });
    await posts.create({ title: '100% skipped', status: 'live', views: 999 }); // matches, but NOT (views = 999)

    const report = await sdk.client().collection('reports').create({ title: 'report' });
    const rows = report.summary as { title: string; views: number; tags: unknown[]; meta: unknown }[];
    expect(rows.map((r) => r.title)).toEqual(['Forty', 'Seven', '100% done']);
    expect(rows.find((r) => r.title === 'Seven')).toMatchObject({ views: 7, tags: ['b', 'c'], meta: {} });
    expect(rows.find((r) => r.title === '100% done')).toMatchObject({ views: 1, tags: ['a'], meta: { k: 1 } });
    expect(report.count).toBe(3);
    expect(report.top).toBe('Seven');
    expect(report.missing).toBe('sql: no rows in result set');
  });

  it('insert/update/delete builders, join, groupBy/having with andBind, distinct', async () => {
    const r = await sdk.client().collection('reports').create({ title: 'builder' });
    expect(r.summary).toEqual({
      byStatus: [{ status: 'live', n: 5, total: 1 + 2 + 45 + 999 + 15 }],
      statuses: ['draft', 'live', 'pinned'],
      updated: 1,
      deleted: 1,
    });
    expect((await sdk.admin.collection('posts').getFullList()).map((p) => p.title)).not.toContain('Inserted');
  });

  it("execute() inside a write runs in its transaction: a hook's error rolls its insert back", async () => {
    await sdk.client().collection('reports').create({ title: 'kept' });
    const err = await failure(sdk.client().collection('reports').create({ title: 'rollback' }));
    expect(err.response).toMatchObject({ status: 400, message: 'Refused after the insert.' });
    const notes = (await sdk.admin.collection('audit').getFullList()).map((r) => r.note);
    expect(notes).toContain('kept');
    expect(notes).not.toContain('rollback');
  });

  it('outside a write: a query past the query budget is stopped with the budget 400, an execute commits on its own, a missing bound parameter is named', async () => {
    const endless = await failure(sdk.client().collection('audit').create({ title: 'endless' }));
    expect(endless.status).toBe(400);
    expect(endless.response.message).toMatch(/database time/);
    const outside = await failure(sdk.client().collection('audit').create({ title: 'outside' }));
    expect(outside.response.message).toBe('Refused after 1 update.');
    expect((await sdk.admin.collection('posts').getFirstListItem('title = "Three"')).views).toBe(4);
    const unbound = await failure(sdk.client().collection('audit').create({ title: 'unbound' }));
    expect(unbound.status).toBe(400);
    expect(unbound.response.message).toContain('{:title}');
    // the server answers on as before
    expect((await sdk.client().collection('audit').getList(1, 1)).totalItems).toBeGreaterThan(0);
  });
});

describe("dbx's SQL text on the store (translateDbx)", () => {
  it('binds {:name} in order, quotes {{table}} and [[column]], keeps quoted text and comments', () => {
    const text = "SELECT [[p.id]], 'a {:no} [[x]]' AS s, `weird name` FROM {{posts}} p -- {:no}\nWHERE [[title]] = {:t} OR [[views]] > {:v} OR [[title]] = {:t}";
    expect(translateDbx(text, { t: 'x', v: 2, no: 'never' }, SQLITE)).toEqual({
      sql: `SELECT "p"."id", 'a {:no} [[x]]' AS s, "weird name" FROM "posts" p -- {:no}\nWHERE "title" = ? OR "views" > ? OR "title" = ?`,
      values: ['x', 2, 'x'],
    });
    expect(translateDbx('SELECT * FROM {{posts}} WHERE [[a]] = {:a} AND [[b]] = {:b}', { a: true, b: ['x'] }, POSTGRES)).toEqual({
      sql: 'SELECT * FROM "posts" WHERE "a" = $1 AND "b" = $2',
      values: [1, '["x"]'],
    });
  });

  it('refuses what it cannot run, naming it', () => {
    expect(() => translateDbx('SELECT {:missing}', {}, SQLITE)).toThrow(/\{:missing\}/);
    expect(() => translateDbx('SELECT * FROM t WHERE a = ?', {}, SQLITE)).toThrow(/\{:name\}/);
    expect(() => translateDbx("SELECT 'open", {}, SQLITE)).toThrow(/unterminated/);
    expect(() => translateDbx('', {}, SQLITE)).toThrow(/empty/);
  });
});
