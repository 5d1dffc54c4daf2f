'use strict';
// routerAdd / routerUse / Middleware / $apis and cronAdd / cronRemove for hook files, as PocketBase's
// JSVM binds them (plugins/jsvm/binds.go). A route is one registered handler (event `route:<METHOD> <path>`)
// whose filter is the route's own key: the host (server/hooks/routes.ts) matches a request, triggers that
// key, and this module runs the route's middleware chain (routerUse's, then the route's, by priority)
// and its handler with PocketBase's request event (e.json, e.string, e.bindBody, e.requestInfo, e.auth
// ...). What the handlers write becomes `response` in the exported event; the host sends it. A cron job
// is one handler (event `__cron`) keyed the same way; cronRemove while loading is a `__cronRemove` mark.
// Patterns and expressions are checked by the host while the file loads (`routes.check`, `cron.check`),
// so a bad one fails the load naming the file and line, as PocketBase's panic stops its start.

/** A route's event: `route:GET /hello/{name}` (what the hook's errors are logged under). */
const ROUTE = 'route:';
const CRON = '__cron';
const CRON_REMOVE = '__cronRemove';
const ROUTER_USE = '__routerUse';
const CRON_SOURCE = '__cronSource';
/**
 * Keys no collection, route or job id a hook names can equal (filters share the runtime's matching),
 * made from what they name, so a request matched just before a reload runs the same route of the new
 * files (or none), never another one that took its place in the order.
 */
const keyOf = (kind, name) => `\u0001${kind}:${name}`;
/** How many times each cron id was added so far (a later cronAdd of an id replaces it). */
const cronAdds = new Map();

let loading = true;
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

let rt;
/** routerUse's middlewares, in order (every route runs them). */
const globalMiddlewares = [];
/** The routes registered so far in this worker, for the host's conflict check. */
const routes = [];

class Middleware {
  constructor(fn, priority, id) {
    this.fn = fn;
    this.priority = Number(priority) || 0;
    this.id = id == null ? '' : String(id);
  }
}

function toMiddleware(m, where) {
  if (m instanceof Middleware) {
    if (typeof m.fn !== 'function') throw new Error(`[${where}] failed to wrap middlewares: missing or invalid Middleware function`);
    return m;
  }
  if (typeof m === 'function') return new Middleware(m, 0, '');
  throw new Error(`[${where}] failed to wrap middlewares: unsupported middleware type`);
}

// ---------------------------------------------------------------- the request event

/** A header a response cannot carry (a bad name, a line break in the value) fails where the hook sets it. */
function checkHeader(name, value) {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(String(name))) throw new Error(`invalid header name ${JSON.stringify(String(name))}`);
  if (/[\r\n\0]/.test(String(value))) throw new Error(`invalid value for header ${String(name)}`);
}

/** Go's http.Header over [name, value] pairs: names compared case-insensitively. */
class Header {
  constructor(pairs) {
    this._h = new Map();
    for (const [k, v] of pairs ?? []) this.add(k, v);
  }
  get(name) {
    const list = this._h.get(String(name).toLowerCase());
    return list ? list[1][0] ?? '' : '';
  }
  values(name) {
    const list = this._h.get(String(name).toLowerCase());
    return list ? [...list[1]] : [];
  }
  set(name, value) {
    checkHeader(name, value);
    this._h.set(String(name).toLowerCase(), [String(name), [String(value)]]);
  }
  add(name, value) {
    checkHeader(name, value);
    const key = String(name).toLowerCase();
    const list = this._h.get(key);
    if (list) list[1].push(String(value));
    else this._h.set(key, [String(name), [String(value)]]);
  }
  del(name) {
    this._h.delete(String(name).toLowerCase());
  }
  has(name) {
    return this._h.has(String(name).toLowerCase());
  }
  pairs() {
    const out = [];
    for (const [, [name, values]] of this._h) for (const v of values) out.push([name, v]);
    return out;
  }
}

/** Go's url.Values: the query's values by name. */
class Values {
  constructor(params) {
    this._p = params;
  }
  get(name) {
    return this._p.get(String(name)) ?? '';
  }
  has(name) {
    return this._p.has(String(name));
  }
  all(name) {
    return this._p.getAll(String(name));
  }
  encode() {
    return this._p.toString();
  }
}

