'use strict';
// The hooks worker (one per thread of the pool in server/hooks/runtime.ts): loads every pb_hooks/*.pb.js
// file in name order with PocketBase's globals, records the handlers they register, and runs them when
// the host asks. PocketBase's API is synchronous: `rt.call(op, args)` posts to the host and blocks on
// Atomics.wait until the host answers (receiveMessageOnPort), so `$app.findRecordById(...)` returns the
// record. While blocked, the host may ask this worker to run another handler first (a hook's
// `$app.save(...)` runs the save's own hooks here, on this thread, inside the same transaction): those
// arrive on the same port and run on this stack. Plain CommonJS, so it loads the same way under tsx,
// Vitest and the esbuild bundles (scripts/build.mjs bundles this file to <bundle dir>/worker/main.cjs).
//
// A feature adds its globals with a module of this folder exporting `install(g, rt)` (g: the hooks'
// global object; rt: this runtime, see RUNTIME below), listed in FEATURES.
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const { port, signal, dir, files, workerId } = workerData;
const flag = new Int32Array(signal);

// Linux applies a nice value to the calling thread only: hooks take the CPU the event loop leaves.
if (process.platform === 'linux') {
  try {
    require('node:os').setPriority(0, 10);
  } catch {
    /* not permitted: run at normal priority */
  }
}

let nextCallId = 1;
/** Scope ids, innermost last: host calls go through the innermost (its transaction, its request). */
const scopes = [];
/** Handlers registered by the hook files: index = handler id (the same in every worker). */
const handlers = [];
/** Callbacks the host may run later (runInTransaction's function...): id → function. */
const callbacks = new Map();
let nextCallbackId = 1;

/** Errors thrown here that went to the host, by id: one coming back (through a host call) is rethrown as itself. */
const thrownHere = new Map();
let nextThrown = 1;

/** A host error (or a hook error) as it crosses the bridge. */
function serializeError(err) {
  const workerErrorId = nextThrown++;
  thrownHere.set(workerErrorId, err);
  if (thrownHere.size > 200) thrownHere.delete(thrownHere.keys().next().value);
  if (err && typeof err === 'object') {
    const status = typeof err.status === 'number' ? err.status : 0;
    const where = locate(err.stack);
    return {
      status,
      message: String(err.message ?? err),
      data: err.data && typeof err.data === 'object' ? err.data : {},
      hostErrorId: typeof err.hostErrorId === 'number' ? err.hostErrorId : undefined,
      workerErrorId,
      name: err.name,
      stack: typeof err.stack === 'string' ? err.stack : undefined,
      file: where?.file,
      line: where?.line,
    };
  }
  return { status: 0, message: String(err), data: {}, workerErrorId };
}

/** The first frame of a stack in a hook file: { file, line }. */
function locate(stack) {
  if (typeof stack !== 'string') return null;
  for (const line of stack.split('\n')) {
    const m = /\(?([^()\s]+\.js):(\d+):\d+\)?\s*$/.exec(line);
    if (m && m[1].startsWith(dir)) return { file: path.relative(dir, m[1]), line: Number(m[2]) };
  }
  return null;
}

function post(message) {
  port.postMessage(message);
}

/** Handles one message from the host; returns the message when it is the answer `waitingFor` waits for. */
function handle(message, waitingFor) {
  if ((message.t === 'result' || message.t === 'error') && message.id === waitingFor) return message;
  if (message.t === 'invoke') runInvoke(message);
  else if (message.t === 'callback') runCallback(message);
  else if (message.t === 'close') process.exit(0);
  return null;
}

/**
 * The synchronous bridge: asks the host to run `op` with `args` (JSON-like values) in the innermost
 * scope and blocks until it answers. Nested invokes the host sends meanwhile run here first.
 */
function call(op, args) {
  const id = nextCallId++;
  Atomics.store(flag, 0, 0);
  post({ t: 'call', id, op, args, scope: scopes[scopes.length - 1] ?? 0 });
  for (;;) {
    Atomics.wait(flag, 0, 0);
    Atomics.store(flag, 0, 0);
    let got;
    while ((got = receiveMessageOnPort(port)) !== undefined) {
      const answer = handle(got.message, id);
      if (answer) {
        if (answer.t === 'error') {
          const own = answer.error.workerErrorId !== undefined ? thrownHere.get(answer.error.workerErrorId) : undefined;
          throw own !== undefined ? own : RUNTIME.toError(answer.error);
        }
        return answer.value;
      }
    }
  }
}

function withScope(scope, fn) {
  scopes.push(scope);
  try {
    return fn();
  } finally {
    scopes.pop();
  }
}

/** Runs the handlers `message.handlers` of an event in a chain around the host's action. */
function runInvoke(message) {
  const { id, event, scope } = message;
  withScope(scope, () => {
    try {
      const e = RUNTIME.makeEvent(event, message.payload, scope);
      const list = message.handlers.map((h) => handlers[h]);
      let ran = false;
      const step = (i) => {
        if (i < list.length) {
          let called = false;
          const next = () => {
            if (called) return undefined; // a second e.next() in one handler does nothing
            called = true;
            return step(i + 1);
          };
          const outer = e.next;
          e.next = next;
          try {
            return list[i].fn(e);
          } finally {
            e.next = outer;
          }
        }
        ran = true;
        const after = call('__next', [message.invoke, RUNTIME.exportEvent(event, e)]);
        RUNTIME.applyEvent(event, e, after);
        return undefined;
      };
      step(0);
      post({ t: 'done', id, value: { payload: RUNTIME.exportEvent(event, e), ran } });
    } catch (err) {
      post({ t: 'failed', id, error: serializeError(err) });
    }
  });
}

