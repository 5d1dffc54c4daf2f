// routerAdd / routerUse / $apis from a real pb_hooks folder, written as PocketBase's docs show, served by
// a real server and driven through the official SDK (pb.send) and plain fetch: path values, query,
// headers, bodies bound from JSON, urlencoded and multipart forms, the request's auth record, the
// response helpers, errors in the envelope, the middlewares, and routes a built-in one would shadow
// refused at load as PocketBase refuses a conflicting pattern.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { startServer } from '../../server/index.js';
import type { HookLogEntry } from '../../server/hooks/index.js';
import { failure, startSdkServer, type SdkServer } from '../support/sdk-server.js';

const HOOKS = String.raw`
routerUse((e) => {
  e.response.header().set("X-Hooked", "yes")
  return e.next()
})

routerAdd("GET", "/api/hello/{name}", (e) => {
  let name = e.request.pathValue("name")
  return e.json(200, { "message": "Hello " + name, "q": e.request.url.query().get("q") })
})

routerAdd("GET", "/api/ip", (e) => e.json(200, { real: e.realIP(), remote: e.remoteIP() }))

routerAdd("GET", "/api/kinds/{kind}", (e) => {
  switch (e.request.pathValue("kind")) {
    case "string": return e.string(201, "plain text")
    case "html": return e.html(200, "<p>hi</p>")
    case "none": return e.noContent(204)
    case "redirect": return e.redirect(307, "/api/hello/there")
    case "badredirect": return e.redirect(200, "/x")
    case "blob": return e.blob(200, "application/octet-stream", [1, 2, 3])
    case "nothing": return
    case "twice": { e.json(200, { first: true }); return e.json(201, { second: true }) }
    case "thenthrow": { e.json(200, { kept: true }); throw new Error("after the answer") }
    case "badstatus": return e.json(99, {})
    case "badheader": { e.response.header().set("X-Bad", "a\r\nb"); return e.string(200, "x") }
  }
  throw new NotFoundError("unknown kind")
})

routerAdd("POST", "/api/info", (e) => {
  const info = e.requestInfo()
  return e.json(200, {
    method: info.method,
    query: info.query,
    token: info.headers["x_token"] || null,
    body: info.body,
    auth: info.auth ? info.auth.id : null,
    authCollection: info.auth ? info.auth.collection().name : null,
    superuser: e.hasSuperuserAuth(),
  })
})

routerAdd("POST", "/api/bind", (e) => {
  const data = {}
  e.bindBody(data)
  return e.json(200, data)
})

routerAdd("POST", "/api/raw-then-bind", (e) => {
  const text = toString(e.request.body)
  return e.json(200, { text: text, body: e.requestInfo().body })
})

routerAdd("POST", "/api/raw", (e) => {
  return e.string(200, "raw:" + toString(e.request.body) + "|" + toString(e.request.body, 3) + "|" + toString([104, 105]))
})

routerAdd("GET", "/api/errors/{kind}", (e) => {
  switch (e.request.pathValue("kind")) {
    case "bad": throw new BadRequestError("Bad thing", { "field": { "code": "x", "message": "y" } })
    case "forbidden": throw new ForbiddenError("")
    case "plain": throw new Error("a plain error with a secret detail")
    case "api": throw new ApiError(418, "teapot", {})
    case "returned": return e.badRequestError("returned error", {})
    case "missing": return e.json(200, $app.findRecordById("users", "nosuchid1234567"))
  }
  return e.json(200, {})
})

routerAdd("GET", "/api/auth/any", (e) => e.json(200, { id: e.auth.id }), $apis.requireAuth())
routerAdd("GET", "/api/auth/users", (e) => e.json(200, { id: e.auth.id }), $apis.requireAuth("users"))
routerAdd("GET", "/api/auth/superuser", (e) => e.json(200, { id: e.auth.id }), $apis.requireSuperuserAuth())
routerAdd("GET", "/api/auth/guest", (e) => e.json(200, { guest: true }), $apis.requireGuestOnly())
routerAdd("GET", "/api/auth/owner/{id}", (e) => e.json(200, { id: e.auth.id }), $apis.requireSuperuserOrOwnerAuth("id"))

routerAdd("GET", "/api/order", (e) => e.json(200, { seen: e.get("seen") }),
  new Middleware((e) => { e.set("seen", (e.get("seen") || "") + "late,"); return e.next() }, 10),
  (e) => { e.set("seen", (e.get("seen") || "") + "plain,"); return e.next() },
  new Middleware((e) => { e.set("seen", (e.get("seen") || "") + "early,"); return e.next() }, -10),
  (e) => { e.next(); e.next(); return },
)

routerAdd("POST", "/api/limited", (e) => e.json(200, e.requestInfo().body), $apis.bodyLimit(64))

routerAdd("GET", "/files/{path...}", (e) => e.string(200, "file " + e.request.pathValue("path")))
routerAdd("GET", "/files/special", (e) => e.string(200, "special"))
routerAdd("GET", "/api/me", (e) => {
  const me = $app.findRecordById("users", e.auth.id)
  return e.json(200, { email: me.email(), same: me.id === e.auth.id, authEmail: e.auth.email() })
}, $apis.requireAuth("users"))
routerAdd("GET", "/whoami", (e) => e.json(200, { auth: e.auth ? e.auth.collection().name : null }))
routerAdd("GET", "/api/picked", (e) => e.json(200, { a: 1, b: { c: 2, d: 3 } }))
routerAdd("GET", "/site/{path...}", $apis.static(__hooks + "/site", false))
routerAdd("GET", "/spa/{path...}", $apis.static(__hooks + "/site", true))
`;

