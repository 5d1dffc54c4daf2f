// $app, Record, $security, $os, $http, require() and __hooks as a pb_hooks folder written like
// PocketBase's docs uses them, driven through the official SDK over a real socket: each "probe" record
// created runs one named probe in a hook and stores what it saw in its `result`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkSuite } from '../support/sdk-server.js';
import { MAX_HEALTH_WAIT_MS, whilePolled } from '../fixtures/health-poll.js';
import { hooksFolder } from './support.js';

const dir = hooksFolder({
  'lib/util.js': `module.exports = { double: (n) => n * 2, name: "util" };`,
  'data.txt': 'hello from a file',
  'probes.pb.js': `
const PROBES = {
  // request level: no transaction is open yet
  find: () => {
    const first = $app.findFirstRecordByData("items", "name", "b");
    const out = {
      byId: $app.findRecordById("items", first.id).getString("name"),
      byFilter: $app.findFirstRecordByFilter("items", "n > {:n} && name != ''", { n: 2 }).getString("name"),
      list: $app.findRecordsByFilter("items", "n >= 1", "-n", 2, 0).map((r) => r.getInt("n")),
      count: $app.countRecords("items"),
      countFiltered: $app.countRecords("items", "n > {:n}", { n: 1 }),
      users: $app.findCollectionByNameOrId("_pb_users_auth_").name,
    };
    try {
      $app.findRecordById("items", "missing");
    } catch (err) {
      out.missing = err.status;
    }
    return out;
  },
  record: () => {
    const c = $app.findCollectionByNameOrId("items");
    const r = new Record(c, { name: "x", n: "41.5", flag: "true", tags: ["a", "b", "a"] });
    r.load({ at: "2024-01-02 03:04:05.000Z" });
    return {
      s: r.getString("name"), i: r.getInt("n"), f: r.getFloat("n"), b: r.getBool("flag"),
      slice: r.getStringSlice("tags"), date: r.getDateTime("at").string(), col: r.collection().name,
      isNew: r.isNew(), pub: Object.keys(r.publicExport()).sort().join(","),
    };
  },
  save: () => {
    const c = $app.findCollectionByNameOrId("items");
    const r = new Record(c);
    r.set("name", "made by a hook");
    r.set("n", 7);
    $app.save(r);
    const id = r.id;
    r.set("n", 8);
    $app.save(r);
    const again = $app.findRecordById("items", id);
    const before = again.original().getInt("n");
    $app.delete(again);
    let gone = false;
    try { $app.findRecordById("items", id); } catch (e) { gone = e.status === 404; }
    return { id, n: again.getInt("n"), before, gone };
  },
  transaction: () => {
    let caught = "";
    try {
      $app.runInTransaction((txApp) => {
        txApp.save(new Record(txApp.findCollectionByNameOrId("items"), { name: "in tx", n: 100 }));
        throw new Error("undo it");
      });
    } catch (err) {
      caught = err.message;
    }
    $app.runInTransaction((txApp) => {
      txApp.save(new Record(txApp.findCollectionByNameOrId("items"), { name: "kept", n: 101 }));
    });
    return { caught, undone: $app.countRecords("items", "name = 'in tx'"), kept: $app.countRecords("items", "name = 'kept'") };
  },
  security: () => {
    const token = $security.createJWT({ id: "abc" }, "secret-key", 60);
    let bad = "";
    try { $security.parseJWT(token, "other-key"); } catch (e) { bad = e.message; }
    const key = "12345678901234567890123456789012";
    return {
      random: $security.randomString(12).length,
      alphabet: /^[ab]{8}$/.test($security.randomStringWithAlphabet(8, "ab")),
      sha256: $security.sha256("abc"),
      md5: $security.md5("abc"),
      hs256: $security.hs256("abc", "key"),
      claims: $security.parseJWT(token, "secret-key").id,
      unverified: $security.parseUnverifiedJWT(token).id,
      bad,
      roundTrip: $security.decrypt($security.encrypt("secret text", key), key),
    };
  },
  os: () => ({
    env: $os.getenv("HOOK_TEST_VALUE"),
    file: toString($os.readFile(__hooks + "/data.txt")),
    listed: $os.readDir(__hooks).map((d) => d.name()).includes("data.txt"),
  }),
  require: () => {
    const a = require(__hooks + "/lib/util.js");
    const b = require("./lib/util");
    return { a: a.double(21), same: a === b, name: b.name };
  },
  http: (e) => {
    const res = $http.send({ url: e.record.getString("arg"), method: "POST", body: JSON.stringify({ ping: 1 }), headers: { "content-type": "application/json" }, timeout: 5 });
    return { status: res.statusCode, json: res.json };
  },
  // a timeout past what a timer holds (2^31-1 ms): no timeout in practice, as on PocketBase
  httpLong: (e) => {
    const res = $http.send({ url: e.record.getString("arg") + "?later", method: "POST", body: JSON.stringify({ ping: 2 }), headers: { "content-type": "application/json" }, timeout: 3000000 });
    return { status: res.statusCode, json: res.json };
  },
  file: () => {
    const u = $app.findAuthRecordByEmail("users", "ann@example.com");
    u.set("avatar", "picture.png");
    try { $app.save(u); return { saved: true }; } catch (err) { return { status: err.status, code: err.data.avatar && err.data.avatar.code }; }
  },
  heavy: () => {
    const t0 = Date.now();
    try {
      $app.findRecordsByFilter("texts", "body ~ {:p}", "", 10, 0, { p: "%" + "a_".repeat(1000) + "b%" });
      return { stopped: false, ms: Date.now() - t0 };
    } catch (err) {
      return { stopped: true, status: err.status, ms: Date.now() - t0 };
    }
  },
  auth: (e) => ({ who: e.auth ? e.auth.email() : "guest", collection: e.auth ? e.auth.collection().name : "" }),
  password: () => {
    const u = $app.findAuthRecordByEmail("users", "ann@example.com");
    return { right: u.validatePassword("ann-password-1"), wrong: u.validatePassword("nope") };
  },
  expand: () => {
    const child = $app.findFirstRecordByData("items", "name", "c");
    const errs = $app.expandRecord(child, ["parent"]);
    return { parent: child.get("expand").parent.name, errs: Object.keys(errs).length, one: child.expandedOne("parent").getString("name"), all: child.expandedAll("parent").map((r) => r.id === child.getString("parent")) };
  },
};

onRecordCreateRequest((e) => {
  const probe = PROBES[e.record.getString("op")];
  if (probe) e.record.set("result", probe(e));
  e.next();
}, "probes");

// inside the write's transaction: $app calls go through it
onRecordCreate((e) => {
  if (e.record.getString("op") === "inside") {
    const r = new Record($app.findCollectionByNameOrId("items"), { name: "inside", n: 55 });
    $app.save(r);
    e.record.set("result", { saved: r.id !== "", seen: $app.countRecords("items", "name = 'inside'") });
  }
  e.next();
}, "probes");
`,
});