/** PocketBase's inflector.Snakecase on a header name (`X-Token` → `x_token`). */
function snakecase(name) {
  return String(name).split(/[\W_]+/).filter(Boolean).map((w) => w.replace(/([a-z0-9])([A-Z])/g, '$1_$2')).join('_').toLowerCase();
}

const UNSUPPORTED_CONTENT_TYPE = () => new g.BadRequestError('Unsupported Content-Type', {});

/** The body as the host read it once (`routes.body`: parsed object; `routes.bodyText`: raw text). */
function bodyOf(e) {
  if (!e._bodyObject) e._bodyObject = rt.call('routes.body', [e._req.bodyLimit || 0]);
  return e._bodyObject;
}

/** The request body as PocketBase's toString(e.request.body) reads it. */
class Body {
  constructor(e) {
    this._e = e;
  }
  toString() {
    if (this._e._bodyText === undefined) this._e._bodyText = rt.call('routes.bodyText', [this._e._req.bodyLimit || 0]);
    return this._e._bodyText;
  }
}

function isDynamicModel(dst) {
  return dst && typeof dst === 'object' && dst.constructor && dst.constructor.name === 'DynamicModel';
}

function makeRequest(e, r) {
  const url = new URL(r.url, 'http://localhost');
  const header = new Header(r.headers);
  return {
    method: r.method,
    host: r.host,
    remoteAddr: r.remoteAddr,
    requestURI: r.url,
    proto: 'HTTP/1.1',
    contentLength: r.contentLength,
    header,
    url: {
      path: url.pathname,
      rawQuery: url.search.slice(1),
      query: () => new Values(url.searchParams),
      string: () => r.url,
      toString: () => r.url,
    },
    body: new Body(e),
    pathValue: (name) => (Object.hasOwn(r.params, name) ? r.params[name] : ''),
    setPathValue: (name, value) => void (r.params[String(name)] = String(value)),
    cookie: (name) => {
      for (const part of header.values('cookie').join(';').split(';')) {
        const i = part.indexOf('=');
        if (i > 0 && part.slice(0, i).trim() === name) return { name, value: part.slice(i + 1).trim() };
      }
      throw new Error('http: named cookie not present');
    },
  };
}

/** Statuses an HTTP answer can carry here (Go takes 100-999; a fetch Response only 200-599). */
const STATUS_OK = (status) => Number.isInteger(status) && status >= 200 && status <= 599;

