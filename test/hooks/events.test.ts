// The event hooks apps register, as PocketBase's docs write them, through the official SDK over a real
// socket: e.next() chains (a second call does nothing), collection filters by name or id, the model
// events under every write path (single, batch, a hook's own $app.save) and the request events only
// under the API's, after-success and after-error, enrich, list and view requests, auth, mail.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { failure, sdkSuite, ADMIN } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';
import { workWatch } from '../fixtures/health-poll.js';

const dir = hooksFolder({
  '01_chain.pb.js': `
onBootstrap((e) => { e.next(); $app.logger().info("bootstrapped"); });
onServe((e) => { e.next(); $app.logger().info("serving"); });

// a second e.next() in one handler does nothing: the record is created once
onRecordCreate((e) => {
  e.next();
  e.next();
}, "tasks");

// runs for every collection (no filter): counts model creates per collection in "stats"
onRecordAfterCreateSuccess((e) => {
  if (e.record.collection().name === "stats") return e.next();
  const name = e.record.collection().name;
  let s;
  try { s = $app.findFirstRecordByData("stats", "key", "model:" + name); }
  catch { s = new Record($app.findCollectionByNameOrId("stats"), { key: "model:" + name, n: 0 }); }
  s.set("n", s.getInt("n") + 1);
  $app.save(s);
  e.next();
});

onRecordCreateRequest((e) => {
  if (e.requestInfo().headers["x_probe"] === "1") e.record.set("note", "probe header, " + e.requestInfo().method);
  const key = "request:" + e.collection.name;
  let s;
  try { s = $app.findFirstRecordByData("stats", "key", key); }
  catch { s = new Record($app.findCollectionByNameOrId("stats"), { key, n: 0 }); }
  s.set("n", s.getInt("n") + 1);
  $app.save(s);
  e.next();
}, "tasks");
`,
  '02_tasks.pb.js': `
onRecordCreate((e) => {
  e.record.set("title", e.record.getString("title").trim());
  e.next();
}, "tasks");

// a hook's own save of another collection runs that collection's model hooks, not its request hooks
onRecordCreate((e) => {
  e.next();
  if (e.record.getString("title") === "spawn") {
    $app.save(new Record($app.findCollectionByNameOrId("tasks"), { title: "  spawned  " }));
  }
}, "tasks");

onRecordCreateExecute((e) => {
  if (e.record.getString("title") === "late") e.record.set("title", "changed at execute");
  e.next();
}, "tasks");

onRecordAfterCreateError((e) => {
  $app.logger().error("create failed", "message", e.error.message);
  e.next();
}, "tasks");

onRecordValidate((e) => {
  if (e.record.getString("title") === "invalid") {
    throw new BadRequestError("Failed to validate.", { title: { code: "validation_custom", message: "Not this title." } });
  }
  e.next();
}, "tasks");

onRecordUpdateRequest((e) => {
  e.record.set("note", "was " + e.record.original().getString("title"));
  e.next();
}, "tasks");

onRecordUpdate((e) => {
  if (e.record.getString("title") === "forbidden") throw new ForbiddenError("Not that title.");
  e.next();
}, "tasks");

onRecordDeleteRequest((e) => {
  if (e.record.getString("title") === "keep me") throw new BadRequestError("This one stays.");
  e.next();
}, "tasks");

onRecordEnrich((e) => {
  e.record.hide("secret");
  e.record.withCustomData(true);
  e.record.set("shout", e.record.getString("title").toUpperCase());
  e.next();
}, "tasks");

onRecordsListRequest((e) => {
  e.records.forEach((r) => { r.set("note", "listed"); r.set("notShown", "no withCustomData"); });
  e.next();
}, "tasks");

onRecordViewRequest((e) => {
  if (e.record.getString("title") === "hidden by hook") throw new NotFoundError();
  e.next();
}, "tasks");
`,
  '03_auth.pb.js': `
// PocketBase apps name users by its hard-coded id
onRecordAuthWithPasswordRequest((e) => {
  if (e.identity === "blocked@example.com") throw new BadRequestError("Blocked by a hook.");
  e.next();
}, "_pb_users_auth_");

onRecordAuthRequest((e) => {
  e.next();
  $app.logger().info("signed in", "method", e.authMethod, "hasToken", e.token !== "");
}, "users");

onMailerSend((e) => {
  e.message.subject = "[hooked] " + e.message.subject;
  e.next();
});
`,
  '04_locked.pb.js': `
onRecordCreateRequest((e) => {
  $app.logger().info("locked create request", "title", e.record.getString("title"));
  e.next();
}, "locked");

onRecordUpdateRequest((e) => {
  $app.logger().info("locked update request", "title", e.record.getString("title"));
  e.next();
}, "locked");

onRecordDeleteRequest((e) => {
  $app.logger().info("locked delete request", "title", e.record.getString("title"));
  e.next();
}, "locked");
`,
});