function runCallback(message) {
  const { id, scope } = message;
  withScope(scope, () => {
    try {
      const fn = callbacks.get(message.callback);
      if (!fn) throw new Error(`unknown callback ${message.callback}`);
      const value = fn(...RUNTIME.fromHost(message.args ?? []));
      post({ t: 'done', id, value: RUNTIME.toHost(value) });
    } catch (err) {
      post({ t: 'failed', id, error: serializeError(err) });
    }
  });
}

/** What every feature module gets (`install(g, rt)`). */
const RUNTIME = {
  dir,
  workerId,
  call,
  /** The scope id host calls go through now (0: none, outside any invocation). */
  scope: () => scopes[scopes.length - 1] ?? 0,
  withScope,
  /** Keeps `fn` for the host to call back (`{ t: 'callback', callback: id }`); `forget(id)` drops it. */
  keep(fn) {
    const id = nextCallbackId++;
    callbacks.set(id, fn);
    return id;
  },
  forget(id) {
    callbacks.delete(id);
  },
  /** Registers a handler: `event`, the collection filters (names or ids; none: all), the function. */
  register(event, fn, filters) {
    if (typeof fn !== 'function') throw new TypeError(`${event}: the handler must be a function`);
    handlers.push({ event, fn, filters: filters.map(String) });
  },
  /** Per-event conversions, by event name or '*': features add theirs (see makeEvent). */
  eventMakers: [],
  /** The event object a handler gets: the payload's values made into the worker's types. */
  makeEvent(event, payload, scope) {
    const e = { next: () => undefined };
    for (const m of RUNTIME.eventMakers) m.make?.(event, e, payload, scope);
    return e;
  },
  /** The event's data for the host, as the handlers left it. */
  exportEvent(event, e) {
    const out = {};
    for (const m of RUNTIME.eventMakers) m.export?.(event, e, out);
    return out;
  },
  /** The host's payload after its action, applied back onto the event. */
  applyEvent(event, e, payload) {
    for (const m of RUNTIME.eventMakers) m.apply?.(event, e, payload ?? {});
  },
  /** Values from the host / to the host: features convert their types (records...). */
  fromHost: (values) => values,
  toHost: (value) => value,
  /** An error from the host (a serialized ApiError) as a worker error. Features replace it (errors.cjs). */
  toError(error) {
    const err = new Error(error.message);
    Object.assign(err, { status: error.status, data: error.data, hostErrorId: error.hostErrorId });
    return err;
  },
  log(level, message, data) {
    post({ t: 'log', level, message: String(message), data: data ?? {} });
  },
  locate,
  serializeError,
};

// The hooks' global object: globalThis of this thread (PocketBase's VM globals are globals too).
const g = globalThis;

// Features: each adds its globals. Others add their module here (routes, cron, db, migrations).
const FEATURES = [require('./errors.cjs'), require('./events.cjs'), require('./collection.cjs'), require('./record.cjs'), require('./app.cjs'), require('./tools.cjs'), require('./filesystem.cjs'), require('./routes.cjs'), require('./db.cjs'), require('./migrations.cjs')];
for (const feature of FEATURES) feature.install(g, RUNTIME);

/** `require()` for hook files: CommonJS modules relative to the requiring file (with or without `.js`). */
function makeRequire(fromDir) {
  const nodeRequire = require('node:module').createRequire(path.join(fromDir, 'index.js'));
  const cache = new Map();
  const hookRequire = (spec) => {
    if (typeof spec !== 'string') throw new TypeError('require() takes a path');
    if (!spec.startsWith('.') && !path.isAbsolute(spec)) return nodeRequire(spec);
    let file = path.resolve(fromDir, spec);
    if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      if (fs.existsSync(`${file}.js`)) file = `${file}.js`;
      else if (fs.existsSync(path.join(file, 'index.js'))) file = path.join(file, 'index.js');
    }
    if (cache.has(file)) return cache.get(file).exports;
    const module = { exports: {} };
    cache.set(file, module);
    runFile(file, module);
    return module.exports;
  };
  return hookRequire;
}

function runFile(file, module) {
  const source = fs.readFileSync(file, 'utf8');
  const wrapper = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, lineOffset: 0 });
  wrapper.call(module.exports, module.exports, makeRequire(path.dirname(file)), module, file, path.dirname(file));
}

g.__hooks = dir;

try {
  for (const name of files) runFile(path.join(dir, name), { exports: {} });
  post({ t: 'ready', handlers: handlers.map((h) => ({ event: h.event, filters: h.filters })) });
} catch (err) {
  post({ t: 'loadFailed', error: serializeError(err) });
}

port.on('message', (message) => {
  Atomics.store(flag, 0, 0);
  handle(message, -1);
  let got;
  while ((got = receiveMessageOnPort(port)) !== undefined) handle(got.message, -1);
});