class RequestEvent {
  // the written response: status, headers, body ({ json: its text } | { text } | { base64 })
  _write(status, contentType, body) {
    if (this._response.written) return; // Go ignores a second WriteHeader; the first answer stands
    const s = Number(status);
    if (!STATUS_OK(s)) throw new Error(`invalid WriteHeader code ${status}`);
    if (contentType && !this._header.has('content-type')) this._header.set('Content-Type', contentType);
    Object.assign(this._response, { written: true, status: s, body });
  }
  json(status, data) {
    // serialized here, on the worker: the host only sends the text (and picks `?fields=` from it)
    const text = JSON.stringify(data === undefined ? null : data, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)) ?? 'null';
    this._write(status, 'application/json', { json: text });
  }
  string(status, text) {
    this._write(status, 'text/plain; charset=utf-8', { text: String(text ?? '') });
  }
  html(status, text) {
    this._write(status, 'text/html; charset=utf-8', { text: String(text ?? '') });
  }
  xml() {
    throw new Error('e.xml() is not supported by Deskbase hooks (use e.string or e.blob with an XML body)');
  }
  blob(status, contentType, bytes) {
    const buf = typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes ?? []);
    this._write(status, String(contentType), { base64: buf.toString('base64') });
  }
  noContent(status) {
    this._write(status, '', null);
  }
  redirect(status, url) {
    const s = Number(status);
    if (!(s >= 300 && s <= 399)) throw new g.InternalServerError('Invalid redirect status code', {});
    this._header.set('Location', String(url));
    this._write(s, '', null);
  }
  stream() {
    throw new Error('e.stream() is not supported by Deskbase hooks');
  }
  fileFS() {
    throw new Error('e.fileFS() is not supported by Deskbase hooks');
  }
  findUploadedFiles() {
    throw new Error('e.findUploadedFiles() is not supported by Deskbase hooks yet');
  }
  written() {
    return this._response.written;
  }
  status() {
    return this._response.written ? this._response.status : 0;
  }
  flush() {}
  isTLS() {
    return this._req.tls === true;
  }
  remoteIP() {
    return this._req.remoteIP;
  }
  realIP() {
    return this._req.realIP;
  }
  hasSuperuserAuth() {
    return !!(this.auth && this.auth.collection && this.auth.collection().name === '_superusers');
  }
  setCookie(cookie) {
    const c = cookie ?? {};
    let text = `${c.name}=${c.value ?? ''}`;
    if (c.path) text += `; Path=${c.path}`;
    if (c.domain) text += `; Domain=${c.domain}`;
    if (c.maxAge > 0) text += `; Max-Age=${c.maxAge}`;
    else if (c.maxAge < 0) text += '; Max-Age=0';
    if (c.httpOnly) text += '; HttpOnly';
    if (c.secure) text += '; Secure';
    const sameSite = { 2: 'Lax', 3: 'Strict', 4: 'None' }[c.sameSite];
    if (sameSite) text += `; SameSite=${sameSite}`;
    this._header.add('Set-Cookie', text);
  }
  get(key) {
    return this._store.get(String(key));
  }
  set(key, value) {
    this._store.set(String(key), value);
  }
  getAll() {
    return Object.fromEntries(this._store);
  }
  setAll(values) {
    for (const [k, v] of Object.entries(values ?? {})) this._store.set(k, v);
  }
  /** PocketBase's BindBody: JSON or a form (multipart, urlencoded) into `dst`; an empty body binds nothing. */
  bindBody(dst) {
    if (!(this._req.contentLength > 0) && !this._req.chunked) return;
    const type = this.request.header.get('content-type').toLowerCase();
    if (!/^(application\/json|multipart\/form-data|application\/x-www-form-urlencoded)/.test(type)) throw UNSUPPORTED_CONTENT_TYPE();
    const body = bodyOf(this);
    if (dst == null || typeof dst !== 'object') return;
    if (isDynamicModel(dst)) {
      for (const key of Object.keys(dst)) if (Object.hasOwn(body, key)) dst[key] = body[key];
    } else for (const key of Object.keys(body)) dst[key] = body[key];
  }
  requestInfo() {
    const query = {};
    for (const [k, v] of new URL(this._req.url, 'http://localhost').searchParams) if (!Object.hasOwn(query, k)) query[k] = v;
    const headers = {};
    for (const [k, v] of this.request.header.pairs()) {
      const key = snakecase(k);
      if (!Object.hasOwn(headers, key)) headers[key] = v;
    }
    let body = {};
    if ((this._req.contentLength > 0 || this._req.chunked) && /^(application\/json|multipart\/form-data|application\/x-www-form-urlencoded)/i.test(this.request.header.get('content-type'))) {
      body = { ...bodyOf(this) };
    }
    const auth = this.auth ?? null;
    return {
      query,
      headers,
      body,
      auth,
      method: this._req.method,
      context: this.get('infoContext') || 'default',
      hasSuperuserAuth: () => !!(auth && auth.collection && auth.collection().name === '_superusers'),
    };
  }
}
for (const [name, status] of [['error', 0], ['badRequestError', 400], ['notFoundError', 404], ['forbiddenError', 403], ['unauthorizedError', 401], ['tooManyRequestsError', 429], ['internalServerError', 500]]) {
  RequestEvent.prototype[name] = function (...args) {
    if (status === 0) return new g.ApiError(args[0], args[1], args[2]);
    return new (errorClass(status))(args[0], args[1]);
  };
}

let g;
function errorClass(status) {
  return { 400: g.BadRequestError, 404: g.NotFoundError, 403: g.ForbiddenError, 401: g.UnauthorizedError, 429: g.TooManyRequestsError, 500: g.InternalServerError }[status];
}