const logs: string[] = [];
const sdk = sdkSuite({ hooksDir: dir, hooksLogger: (entry) => logs.push(`${entry.message} ${JSON.stringify(entry.data)}`) });
const stat = async (key: string) => (await sdk.admin.collection('stats').getFullList({ filter: `key = "${key}"` }))[0]?.n ?? 0;

describe('event hooks', () => {
  it('onBootstrap and onServe ran once at start', async () => {
    await sdk.admin.collections.create({ name: 'stats', type: 'base', fields: [{ name: 'key', type: 'text' }, { name: 'n', type: 'number' }] });
    await sdk.admin.collections.create({ name: 'tasks', type: 'base', listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'note', type: 'text' }, { name: 'secret', type: 'text' }] });
    expect(logs.filter((l) => l.startsWith('bootstrapped'))).toHaveLength(1);
    expect(logs.filter((l) => l.startsWith('serving'))).toHaveLength(1);
  });

  it('e.requestInfo() shows the request (headers as rules see them, no credentials)', async () => {
    const res = await fetch(`${sdk.server.url}/api/collections/tasks/records`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-probe': '1' }, body: JSON.stringify({ title: 'probe' }) });
    expect((await res.json()).note).toBe('probe header, POST');
    await sdk.admin.collection('stats').getFullList().then((all) => Promise.all(all.map((r) => sdk.admin.collection('stats').delete(r.id))));
    await sdk.admin.collection('tasks').getFullList().then((all) => Promise.all(all.map((r) => sdk.admin.collection('tasks').delete(r.id))));
  });

  it('a second e.next() does nothing; hooks run in order and see the saved record', async () => {
    const t = await sdk.client().collection('tasks').create({ title: '  one  ' });
    expect(t.title).toBe('one');
    expect(await sdk.admin.collection('tasks').getFullList({ filter: 'title = "one"' })).toHaveLength(1);
    expect(await stat('model:tasks')).toBe(1);
    expect(await stat('request:tasks')).toBe(1);
  });

  it("a hook's $app.save runs the model hooks of what it saves, not the request hooks", async () => {
    await sdk.client().collection('tasks').create({ title: 'spawn' });
    expect((await sdk.admin.collection('tasks').getFullList({ filter: 'title = "spawned"' })).length).toBe(1); // trimmed by the model hook
    expect(await stat('model:tasks')).toBe(3);
    expect(await stat('request:tasks')).toBe(2);
  });

  it('a batch runs the model hooks of each write, inside its one transaction', async () => {
    const batch = sdk.admin.createBatch();
    batch.collection('tasks').create({ title: '  b1 ' });
    batch.collection('tasks').create({ title: ' b2' });
    const out = await batch.send();
    expect(out.map((r) => r.body.title)).toEqual(['b1', 'b2']);
    expect(await stat('model:tasks')).toBe(5);
    // and each sub-request's request hooks, as PocketBase runs them through their routes
    expect(await stat('request:tasks')).toBe(4);
    // a failing write rolls back the batch and every hook's write with it
    const bad = sdk.admin.createBatch();
    bad.collection('tasks').create({ title: 'b3' });
    bad.collection('tasks').update('missing-id-000', { title: 'x' });
    expect((await failure(bad.send())).status).toBe(400);
    expect(await sdk.admin.collection('tasks').getFullList({ filter: 'title = "b3"' })).toHaveLength(0);
    expect(await stat('model:tasks')).toBe(5);
    expect(await stat('request:tasks')).toBe(4);
  });

  it('onRecordValidate refuses a create and an update with its own field error', async () => {
    const err = await failure(sdk.client().collection('tasks').create({ title: 'invalid' }));
    expect(err.response).toEqual({ status: 400, message: 'Failed to validate.', data: { title: { code: 'validation_custom', message: 'Not this title.' } } });
    const t = await sdk.client().collection('tasks').create({ title: 'valid' });
    expect((await failure(sdk.client().collection('tasks').update(t.id, { title: 'invalid' }))).status).toBe(400);
  });

  it('onRecordCreateExecute may change the record at the last moment', async () => {
    expect((await sdk.client().collection('tasks').create({ title: 'late' })).title).toBe('changed at execute');
  });

  it('onRecordAfterCreateError hears a failed create', async () => {
    await failure(sdk.client().collection('tasks').create({ id: 'short' }));
    expect(logs.some((l) => l.startsWith('create failed'))).toBe(true);
  });

  it('update request and model hooks: original() is the stored record; a thrown ForbiddenError is the answer', async () => {
    const t = await sdk.client().collection('tasks').create({ title: 'before' });
    const u = await sdk.client().collection('tasks').update(t.id, { title: 'after' });
    expect(u.note).toBe('was before');
    const err = await failure(sdk.client().collection('tasks').update(t.id, { title: 'forbidden' }));
    expect(err.response).toEqual({ status: 403, message: 'Not that title.', data: {} });
    expect((await sdk.admin.collection('tasks').getOne(t.id)).title).toBe('after');
  });

  it('a delete request hook may refuse', async () => {
    const t = await sdk.client().collection('tasks').create({ title: 'keep me' });
    expect((await failure(sdk.client().collection('tasks').delete(t.id))).message).toBe('This one stays.');
    const d = await sdk.client().collection('tasks').create({ title: 'drop me' });
    await sdk.client().collection('tasks').delete(d.id);
    expect((await failure(sdk.admin.collection('tasks').getOne(d.id))).status).toBe(404);
  });

  it('onRecordEnrich hides and adds keys in every answer; list and view request hooks see the records', async () => {
    const t = await sdk.admin.collection('tasks').create({ title: 'enriched', secret: 's3' });
    const viewed = await sdk.client().collection('tasks').getOne(t.id);
    expect(viewed.secret).toBeUndefined();
    expect(viewed.shout).toBe('ENRICHED');
    const listed = await sdk.client().collection('tasks').getList(1, 100, { filter: `id = "${t.id}"` });
    expect(listed.items[0]).toMatchObject({ note: 'listed', shout: 'ENRICHED' });
    expect(listed.items[0].secret).toBeUndefined();
    expect(listed.items[0].notShown).toBeUndefined(); // a key that is no field needs withCustomData(true)
    const h = await sdk.admin.collection('tasks').create({ title: 'hidden by hook' });
    expect((await failure(sdk.client().collection('tasks').getOne(h.id))).status).toBe(404);
  });

  it('auth hooks: onRecordAuthWithPasswordRequest may refuse, onRecordAuthRequest sees the method and token', async () => {
    await sdk.admin.collection('users').create({ email: 'ok@example.com', password: 'pass-word-123', passwordConfirm: 'pass-word-123' });
    await sdk.admin.collection('users').create({ email: 'blocked@example.com', password: 'pass-word-123', passwordConfirm: 'pass-word-123' });
    const ok = await sdk.client().collection('users').authWithPassword('ok@example.com', 'pass-word-123');
    expect(ok.token).not.toBe('');
    expect(logs.some((l) => l.startsWith('signed in') && l.includes('"method":"password"') && l.includes('"hasToken":true'))).toBe(true);
    expect((await failure(sdk.client().collection('users').authWithPassword('blocked@example.com', 'pass-word-123'))).message).toBe('Blocked by a hook.');
    // a wrong password still answers as without hooks
    expect((await failure(sdk.client().collection('users').authWithPassword('ok@example.com', 'wrong-password'))).status).toBe(400);
  });

  it("a write its null rule refuses is answered (403) before its request hooks run, as PocketBase (JSON and multipart alike)", async () => {
    await sdk.admin.collections.create({ name: 'locked', type: 'base', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }] });
    const rec = await sdk.admin.collection('locked').create({ title: 'by a superuser' });
    const guest = sdk.client();
    const form = new FormData();
    form.append('title', 'multipart');
    for (const body of [{ title: 'json' }, form]) {
      expect((await failure(guest.collection('locked').create(body))).status).toBe(403);
      expect((await failure(guest.collection('locked').update(rec.id, body))).status).toBe(403);
    }
    // a delete too: the 403 it has without hooks (was a 404 with a delete request hook)
    expect((await failure(guest.collection('locked').delete(rec.id))).status).toBe(403);
    await sdk.admin.collection('locked').update(rec.id, { title: 'by a superuser again' });
    const heard = logs.filter((l) => l.startsWith('locked '));
    expect(heard).toEqual([
      'locked create request {"title":"by a superuser"}',
      'locked update request {"title":"by a superuser again"}',
    ]);
  });

  it('onMailerSend may change a message before it is sent', async () => {
    await fetch(`${sdk.server.url}/api/collections/users/request-verification`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ok@example.com' }) });
    // the request answers before its mail is made: wait for it in the outbox
    let subject: string | undefined;
    for (let i = 0; i < 40 && subject === undefined; i++) {
      const { items } = await sdk.admin.send<{ items: { subject: string; to: string }[] }>('/api/mails', {});
      subject = items.find((m) => m.to === 'ok@example.com')?.subject;
      if (subject === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(subject).toMatch(/^\[hooked\] /);
  });
});

describe('onTerminate', () => {
  it('runs when the server closes', async () => {
    const folder = hooksFolder({ 'bye.pb.js': 'onTerminate((e) => { $os.writeFile("terminated.txt", "restart=" + e.isRestart); e.next(); });\n' });
    const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: folder });
    await server.close();
    expect(readFileSync(join(folder, 'terminated.txt'), 'utf8')).toBe('restart=false');
  });
});