process.env.HOOK_TEST_VALUE = 'from the environment';
const sdk = sdkSuite({ hooksDir: dir });
const probe = async (op: string, arg = '', pb = sdk.client()) => (await pb.collection('probes').create({ op, arg })).result;

let echo: ReturnType<typeof createServer>;
let echoUrl = '';

beforeAll(async () => {
  const items = await sdk.admin.collections.create({ name: 'items', type: 'base', listRule: '', viewRule: '', fields: [{ name: 'name', type: 'text' }, { name: 'n', type: 'number' }, { name: 'flag', type: 'bool' }, { name: 'tags', type: 'select', maxSelect: 3, values: ['a', 'b', 'c'] }, { name: 'at', type: 'date' }] });
  await sdk.admin.collections.update(items.id, { fields: [...items.fields, { name: 'parent', type: 'relation', collectionId: items.id, maxSelect: 1 }] });
  await sdk.admin.collections.create({ name: 'probes', type: 'base', createRule: '', fields: [{ name: 'op', type: 'text' }, { name: 'arg', type: 'text' }, { name: 'result', type: 'json' }] });
  const a = await sdk.admin.collection('items').create({ name: 'a', n: 1 });
  await sdk.admin.collection('items').create({ name: 'b', n: 2 });
  await sdk.admin.collection('items').create({ name: 'c', n: 3, parent: a.id });
  await sdk.admin.collection('users').create({ email: 'ann@example.com', password: 'ann-password-1', passwordConfirm: 'ann-password-1' });
  echo = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    const answer = () => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, got: JSON.parse(body) }));
    req.on('end', () => (req.url?.endsWith('?later') ? setTimeout(answer, 100) : answer()));
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/echo`;
});
afterAll(() => new Promise<void>((r) => echo.close(() => r())));

describe('$app, Record and the helpers in hooks', () => {
  it('finds records by id, data, filter with placeholders, sorted lists and counts; _pb_users_auth_ is users; a miss is a 404', async () => {
    expect(await probe('find')).toEqual({ byId: 'b', byFilter: 'c', list: [3, 2], count: 3, countFiltered: 2, users: 'users', missing: 404 });
  });

  it('Record: typed getters, load, collection(), isNew, publicExport', async () => {
    expect(await probe('record')).toEqual({
      s: 'x', i: 41, f: 41.5, b: true, slice: ['a', 'b'], date: '2024-01-02 03:04:05.000Z', col: 'items', isNew: true,
      pub: 'at,collectionId,collectionName,flag,id,n,name,parent,tags',
    });
  });

  it('$app.save creates then updates, original() is the stored value, $app.delete removes', async () => {
    const r = await probe('save');
    expect(r).toMatchObject({ n: 8, before: 8, gone: true });
    expect(r.id).toMatch(/^[a-z0-9]{15}$/);
  });

  it('runInTransaction: a throw undoes the writes in it, a clean run keeps them', async () => {
    expect(await probe('transaction')).toEqual({ caught: 'undo it', undone: 0, kept: 1 });
  });

  it('inside a write, $app calls go through its transaction (no deadlock against the single writer)', async () => {
    expect(await probe('inside')).toEqual({ saved: true, seen: 1 });
  });

  it('$security: random strings, hashes, JWTs, encryption as PocketBase', async () => {
    expect(await probe('security')).toEqual({
      random: 12, alphabet: true,
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      md5: '900150983cd24fb0d6963f7d28e17f72',
      hs256: '9c196e32dc0175f86f4b1cb89289d6619de6bee699e4c378e68309ed97a1a6ab',
      claims: 'abc', unverified: 'abc', bad: 'token signature is invalid', roundTrip: 'secret text',
    });
  });

  it('$os.getenv, $os.readFile with toString, $os.readDir, __hooks', async () => {
    expect(await probe('os')).toEqual({ env: 'from the environment', file: 'hello from a file', listed: true });
  });

  it('require() of CommonJS files from pb_hooks, with or without .js, loaded once', async () => {
    expect(await probe('require')).toEqual({ a: 42, same: true, name: 'util' });
  });

  it('$http.send makes the outbound request on the host and answers status and JSON', async () => {
    expect(await probe('http', echoUrl)).toEqual({ status: 201, json: { method: 'POST', got: { ping: 1 } } });
    expect(await probe('httpLong', echoUrl)).toEqual({ status: 201, json: { method: 'POST', got: { ping: 2 } } });
  });

  it('e.auth is the signed-in record in request events', async () => {
    const pb = sdk.client();
    await pb.collection('users').authWithPassword('ann@example.com', 'ann-password-1');
    expect(await probe('auth', '', pb)).toEqual({ who: 'ann@example.com', collection: 'users' });
    expect(await probe('auth')).toEqual({ who: 'guest', collection: '' });
  });

  it('validatePassword checks a stored record against its hash', async () => {
    expect(await probe('password')).toEqual({ right: true, wrong: false });
  });

  it("a file name a hook sets that the record does not hold is the field's own 400 (never dropped)", async () => {
    expect(await probe('file')).toEqual({ status: 400, code: 'validation_invalid_file' });
  });

  it("a hook's heavy filter is stopped at the query budget (a 400), health answering meanwhile", async () => {
    await sdk.admin.collections.create({ name: 'texts', type: 'base', fields: [{ name: 'body', type: 'editor' }] });
    for (let i = 0; i < 3; i++) await sdk.admin.collection('texts').create({ body: 'a'.repeat(400_000) });
    // the server is this process: its waits counted as its own work (health-poll.ts workWatch)
    const { result, longest } = await whilePolled(sdk.server.url, () => probe('heavy'), process.pid);
    console.log(`heavy filter in a hook: ${JSON.stringify(result)}, longest /api/health wait ${longest.toFixed(0)} ms`);
    expect(result).toMatchObject({ stopped: true, status: 400 });
    expect(longest).toBeLessThan(MAX_HEALTH_WAIT_MS);
  });

  it('expandRecord fills expand', async () => {
    expect(await probe('expand')).toEqual({ parent: 'a', errs: 0, one: 'a', all: [true] });
  });
});