/** Gives `e` (the runtime's event object) PocketBase's request event from the host's payload. */
function makeRequestEvent(e, p) {
  const r = p.request;
  Object.setPrototypeOf(e, RequestEvent.prototype);
  e._req = r;
  e._store = new Map();
  e._header = new Header([]);
  e._response = { written: false, status: 0, body: null };
  e.request = makeRequest(e, r);
  const header = e._header;
  e.response = { header: () => header, writeHeader: (status) => e._write(status, '', null) };
  if (e.auth === undefined) e.auth = null;
}

// ---------------------------------------------------------------- $apis

/** PocketBase's safeRedirectPath: leading slashes and backslashes made one `/` (no open redirect). */
const safeRedirectPath = (p) => p.replace(/^[\\/]+/, '/');

/**
 * PocketBase's apis.Static over a folder: the route's `{path...}` value cleaned (a path climbing out of
 * the folder is not found), a folder answered by its index.html (after the redirect to its canonical
 * URL with a trailing slash), a file's URL without `index.html` or a trailing slash, and `index.html`
 * of the folder for what is missing when `indexFallback` (a single-page app). The host sends the file.
 */
function staticHandler(dir, indexFallback) {
  if (typeof dir !== 'string' || dir === '') throw new Error('$apis.static expects the first argument to be a plain string path (an fs.FS value is not supported by Deskbase)');
  const root = path.resolve(dir);
  const fallback = indexFallback === true;
  const statOf = (rel) => {
    try {
      return fs.statSync(path.join(root, rel));
    } catch {
      return null;
    }
  };
  const notFound = () => new g.NotFoundError('File not found', {});
  const sendFile = (e, rel) => {
    let file = rel;
    let st = statOf(file);
    if (st && st.isDirectory()) {
      file = path.posix.join(file, 'index.html');
      st = statOf(file);
    }
    if (!st || !st.isFile()) {
      if (fallback && rel !== 'index.html') return sendFile(e, 'index.html');
      throw notFound();
    }
    e._write(200, '', { file: { path: path.join(root, file), size: st.size, mtime: st.mtimeMs } });
    return undefined;
  };
  return (e) => {
    e._response.skipSuccessLog = true;
    let filename = path.posix.normalize(String(e.request.pathValue('path')).replace(/^\/+/, ''));
    if (filename.length > 1 && filename.endsWith('/')) filename = filename.slice(0, -1);
    if (filename === '..' || filename.startsWith('../')) {
      if (fallback) return sendFile(e, 'index.html');
      throw notFound();
    }
    const st = statOf(filename);
    if (!st) {
      if (fallback && filename !== 'index.html') return sendFile(e, 'index.html');
      throw notFound();
    }
    const urlPath = e.request.url.path;
    if (st.isDirectory()) {
      if (!urlPath.endsWith('/')) return e.redirect(301, safeRedirectPath(`${urlPath}/`));
    } else if (urlPath.endsWith('/')) {
      const trimmed = urlPath.replace(/\/+$/, '');
      if (trimmed.length > 0) return e.redirect(301, safeRedirectPath(trimmed));
    } else if (urlPath.endsWith('index.html')) return e.redirect(301, safeRedirectPath(urlPath.slice(0, -'index.html'.length)));
    return sendFile(e, filename);
  };
}

function requireAuthFn(names) {
  return (e) => {
    if (!e.auth) throw new g.UnauthorizedError('The request requires valid record authorization token.', {});
    if (names.length > 0 && !names.includes(e.auth.collection().name)) throw new g.ForbiddenError('The authorized record is not allowed to perform this action.', {});
    return e.next();
  };
}