describe('hook files that cannot load', () => {
  it('a PocketBase hook Deskbase does not run fails the start, naming it, the file and the line', async () => {
    const bad = hooksFolder({ 'bad.pb.js': '\n\nonCollectionCreate((e) => e.next());\n' });
    const err = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: bad }).catch((e: Error) => e);
    expect(String(err)).toMatch(/onCollectionCreate is a PocketBase hook Deskbase does not run yet/);
    expect(String(err)).toMatch(/bad\.pb\.js:3/);
    void ADMIN;
  });

  it('an onServe hook that throws fails the start and releases the port', async () => {
    const failing = hooksFolder({ 'serve.pb.js': 'onServe((e) => { throw new Error("not today"); });\n' });
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    const err = await startServer({ dir: null, port, strictPort: true, uiDir: null, log: () => undefined, hooksDir: failing }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    // the port is free again: a server without hooks binds it
    const again = await startServer({ dir: null, port, strictPort: true, uiDir: null, log: () => undefined, hooksDir: null });
    await again.close();
  });

  it('a file looping at load time fails the start at the time limit instead of hanging it', async () => {
    const looping = hooksFolder({ 'loop.pb.js': 'while (true) {}\n' });
    const took = workWatch(process.pid); // this process's work and waits, not what a busy machine adds
    const err = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: looping, hooksTimeoutMs: 800 }).catch((e: Error) => e);
    expect(String(err)).toMatch(/still running after 800 ms/);
    expect(took().worked).toBeLessThan(5000);
  });
});
