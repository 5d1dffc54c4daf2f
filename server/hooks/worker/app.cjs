'use strict';
// `$app`: PocketBase's core.App as hooks use it, each method one synchronous bridge call (server/hooks/
// app-ops.ts answers them on the host). Calls run in the innermost scope: inside a write's hook (or a
// runInTransaction function) they go through that write's transaction; `e.app` and the `txApp` a
// transaction function gets are the same object.
const { recordFromWire, recordToWire, Collection, Record } = require('./record.cjs');

const nameOf = (c) => (c instanceof Collection || (c && typeof c === 'object') ? String(c.id || c.name) : String(c ?? ''));
const params = (p) => (p && typeof p === 'object' ? p : {});

function makeApp(rt) {
  const call = (op, args) => rt.call(op, args);
  const logger = {
    debug: (msg, ...kv) => rt.log('DEBUG', msg, pairs(kv)),
    info: (msg, ...kv) => rt.log('INFO', msg, pairs(kv)),
    warn: (msg, ...kv) => rt.log('WARN', msg, pairs(kv)),
    error: (msg, ...kv) => rt.log('ERROR', msg, pairs(kv)),
    with: () => logger,
    withGroup: () => logger,
  };
  const app = {
    findCollectionByNameOrId: (c) => new Collection(call('app.findCollectionByNameOrId', [nameOf(c)])),
    findRecordById: (c, id) => recordFromWire(call('app.findRecordById', [nameOf(c), String(id ?? '')])),
    findRecordsByIds: (c, ids) => call('app.findRecordsByIds', [nameOf(c), (ids ?? []).map(String)]).map(recordFromWire),
    findFirstRecordByData: (c, key, value) => recordFromWire(call('app.findFirstRecordByData', [nameOf(c), String(key), value])),
    findFirstRecordByFilter: (c, filter, p) => recordFromWire(call('app.findFirstRecordByFilter', [nameOf(c), String(filter ?? ''), params(p)])),
    findRecordsByFilter: (c, filter, sort, limit, offset, p) =>
      call('app.findRecordsByFilter', [nameOf(c), String(filter ?? ''), String(sort ?? ''), Number(limit) || 0, Number(offset) || 0, params(p)]).map(recordFromWire),
    findAllRecords: (c) => call('app.findRecordsByFilter', [nameOf(c), '', '', 0, 0, {}]).map(recordFromWire),
    findAuthRecordByEmail: (c, email) => recordFromWire(call('app.findAuthRecordByEmail', [nameOf(c), String(email ?? '')])),
    /** countRecords(collection, filter?, params?): a filter text in place of PocketBase's dbx expressions. */
    countRecords: (c, filter, p) => call('app.countRecords', [nameOf(c), typeof filter === 'string' ? filter : '', params(p)]),
    save: (model) => saveRecord(rt, model, true),
    saveNoValidate: (model) => saveRecord(rt, model, false),
    delete: (model) => {
      if (!(model instanceof Record)) throw new TypeError('$app.delete takes a Record');
      call('app.delete', [recordToWire(model)]);
    },
    /** Runs `fn(txApp)` in one transaction (the current one when already inside a write); a throw rolls it back. */
    runInTransaction: (fn) => {
      if (typeof fn !== 'function') throw new TypeError('runInTransaction takes a function');
      const id = rt.keep(() => fn(app));
      try {
        call('app.runInTransaction', [id]);
      } finally {
        rt.forget(id);
      }
    },
    /** Expands `expands` (relation paths) onto the record (`record.get("expand")`); returns a map of failures. */
    expandRecord: (record, expands) => {
      const out = call('app.expandRecord', [recordToWire(record), (expands ?? []).map(String)]);
      record._extra.expand = out.expand;
      return out.failed ?? {};
    },
    expandRecords: (records, expands) => {
      let failed = {};
      for (const r of records) failed = { ...failed, ...app.expandRecord(r, expands) };
      return failed;
    },
    logger: () => logger,
    isDev: () => false,
    isBootstrapped: () => true,
    dataDir: () => call('app.dataDir', []),
    settings: () => call('app.settings', []),
  };
  return app;
}

function saveRecord(rt, model, validate) {
  if (!(model instanceof Record)) {
    throw new TypeError(`$app.save takes a Record here (${model?.constructor?.name ?? typeof model} is not supported yet)`);
  }
  const saved = rt.call('app.save', [recordToWire(model), validate]);
  const fresh = recordFromWire(saved);
  model._d = fresh._d;
  model._o = fresh._o;
  model._pw = undefined;
}

function pairs(kv) {
  const out = {};
  for (let i = 0; i + 1 < kv.length; i += 2) out[String(kv[i])] = kv[i + 1];
  return out;
}

exports.install = (g, rt) => {
  const app = makeApp(rt);
  g.$app = app;
  rt.app = app;
  rt.eventMakers.push({
    make(_event, e) {
      e.app = app;
    },
  });
};