function makeApis() {
  return {
    requireGuestOnly: () =>
      new Middleware((e) => {
        if (e.auth) throw new g.BadRequestError('The request can be accessed only by guests.', {});
        return e.next();
      }, 0, 'pbRequireGuestOnly'),
    requireAuth: (...names) => new Middleware(requireAuthFn(names.flat().map(String)), 0, 'pbRequireAuth'),
    requireSuperuserAuth: () => new Middleware(requireAuthFn(['_superusers']), 0, 'pbRequireSuperuserAuth'),
    requireSuperuserOrOwnerAuth: (ownerIdPathParam) =>
      new Middleware((e) => {
        if (!e.auth) throw new g.UnauthorizedError('The request requires superuser or record authorization token.', {});
        if (e.hasSuperuserAuth()) return e.next();
        const ownerId = e.request.pathValue(ownerIdPathParam || 'id');
        if (e.auth.id !== ownerId) throw new g.ForbiddenError('You are not allowed to perform this request.', {});
        return e.next();
      }, 0, 'pbRequireSuperuserOrOwnerAuth'),
    requireSameCollectionContextAuth: (collectionPathParam) =>
      new Middleware((e) => {
        if (!e.auth) throw new g.UnauthorizedError('The request requires valid record authorization token.', {});
        const wanted = e.request.pathValue(collectionPathParam || 'collection');
        const c = e.auth.collection();
        if (c.id !== wanted && c.name !== wanted) throw new g.ForbiddenError(`The request requires auth record from ${c.name} collection.`, {});
        return e.next();
      }, 0, 'pbRequireSameCollectionContextAuth'),
    skipSuccessActivityLog: () =>
      new Middleware((e) => {
        e._response.skipSuccessLog = true;
        return e.next();
      }, 0, 'pbSkipSuccessActivityLog'),
    bodyLimit: (limitBytes) =>
      new Middleware((e) => {
        const limit = Number(limitBytes);
        if (limit > 0) {
          if (e._req.contentLength > limit) throw new g.ApiError(413, 'Request entity too large', {});
          e._req.bodyLimit = limit;
        }
        return e.next();
      }, 0, 'pbBodyLimit'),
    gzip: () =>
      new Middleware((e) => {
        e._response.gzip = true;
        return e.next();
      }, 0, 'pbGzip'),
    static: staticHandler,
    recordAuthResponse: () => {
      throw new Error('$apis.recordAuthResponse is not supported by Deskbase hooks yet');
    },
    enrichRecord: () => {
      throw new Error('$apis.enrichRecord is not supported by Deskbase hooks yet');
    },
    enrichRecords: () => {
      throw new Error('$apis.enrichRecords is not supported by Deskbase hooks yet');
    },
  };
}

// ---------------------------------------------------------------- the chain

/** Runs `list` (middlewares by priority, then the handler) with PocketBase's e.next(). */
function runChain(e, list) {
  const step = (i) => {
    if (i >= list.length) return undefined;
    let called = false;
    const outer = e.next;
    e.next = () => {
      if (called) return undefined; // a second e.next() does nothing
      called = true;
      return step(i + 1);
    };
    try {
      const result = list[i](e);
      if (result instanceof Error) throw result; // a returned error fails the request, as a returned Go error
      return result;
    } finally {
      e.next = outer;
    }
  };
  return step(0);
}

function sortByPriority(middlewares) {
  return middlewares.map((m, i) => [m, i]).sort((a, b) => a[0].priority - b[0].priority || a[1] - b[1]).map(([m]) => m);
}

// ---------------------------------------------------------------- install