let dir: string;
let sdk: SdkServer;
let user: PocketBase;
let userId: string;
let base: string;
const logged: HookLogEntry[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deskbase-routes-'));
  writeFileSync(join(dir, 'routes.pb.js'), HOOKS);
  mkdirSync(join(dir, 'site', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'site', 'index.html'), '<h1>home</h1>');
  writeFileSync(join(dir, 'site', 'a.txt'), 'a file');
  writeFileSync(join(dir, 'site', 'sub', 'index.html'), '<h1>sub</h1>');
  sdk = await startSdkServer({ hooksDir: dir, hooksLogger: (e) => void logged.push(e) });
  base = sdk.server.url;
  const created = await sdk.admin.collection('users').create({ email: 'u@example.com', password: 'user password 1', passwordConfirm: 'user password 1' });
  userId = created.id;
  user = sdk.client();
  await user.collection('users').authWithPassword('u@example.com', 'user password 1');
});

afterAll(async () => {
  await sdk?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('routerAdd', () => {
  it('answers through the SDK with the path value and the query', async () => {
    expect(await sdk.client().send('/api/hello/world', { query: { q: 'x y' } })).toEqual({ message: 'Hello world', q: 'x y' });
  });

  it('e.realIP() is the client the trusted proxy names (settings trustedProxy), e.remoteIP() the socket', async () => {
    const ip = async () => (await fetch(`${base}/api/ip`, { headers: { 'X-Forwarded-For': '203.0.113.7' } })).json();
    // no trusted proxy: the header is not believed
    expect(await ip()).toEqual({ real: '127.0.0.1', remote: '127.0.0.1' });
    await sdk.admin.settings.update({ trustedProxy: { headers: ['X-Forwarded-For'] } });
    try {
      expect(await ip()).toEqual({ real: '203.0.113.7', remote: '127.0.0.1' });
      // without the header: the socket's address
      expect(await (await fetch(`${base}/api/ip`)).json()).toEqual({ real: '127.0.0.1', remote: '127.0.0.1' });
    } finally {
      await sdk.admin.settings.update({ trustedProxy: { headers: [] } });
    }
  });

  it('answers each response helper as PocketBase', async () => {
    const s = await fetch(`${base}/api/kinds/string`);
    expect([s.status, s.headers.get('content-type'), await s.text()]).toEqual([201, 'text/plain; charset=utf-8', 'plain text']);
    const h = await fetch(`${base}/api/kinds/html`);
    expect([h.headers.get('content-type'), await h.text()]).toEqual(['text/html; charset=utf-8', '<p>hi</p>']);
    expect((await fetch(`${base}/api/kinds/none`)).status).toBe(204);
    const r = await fetch(`${base}/api/kinds/redirect`, { redirect: 'manual' });
    expect([r.status, r.headers.get('location')]).toEqual([307, '/api/hello/there']);
    const bad = await fetch(`${base}/api/kinds/badredirect`, { redirect: 'manual' });
    expect(bad.status).toBe(500);
    const b = await fetch(`${base}/api/kinds/blob`);
    expect([b.headers.get('content-type'), [...new Uint8Array(await b.arrayBuffer())]]).toEqual(['application/octet-stream', [1, 2, 3]]);
    const n = await fetch(`${base}/api/kinds/nothing`);
    expect([n.status, await n.text()]).toEqual([200, '']);
    // a second write is ignored, an error after the answer leaves the answer as it is
    const t = await fetch(`${base}/api/kinds/twice`);
    expect([t.status, await t.json()]).toEqual([200, { first: true }]);
    const k = await fetch(`${base}/api/kinds/thenthrow`);
    expect([k.status, await k.json()]).toEqual([200, { kept: true }]);
    // what an HTTP answer cannot carry fails in the hook (a 400 logged with its line), never a 500
    for (const kind of ['badstatus', 'badheader']) {
      const r = await fetch(`${base}/api/kinds/${kind}`);
      expect([r.status, await r.json()]).toEqual([400, { status: 400, message: 'Something went wrong while processing your request.', data: {} }]);
    }
    const j = await fetch(`${base}/api/hello/a`);
    expect(j.headers.get('content-type')).toBe('application/json');
    expect(await j.text()).toBe('{"message":"Hello a","q":""}\n');
  });

  it('gives requestInfo: method, query, snake_case headers, the body and the auth record', async () => {
    const guest = await sdk.client().send('/api/info', { method: 'POST', query: { a: '1' }, headers: { 'X-Token': 'tok' }, body: { title: 'hi', n: 2 } });
    expect(guest).toEqual({ method: 'POST', query: { a: '1' }, token: 'tok', body: { title: 'hi', n: 2 }, auth: null, authCollection: null, superuser: false });
    const asUser = await user.send('/api/info', { method: 'POST', body: {} });
    expect([asUser.auth, asUser.authCollection, asUser.superuser]).toEqual([userId, 'users', false]);
    const asAdmin = await sdk.admin.send('/api/info', { method: 'POST' });
    expect([asAdmin.authCollection, asAdmin.superuser]).toEqual(['_superusers', true]);
  });

  it('binds JSON, urlencoded and multipart bodies as PocketBase, and refuses another content type', async () => {
    expect(await sdk.client().send('/api/bind', { method: 'POST', body: { a: 'x', list: [1, 2] } })).toEqual({ a: 'x', list: [1, 2] });
    const form = await fetch(`${base}/api/bind`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=x&n=5&ok=true&r=1&r=2' });
    expect(await form.json()).toEqual({ a: 'x', n: 5, ok: true, r: [1, 2] });
    const multipart = new FormData();
    multipart.append('title', 'from a form');
    multipart.append('@jsonPayload', JSON.stringify({ extra: { deep: 1 } }));
    expect(await sdk.client().send('/api/bind', { method: 'POST', body: multipart })).toEqual({ title: 'from a form', extra: { deep: 1 } });
    const withFile = new FormData();
    withFile.append('title', 'x');
    withFile.append('doc', new Blob(['file bytes']), 'a.txt');
    const refused = await failure(sdk.client().send('/api/bind', { method: 'POST', body: withFile }));
    expect([refused.status, Object.keys(refused.response.data)]).toEqual([400, ['doc']]);
    const text = await fetch(`${base}/api/bind`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect([text.status, await text.json()]).toEqual([400, { status: 400, message: 'Unsupported Content-Type.', data: {} }]);
    const broken = await fetch(`${base}/api/bind`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(broken.status).toBe(400);
    const raw = await fetch(`${base}/api/raw`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'the raw text' });
    expect(await raw.text()).toBe('raw:the raw text|the|hi');
    // read as text, then bound: JSON and urlencoded as PocketBase re-reads them
    const json = await fetch(`${base}/api/raw-then-bind`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await json.json()).toEqual({ text: '{"a":1}', body: { a: 1 } });
    const urlencoded = await fetch(`${base}/api/raw-then-bind`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'n=5&s=x' });
    expect(await urlencoded.json()).toEqual({ text: 'n=5&s=x', body: { n: 5, s: 'x' } });
    const badJson = await fetch(`${base}/api/raw-then-bind`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2]' });
    expect(badJson.status).toBe(400);
  });

  it('answers errors in the envelope: hook error classes, a plain error as PocketBase\'s generic 400', async () => {
    const bad = await failure(sdk.client().send('/api/errors/bad', {}));
    expect([bad.status, bad.response]).toEqual([400, { status: 400, message: 'Bad thing.', data: { field: { code: 'x', message: 'y' } } }]);
    expect((await failure(sdk.client().send('/api/errors/forbidden', {}))).status).toBe(403);
    const plain = await fetch(`${base}/api/errors/plain`);
    expect([plain.status, await plain.json()]).toEqual([400, { status: 400, message: 'Something went wrong while processing your request.', data: {} }]);
    expect((await fetch(`${base}/api/errors/api`)).status).toBe(418);
    const returned = await fetch(`${base}/api/errors/returned`);
    expect([returned.status, (await returned.json()).message]).toEqual([400, 'Returned error.']);
    // with the headers the middlewares set before it, as PocketBase writes the error on the same response
    expect([returned.headers.get('x-hooked'), returned.headers.get('content-type')]).toEqual(['yes', 'application/json; charset=utf-8']);
    // an error from the host a hook lets through is answered as the API answers it
    const missing = await fetch(`${base}/api/errors/missing`);
    expect([missing.status, await missing.json()]).toEqual([404, { status: 404, message: 'Not found.', data: {} }]);
  });

  it('applies $apis.requireAuth, requireSuperuserAuth, requireGuestOnly and requireSuperuserOrOwnerAuth', async () => {
    const guest = sdk.client();
    expect((await failure(guest.send('/api/auth/any', {}))).response).toEqual({ status: 401, message: 'The request requires valid record authorization token.', data: {} });
    expect(await user.send('/api/auth/any', {})).toEqual({ id: userId });
    expect(await user.send('/api/auth/users', {})).toEqual({ id: userId });
    expect((await failure(sdk.admin.send('/api/auth/users', {}))).response).toEqual({ status: 403, message: 'The authorized record is not allowed to perform this action.', data: {} });
    expect((await failure(user.send('/api/auth/superuser', {}))).status).toBe(403);
    expect((await sdk.admin.send('/api/auth/superuser', {})).id).toBe(sdk.admin.authStore.record!.id);
    expect(await guest.send('/api/auth/guest', {})).toEqual({ guest: true });
    expect((await failure(user.send('/api/auth/guest', {}))).response.message).toBe('The request can be accessed only by guests.');
    expect(await user.send(`/api/auth/owner/${userId}`, {})).toEqual({ id: userId });
    expect((await failure(user.send('/api/auth/owner/someoneelse', {}))).status).toBe(403);
    expect((await sdk.admin.send('/api/auth/owner/someoneelse', {})).id).toBe(sdk.admin.authStore.record!.id);
    // the handler reaches $app with the caller's record
    expect(await user.send('/api/me', {})).toEqual({ email: 'u@example.com', same: true, authEmail: 'u@example.com' });
    // a token that is not one is a guest, as on the API
    expect((await fetch(`${base}/api/auth/any`, { headers: { authorization: 'Bearer nonsense' } })).status).toBe(401);
  });

  it('runs routerUse and the route\'s middlewares by priority, a second e.next() doing nothing', async () => {
    const res = await fetch(`${base}/api/order`);
    expect(res.headers.get('x-hooked')).toBe('yes');
    expect(await res.json()).toEqual({ seen: 'early,plain,late,' });
    // around the hooks' routes only, and the log says so once
    expect((await fetch(`${base}/api/health`)).headers.get('x-hooked')).toBeNull();
    expect(logged.filter((e) => e.level === 'WARN' && /routerUse middlewares run around the routes of pb_hooks/.test(e.message))).toHaveLength(1);
  });

  it('logs a route\'s error with its route, file and line, the client seeing only the envelope', async () => {
    await fetch(`${base}/api/errors/plain`);
    const entry = logged.find((e) => e.level === 'ERROR' && String(e.message).includes('a plain error with a secret detail'));
    expect(entry?.data).toMatchObject({ event: 'route:GET /api/errors/{kind}', file: 'routes.pb.js', line: HOOKS.split('\n').findIndex((l) => l.includes('a plain error with a secret detail')) + 1 });
  });

  it('refuses a body past $apis.bodyLimit with a 413', async () => {
    expect(await (await fetch(`${base}/api/limited`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })).json()).toEqual({ a: 1 });
    const big = await fetch(`${base}/api/limited`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 'x'.repeat(100) }) });
    expect(big.status).toBe(413);
  });

  it('serves paths outside /api, the most specific pattern first, HEAD on GET, the caller resolved as on the API', async () => {
    expect(await (await fetch(`${base}/files/a/b.txt`)).text()).toBe('file a/b.txt');
    expect(await (await fetch(`${base}/files/special`)).text()).toBe('special');
    const head = await fetch(`${base}/files/x`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect(await (await fetch(`${base}/whoami`)).json()).toEqual({ auth: null });
    expect(await (await fetch(`${base}/whoami`, { headers: { authorization: user.authStore.token } })).json()).toEqual({ auth: 'users' });
  });

  it('picks ?fields= from e.json as PocketBase does', async () => {
    expect(await (await fetch(`${base}/api/picked?fields=a,b.c`)).json()).toEqual({ a: 1, b: { c: 2 } });
  });

  it('serves a folder with $apis.static as PocketBase: index pages, canonical URLs, no way out of the folder, the SPA fallback', async () => {
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { redirect: 'manual', headers });
    const a = await get('/site/a.txt');
    expect([a.status, a.headers.get('content-type'), await a.text()]).toEqual([200, 'text/plain; charset=utf-8', 'a file']);
    expect(await (await get('/site/')).text()).toBe('<h1>home</h1>');
    expect(await (await get('/site/sub/')).text()).toBe('<h1>sub</h1>');
    for (const [from, to] of [['/site/sub', '/site/sub/'], ['/site/a.txt/', '/site/a.txt'], ['/site/index.html', '/site/']]) {
      const r = await get(from);
      expect([from, r.status, r.headers.get('location')]).toEqual([from, 301, to]);
    }
    const out = await get('/site/..%2froutes.pb.js');
    expect([out.status, await out.json()]).toEqual([404, { status: 404, message: 'File not found.', data: {} }]);
    expect((await get('/site/missing.txt')).status).toBe(404);
    expect(await (await get('/spa/some/app/route')).text()).toBe('<h1>home</h1>');
    const modified = a.headers.get('last-modified')!;
    expect((await get('/site/a.txt', { 'if-modified-since': modified })).status).toBe(304);
  });

  it('leaves the built-in routes and the 404 as they are', async () => {
    expect(await (await fetch(`${base}/api/health`)).json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${base}/api/nothing-here`);
    expect([missing.status, await missing.json()]).toEqual([404, { status: 404, message: 'Not found.', data: {} }]);
    expect((await fetch(`${base}/api/hello/x`, { method: 'POST' })).status).toBe(404);
  });
});

describe('a route that runs too long', () => {
  it('is stopped at the hooks\' time limit with a 400, the other routes answering meanwhile', async () => {
    const d = mkdtempSync(join(tmpdir(), 'deskbase-routes-loop-'));
    writeFileSync(join(d, 'loop.pb.js'), 'routerAdd("GET", "/api/loop", (e) => { for (;;) {} })\nrouterAdd("GET", "/api/quick", (e) => e.string(200, "quick"))\n');
    const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: d, hooksLogger: () => undefined, hooksTimeoutMs: 3000 });
    try {
      const looping = fetch(`${server.url}/api/loop`);
      await new Promise((r) => setTimeout(r, 100));
      expect(await (await fetch(`${server.url}/api/quick`)).text()).toBe('quick');
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      const res = await looping;
      const body = await res.json();
      expect([res.status, body.message]).toEqual([400, expect.stringMatching(/ran past its time limit/)]);
      // its worker was replaced: the route answers again
      expect(await (await fetch(`${server.url}/api/quick`)).text()).toBe('quick');
    } finally {
      await server.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('routes a built-in route or another route would shadow', () => {
  async function loadFails(source: string): Promise<string> {
    const d = mkdtempSync(join(tmpdir(), 'deskbase-routes-bad-'));
    try {
      writeFileSync(join(d, 'bad.pb.js'), source);
      const err = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: d }).then(
        async (s) => { await s.close(); return null; },
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(Error);
      return err!.message;
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }

  it('refuses a pattern a built-in route answers, naming both and the file', async () => {
    const message = await loadFails('routerAdd("GET", "/api/health", (e) => e.string(200, "mine"))\n');
    expect(message).toMatch(/pattern "GET \/api\/health" is answered by the built-in route GET \/api\/health/);
    expect(message).toMatch(/bad\.pb\.js:1/);
    expect(await loadFails('routerAdd("GET", "/api/collections/posts/records", (e) => e.string(200, "mine"))\n')).toMatch(/built-in route GET \/api\/collections\/:collection\/records/);
  });

  it('refuses a second route with the same pattern, and a malformed pattern', async () => {
    expect(await loadFails('routerAdd("GET", "/x/{a}", (e) => null)\nrouterAdd("GET", "/x/{b}", (e) => null)\n')).toMatch(/conflicts with pattern "GET \/x\/\{a\}"/);
    expect(await loadFails('routerAdd("GET", "x", (e) => null)\n')).toMatch(/must start with "\/"/);
    expect(await loadFails('routerAdd("GET", "/x", "not a function")\n')).toMatch(/handler must be non-nil/);
  });
});
