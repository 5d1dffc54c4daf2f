// TEMPORARY: a spec-shaped in-memory server used only to preview the admin UI's layouts while the
// real server (server/index.ts) was incomplete. Filters are crude (one `field ~ "x"` or `field = x`).
// Not used by the e2e tests once startServer works.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, unknown>;
const id15 = () => Array.from(randomBytes(15), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
const now = () => new Date().toISOString();
const f = (name: string, type: string, extra: Obj = {}) => ({ id: `${type}${name}`.slice(0, 10).padEnd(10, '0'), name, type, system: false, hidden: false, presentable: false, required: false, ...extra });

export async function startDevServer(uiDir: string, port = 0) {
  const setupToken = id15();
  const users: Obj[] = [];
  const sessions: Obj[] = [];
  const superusers = {
    id: '_superusers', name: '_superusers', type: 'auth', system: true, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, authRule: '', manageRule: null, identityFields: ['email'],
    fields: [f('id', 'text', { system: true, primaryKey: true, required: true, min: 15, max: 15 }), f('email', 'email', { system: true, required: true }), f('password', 'password', { system: true, hidden: true }), f('created', 'autodate', { onCreate: true })],
  };
  const collections: Obj[] = [superusers];
  const data = new Map<string, Obj[]>();
  const err = (status: number, message: string, d: Obj = {}) => ({ status, body: { status, message, data: d } });
  const findC = (k: string) => collections.find((c) => c.id === k || c.name === k);

  function route(method: string, path: string, q: URLSearchParams, body: Obj, auth: Obj | undefined): { status: number; body?: unknown } {
    if (path === '/api/setup' && method === 'GET') return { status: 200, body: { required: users.length === 0 } };
    if (path === '/api/setup' && method === 'POST') {
      if (users.length) return err(404, 'Not found.');
      if (body.token !== setupToken) return err(403, 'Invalid or expired setup token. Check the server logs for a new one.');
      if (String(body.password ?? '').length < 8) return err(400, 'Failed to create superuser.', { password: { code: 'validation_length_out_of_range', message: 'Must be at least 8 characters.' } });
      const u = { id: id15(), email: body.email, password: body.password, collectionId: '_superusers', collectionName: '_superusers' };
      users.push(u);
      return { status: 200, body: { ...u, password: undefined } };
    }
    if (path === '/api/collections/_superusers/auth-with-password') {
      const u = users.find((x) => x.email === body.identity && x.password === body.password);
      if (!u) return err(400, 'Failed to authenticate.');
      const token = randomBytes(32).toString('base64url');
      sessions.unshift({ id: id15(), token, user: u.id, created: now(), expires: new Date(Date.now() + 7 * 864e5).toISOString(), userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120 Safari/537.36' });
      return { status: 200, body: { token, record: { ...u, password: undefined } } };
    }
    if (path === '/api/session' && method === 'GET') return { status: 200, body: auth ? { ...auth, token: undefined, current: true, record: { collectionName: '_superusers', id: auth.user, email: users.find((u) => u.id === auth.user)?.email } } : null };
    if (path === '/api/session' && method === 'DELETE') {
      if (auth) sessions.splice(sessions.indexOf(auth), 1);
      return { status: 204 };
    }
    if (!auth) return err(401, 'The request requires valid record authorization token.');
    if (path === '/api/sessions') return { status: 200, body: { items: sessions.map((s) => ({ id: s.id, created: s.created, expires: s.expires, userAgent: s.userAgent, current: s === auth })) } };
    const sm = /^\/api\/sessions\/(\w+)$/.exec(path);
    if (sm && method === 'DELETE') {
      const i = sessions.findIndex((s) => s.id === sm[1]);
      if (i >= 0) sessions.splice(i, 1);
      return { status: 204 };
    }
    if (path === '/api/collections' && method === 'GET') return { status: 200, body: { page: 1, perPage: 1000, totalItems: collections.length, totalPages: 1, items: collections } };
    if (path === '/api/collections' && method === 'POST') {
      if (!body.name) return err(400, 'Failed to create collection.', { name: { code: 'validation_required', message: 'Cannot be blank.' } });
      const ruleErr = checkRules(body);
      if (ruleErr) return ruleErr;
      const fields = [f('id', 'text', { id: 'text3208210256', system: true, primaryKey: true, required: true, min: 15, max: 15, pattern: '^[a-z0-9]+$', autogeneratePattern: '[a-z0-9]{15}' }), ...(body.type === 'auth' ? [f('password', 'password', { system: true, hidden: true, required: true, min: 8 }), f('tokenKey', 'text', { system: true, hidden: true }), f('email', 'email', { system: true, required: true }), f('emailVisibility', 'bool', { system: true }), f('verified', 'bool', { system: true })] : []), ...((body.fields as Obj[]) ?? [])];
      const c = { id: id15(), type: 'base', system: false, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, ...body, fields, created: now(), updated: now() };
      collections.push(c);
      data.set(c.id as string, []);
      return { status: 200, body: c };
    }
    const cm = /^\/api\/collections\/([^/]+)(\/records(?:\/([^/]+))?)?$/.exec(path);
    if (!cm) return err(404, 'Not found.');
    const c = findC(decodeURIComponent(cm[1]));
    if (!c) return err(404, 'Not found.');
    if (!cm[2]) {
      if (method === 'GET') return { status: 200, body: c };
      if (method === 'DELETE') {
        collections.splice(collections.indexOf(c), 1);
        return { status: 204 };
      }
      const ruleErr = checkRules(body);
      if (ruleErr) return ruleErr;
      Object.assign(c, body);
      return { status: 200, body: c };
    }
    const rows = c.id === '_superusers' ? users : (data.get(c.id as string) ?? []);
    const fields = c.fields as Obj[];
    const expandRec = (r: Obj) => {
      const ex: Obj = {};
      for (const name of (q.get('expand') ?? '').split(',').filter(Boolean)) {
        const rf = fields.find((x) => x.name === name);
        if (!rf) continue;
        const target = data.get(rf.collectionId as string) ?? [];
        const ids = Array.isArray(r[name]) ? (r[name] as string[]) : r[name] ? [r[name] as string] : [];
        const found = ids.map((i) => target.find((t) => t.id === i)).filter(Boolean);
        if (found.length) ex[name] = (rf.maxSelect as number) > 1 ? found : found[0];
      }
      return Object.keys(ex).length ? { ...r, expand: ex } : r;
    };
    if (!cm[3] && method === 'GET') {
      let items = [...rows];
      const filter = q.get('filter') ?? '';
      if (filter) {
        const m = /^(\w+)\s*(~|=|>=|>)\s*"?([^"]*)"?/.exec(filter.split('||')[0].trim());
        if (!m) return err(400, 'Something went wrong while processing your request.');
        const [, key, op] = m;
        if (!fields.some((x) => x.name === key)) return err(400, 'Something went wrong while processing your request.', {});
        const terms = filter.split('||').map((p) => /"([^"]*)"/.exec(p)?.[1] ?? /[=~>]\s*(\S+)/.exec(p)?.[1] ?? '');
        const keys = filter.split('||').map((p) => /(\w+)\s*[~=>]/.exec(p)?.[1] ?? key);
        items = items.filter((r) => keys.some((k, i) => (op === '~' ? String(r[k] ?? '').toLowerCase().includes(terms[i].toLowerCase()) : op === '=' ? String(r[k]) === terms[i] : Number(r[k]) > Number(terms[i]))));
      }
      const sort = q.get('sort') ?? '';
      if (sort) {
        const desc = sort.startsWith('-');
        const k = sort.replace(/^-/, '');
        items.sort((a, b) => (String(a[k] ?? '') < String(b[k] ?? '') ? -1 : 1) * (desc ? -1 : 1));
      }
      const perPage = Number(q.get('perPage') ?? 30);
      const page = Number(q.get('page') ?? 1);
      return { status: 200, body: { page, perPage, totalItems: items.length, totalPages: Math.ceil(items.length / perPage), items: items.slice((page - 1) * perPage, page * perPage).map(expandRec) } };
    }
    if (method === 'POST') {
      const errors: Obj = {};
      for (const x of fields) if (x.required && !x.system && (body[x.name as string] === undefined || body[x.name as string] === '')) errors[x.name as string] = { code: 'validation_required', message: 'Cannot be blank.' };
      if (Object.keys(errors).length) return err(400, 'Failed to create record.', errors);
      const r: Obj = { id: (body.id as string) || id15(), collectionId: c.id, collectionName: c.name, created: now(), updated: now() };
      for (const x of fields) if (x.type !== 'password' && x.name !== 'id' && x.type !== 'autodate') r[x.name as string] = body[x.name as string] ?? (x.type === 'bool' ? false : x.type === 'number' ? 0 : x.type === 'json' ? null : (x.maxSelect as number) > 1 ? [] : '');
      rows.push(r);
      return { status: 200, body: expandRec(r) };
    }
    const rec = rows.find((r) => r.id === cm[3]);
    if (!rec) return err(404, 'Not found.');
    if (method === 'GET') return { status: 200, body: expandRec(rec) };
    if (method === 'PATCH') {
      Object.assign(rec, body, { updated: now() });
      return { status: 200, body: expandRec(rec) };
    }
    rows.splice(rows.indexOf(rec), 1);
    return { status: 204 };
  }

  function checkRules(body: Obj) {
    for (const k of ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule']) {
      const v = body[k];
      if (typeof v === 'string' && /nope|\?\?|^=/.test(v)) return err(400, 'Failed to validate collection.', { [k]: { code: 'validation_invalid_rule', message: `Invalid rule. Raw error: unknown field "${v.split(' ')[0]}".` } });
    }
    return undefined;
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/_/')) {
      const rel = url.pathname.slice(3) || 'index.html';
      try {
        const body = await readFile(join(uiDir, rel));
        const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
        res.writeHead(200, { 'content-type': types[extname(rel)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString();
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const auth = sessions.find((s) => s.token === token);
    const out = route(req.method ?? 'GET', url.pathname, url.searchParams, text ? (JSON.parse(text) as Obj) : {}, auth);
    if (out.body === undefined) res.writeHead(out.status).end();
    else res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setupToken: () => (users.length ? null : setupToken),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