exports.install = (globalObject, runtime) => {
  g = globalObject;
  rt = runtime;
  g.Middleware = Middleware;
  g.$apis = makeApis();
  // toString(e.request.body): the request's body as text (tools.cjs's toString for any other value)
  const baseToString = Object.hasOwn(g, 'toString') ? g.toString : (value) => (value == null ? '' : String(value));
  g.toString = (value, maxBytes) => {
    if (!(value instanceof Body)) return baseToString(value, maxBytes);
    const text = value.toString();
    return maxBytes > 0 ? Buffer.from(text).subarray(0, maxBytes).toString('utf8') : text;
  };

  // the runner of jobs cronAdd adds from a running handler: registered before the first handler whose
  // code calls cronAdd (so files that never do have no extra handler)
  const register = rt.register;
  let sourceRunner = false;
  rt.register = (event, fn, filters) => {
    if (!sourceRunner && event !== CRON_SOURCE && typeof fn === 'function' && /\bcronAdd\b/.test(Function.prototype.toString.call(fn))) {
      sourceRunner = true;
      register(CRON_SOURCE, (e) => {
        const fn = vm.runInThisContext(`(${e.source})`, { filename: `cronAdd ${e.jobId}` });
        fn();
      }, []);
    }
    return register(event, fn, filters);
  };

  g.routerAdd = (method, path, handler, ...middlewares) => {
    if (!loading) throw new Error('[routerAdd] routes can only be added while pb_hooks load');
    if (typeof handler !== 'function') throw new Error('[routerAdd] failed to wrap handler: handler must be non-nil');
    const own = middlewares.map((m) => toMiddleware(m, 'routerAdd'));
    rt.call('routes.check', [String(method ?? ''), String(path ?? ''), routes]);
    const key = keyOf('route', `${String(method ?? '').toUpperCase()} ${path}`);
    routes.push([String(method ?? ''), String(path ?? '')]);
    const upper = String(method ?? '').toUpperCase();
    const event = `${ROUTE}${upper === '' ? '' : `${upper} `}${path}`;
    const fn = (e) => {
      const chain = sortByPriority([...globalMiddlewares, ...own]).map((m) => m.fn);
      try {
        runChain(e, [...chain, handler]);
      } catch (err) {
        // an error of the host's own (a failed statement...) goes back as itself: the host answers it
        if (err && typeof err === 'object' && typeof err.hostErrorId === 'number' && !e._response.written) throw err;
        const where = rt.locate(err && err.stack) ?? {};
        const text = err && err.message ? err.message : String(err);
        rt.log('ERROR', `${event} hook failed: ${text}`, { event, ...where });
        // an error after the answer was written: the answer stands (PocketBase's ErrorHandler)
        if (e._response.written) return;
        // else the error's envelope, with the headers the middlewares set (PocketBase writes it on the same response)
        const status = err && Number.isInteger(err.status) && err.status >= 400 && err.status <= 599 ? err.status : 400;
        const message = err && err.status >= 400 ? String(err.message) : 'Something went wrong while processing your request.';
        const data = status >= 500 || !err || typeof err.data !== 'object' || err.data === null ? {} : err.data;
        Object.assign(e._response, { written: true, status, body: { error: { status, message, data } } });
      }
    };
    rt.register(event, fn, [key, upper, String(path)]);
  };

  g.routerUse = (...middlewares) => {
    if (!loading) throw new Error('[routerUse] middlewares can only be added while pb_hooks load');
    for (const m of middlewares) globalMiddlewares.push(toMiddleware(m, 'routerUse'));
    // a mark for the host, which says once per load where routerUse's middlewares run
    rt.register(ROUTER_USE, () => undefined, [keyOf('routerUse', '')]);
  };

  g.cronAdd = (jobId, cronExpr, handler) => {
    const id = String(jobId);
    if (typeof handler !== 'function') throw new Error(`[cronAdd] failed to register cron job ${id}: failed to add new cron job: fn must be non-nil function`);
    if (!loading) {
      // from a running handler (onBootstrap...), as PocketBase: the function's source, run later on any
      // worker; like PocketBase's, it keeps none of the variables around it
      rt.call('cron.add', [id, String(cronExpr), String(handler)]);
      return;
    }
    const expression = rt.call('cron.check', [id, String(cronExpr)]);
    const n = (cronAdds.get(id) ?? 0) + 1;
    cronAdds.set(id, n);
    rt.register(CRON, () => void handler(), [keyOf('cron', `${n}:${id}`), id, expression]);
  };

  g.cronRemove = (jobId) => {
    const id = String(jobId);
    if (loading) rt.register(CRON_REMOVE, () => undefined, [keyOf('cronRemove', id), id]);
    else rt.call('cron.remove', [id]);
  };

  rt.eventMakers.push({
    make(event, e, p) {
      loading = false; // handlers run once every file loaded: routerAdd, routerUse and cronAdd are load-time only
      if (event.startsWith(ROUTE) && p.request) {
        // events.cjs copies a payload's plain values onto e and back: the request is made into objects here instead
        const plain = e._plainKeys;
        if (Array.isArray(plain) && plain.includes('request')) plain.splice(plain.indexOf('request'), 1);
        makeRequestEvent(e, p);
      }
    },
    export(event, e, out) {
      if (!event.startsWith(ROUTE) || !e._response) return;
      const r = e._response;
      out.response = { written: r.written, status: r.status, body: r.body, headers: e._header.pairs(), skipSuccessLog: r.skipSuccessLog === true, gzip: r.gzip === true };
    },
  });
};

exports.Middleware = Middleware;
exports.ROUTE = ROUTE;
