'use strict';
// JS migrations on the hook's side: `migrate(up, down)` as PocketBase's JSVM has it, a migration file
// loaded and one of its two functions run when the host asks (as the event `__migration`, triggered
// inside the migration's transaction: server/hooks/migrations-host.ts), with `$app` as `app`
// (its calls go through that transaction). Collections in `$app.save`/`$app.delete`, and
// `$app.importCollections`, go to the host's collection operations (server/hooks/migrations-ops.ts):
// Deskbase's own collection code validates and stores them.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const { Collection, unmarshal } = require('./collection.cjs');

/** The event a migration file runs as (server/hooks/migrations-host.ts MIGRATION_EVENT). */
const MIGRATION_EVENT = '__migration';

/** A collection's JSON for the host: its own properties, fields as plain objects. */
const wireCollection = (c) => JSON.parse(JSON.stringify(c));

/** The first frame of `stack` in `file`: its line, or 0. */
function lineIn(stack, file) {
  if (typeof stack !== 'string') return 0;
  for (const line of stack.split('\n')) {
    const at = line.lastIndexOf(`${file}:`);
    if (at === -1) continue;
    const m = /^(\d+):\d+/.exec(line.slice(at + file.length + 1));
    if (m) return Number(m[1]);
  }
  return 0;
}

exports.install = (g, rt) => {
  let registering = null;
  /** `migrate(up, down)`: registers the file's two functions (either may be omitted). */
  g.migrate = (up, down) => {
    if (registering === null) throw new Error('migrate() is for files of the migrations folder');
    if (up !== undefined && up !== null && typeof up !== 'function') throw new TypeError('migrate(up, down): up must be a function');
    if (down !== undefined && down !== null && typeof down !== 'function') throw new TypeError('migrate(up, down): down must be a function');
    registering.up = up ?? null;
    registering.down = down ?? null;
    registering.called = true;
  };

  /** Loads `file` (the file is read again each time: a migration runs once) and answers its functions. */
  function load(file) {
    const source = fs.readFileSync(file, 'utf8');
    const module = { exports: {} };
    registering = { up: null, down: null, called: false };
    try {
      const wrapper = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file });
      wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
      if (!registering.called) throw new Error('the file does not call migrate(up, down)');
      return registering;
    } finally {
      registering = null;
    }
  }

  /** Runs `direction` of `file`: `app` is `$app`, whose calls go through the migration's transaction (the scope). */
  function run(file, direction) {
    try {
      const m = load(file);
      const fn = direction === 'down' ? m.down : m.up;
      if (fn) fn(rt.app);
    } catch (err) {
      // the file and line, where the file threw (or a call it made failed)
      const line = lineIn(err && err.stack, file);
      const out = new Error(`${err && err.message !== undefined ? err.message : String(err)}${line > 0 ? ` (${path.basename(file)}:${line})` : ''}`);
      // a status the host keeps the message of (an error's own, or 400), without the host's error itself
      out.status = err && err.status >= 400 ? err.status : 400;
      out.data = err && typeof err.data === 'object' && err.data !== null ? err.data : {};
      out.stack = err && err.stack;
      throw out;
    }
  }
  // the host runs a file as the event MIGRATION_EVENT (server/hooks/migrations-host.ts), registered here
  // before any hook file loads: the same handler id in every worker
  rt.register(MIGRATION_EVENT, (e) => run(e.migrationFile, e.migrationDirection), []);
  rt.eventMakers.push({
    make(event, e, payload) {
      if (event !== MIGRATION_EVENT) return;
      e.migrationFile = String(payload.file);
      e.migrationDirection = payload.direction === 'down' ? 'down' : 'up';
    },
  });

  const app = rt.app;
  if (!app) return;
  const saveRecord = app.save;
  const saveRecordNoValidate = app.saveNoValidate;
  const deleteRecord = app.delete;
  const saveCollection = (c) => {
    unmarshal(rt.call('collections.save', [wireCollection(c)]), c);
  };
  app.save = (model) => (model instanceof Collection ? saveCollection(model) : saveRecord(model));
  app.saveNoValidate = (model) => (model instanceof Collection ? saveCollection(model) : saveRecordNoValidate(model));
  app.delete = (model) => {
    if (model instanceof Collection) rt.call('collections.delete', [String(model.id || model.name)]);
    else deleteRecord(model);
  };
  /** PocketBase's importCollections(list, deleteMissing): the schema import's rules, in the current transaction. */
  app.importCollections = (list, deleteMissing) => {
    if (!Array.isArray(list)) throw new TypeError('importCollections(collections, deleteMissing): collections must be a list');
    rt.call('collections.import', [list.map(wireCollection), deleteMissing === true]);
  };
  app.importCollectionsByMarshaledJSON = (raw, deleteMissing) => app.importCollections(JSON.parse(String(raw)), deleteMissing);
};
