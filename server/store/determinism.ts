// Memory and the journal never differ: a write may not use what SQLite makes up as it runs. The journal
// keeps each write as its SQL text and bound values, and replay (recovery.ts) runs them again, so a value
// SQLite makes up at run time (random(), randomblob(), 'now' in any date function or CURRENT_TIME /
// CURRENT_DATE / CURRENT_TIMESTAMP, 'localtime' and 'utc' (the machine's time zone), the connection's
// counters changes(), total_changes(), last_insert_rowid(), and the library's own sqlite_version() /
// sqlite_source_id() across an upgrade) would come out different on disk than it did in memory.
//
// So a statement of a write that changed something (transaction.ts: one journaled) and used one of them
// is refused with a 400 naming it; the write is then refused at its COMMIT too, even if the caller
// caught the refusal and went on, so what the statement did never stays in memory. A SELECT inside a
// write (it changes nothing) and every read outside one use them freely.
//
// Why refuse rather than replay exactly: replaying them exactly needs every journal entry to carry what
// it drew (the random values or a seed, and a frozen 'now', per statement) — a new entry format — and
// the counters cannot be reproduced at all from sql.js (it exports neither sqlite3_total_changes nor
// sqlite3_last_insert_rowid, and they depend on statements that are not journaled). Refusing costs a
// write's statement one flag set around it. Deskbase's own SQL never needs them (ids, tokens and times
// are made in JavaScript and bound: core/ids.ts); a hook or migration binds a value made in JavaScript
// instead ($security.randomString, new DateTime()), or reads it with a SELECT and binds what it read.
//
// How each is seen: the random values and the clock where SQLite runs them, not in the SQL text (a
// trigger, a view, a column's DEFAULT or a bound 'now' reach them too); the counters by the text:
// - random(), randomblob(N): replaced on every database Deskbase opens (recovery.ts `openDatabase`) by
//   functions of the same name and argument count (SQLite lets an application's function stand in for
//   a built-in one) that note their use and give what SQLite's do (a 64-bit INTEGER, N bytes) from
//   node's CSPRNG.
// - 'now': SQLite asks the clock through sql.js's one WebAssembly import for the time
//   (`emscripten_date_now`); `loadSqlJs` (db.ts) wraps that import to note its use. The same for the
//   'localtime' and 'utc' modifiers, which ask the machine's time zone (`_localtime_js`): a restart
//   in another zone would replay them differently.
// - changes(), total_changes(), last_insert_rowid(), sqlite_version(), sqlite_source_id(): sql.js
//   cannot stand in for them (and transaction.ts reads total_changes() itself), so the SQL text of each
//   statement of a write that is not a SELECT is checked (a trigger or view naming them is refused when
//   it is created; one already in a database is not seen).
// PostgreSQL runs each statement once in the database, so its engine needs none of this
// (store-postgres/). Deskbase's own SQL functions (filter/guard.ts: the guard, the charge, LIKE) give
// the same answer for the same arguments.
import { randomFillSync } from 'node:crypto';
import type { Database, SqlJsStatic } from 'sql.js';
import { ApiError } from '../errors.js';

/** What a write used that replay would make differently, once it used one. */
export interface WriteScope {
  used: string | null;
}

/** The write whose statement runs now (one synchronous statement at a time, on the one WebAssembly module). */
let running: WriteScope | null = null;

/** Runs one synchronous call of a write with its scope on; returns what `call` returns. */
export function inWrite<R>(scope: WriteScope, call: () => R): R {
  const outer = running;
  running = scope;
  try {
    return call();
  } finally {
    running = outer;
  }
}

const NOW = "'now' (a date function's 'now', CURRENT_TIME, CURRENT_DATE or CURRENT_TIMESTAMP)";
const LOCALTIME = "'localtime' or 'utc' (the machine's time zone)";

/** The refusal of what a write used, naming it: the message every path gives (a 400 over HTTP). */
export function nondeterministicRefusal(name: string): string {
  return `A statement that writes cannot use ${name}: its value is made up as the statement runs and the journal `
    + 'replays statements, so it would differ after a restart. Bind a value made in JavaScript instead (a SELECT may use it)';
}

/** The refusal as the API answers it: a 400 naming what the statement used. */
export function refusalError(name: string): ApiError {
  return new ApiError(400, nondeterministicRefusal(name));
}

/**
 * A call of one of them: the name, quoted or not (SQLite calls `"changes"()` too), then `(`; not a table
 * of that name (`INSERT INTO changes (...)`).
 */
const TEXT_ONLY = /(?<!\b(?:into|table|update|from|join|on|exists|view|trigger|index)\s+(?:["`[]?\w+["`\]]?\s*\.\s*)?["`[]?)\b(changes|total_changes|last_insert_rowid|sqlite_version|sqlite_source_id)["`\]]?\s*\(/i;
const ANY_NAME = /changes|insert_rowid|sqlite_/i;
/** Texts and comments: what cannot hold a call (looked at only once the statement matched). */
const NOT_CODE = /'(?:[^']|'')*'|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g;

/** Throws the refusal when a write's SQL text calls a function only its text can show (see the header). */
export function checkWriteSql(sql: string): void {
  // the plain words first: 0.15 µs for a create's INSERT, the full pattern 0.7-0.9
  if (!ANY_NAME.test(sql) || !TEXT_ONLY.test(sql)) return;
  const found = TEXT_ONLY.exec(sql.replace(NOT_CODE, ' '));
  if (found !== null) throw refusalError(`${found[1].toLowerCase()}()`);
}

/** Notes that the running statement of a write (if any) used `name`. */
function use(name: string): void {
  if (running !== null) running.used ??= name;
}

/**
 * sql.js's instantiation hook (`instantiateWasm` of initSqlJs's config): wraps the imports that read the
 * wall clock and the local time. Found by their source, so a sql.js whose build changed them fails at
 * start here rather than letting 'now' through unseen.
 */
export function instantiateWithClock(wasm: Uint8Array) {
  return (imports: { a: Record<string, unknown> }, done: (instance: WebAssembly.Instance) => void): object => {
    const clock = onlyImport(imports.a, 'wall-clock', (text) => /^\(\)\s*=>\s*Date\.now\(\)$/.test(text));
    imports.a[clock.key] = () => {
      use(NOW);
      return clock.fn();
    };
    // localtime_r: the machine's time zone, which a restart elsewhere changes
    const local = onlyImport(imports.a, 'local-time', (text) => text.includes('.getSeconds()') && text.includes('getTimezoneOffset'));
    imports.a[local.key] = (...args: unknown[]) => {
      use(LOCALTIME);
      return local.fn(...args);
    };
    guarded = true;
    WebAssembly.instantiate(wasm as BufferSource, imports as unknown as WebAssembly.Imports).then((made) => done((made as unknown as WebAssembly.WebAssemblyInstantiatedSource).instance), (err: unknown) => {
      throw new Error(`sql.js's WebAssembly cannot be instantiated: ${String(err)}`);
    });
    return {};
  };
}

/** The one import of sql.js's WebAssembly whose source `is`; a sql.js whose build changed it fails at start here. */
function onlyImport(imports: Record<string, unknown>, what: string, is: (source: string) => boolean): { key: string; fn: (...args: unknown[]) => unknown } {
  const found = Object.entries(imports).filter(([, fn]) => typeof fn === 'function' && is(String(fn)));
  if (found.length !== 1) throw new Error(`sql.js: expected one ${what} import, found ${found.length}: store/determinism.ts must be updated for this sql.js`);
  return { key: found[0][0], fn: found[0][1] as (...args: unknown[]) => unknown };
}

let guarded = false;
/** Whether the process's sql.js module was made by instantiateWithClock. */
export function clockGuarded(): boolean {
  return guarded;
}

interface SqlJsModule {
  addFunction(fn: (...args: number[]) => void, signature: string): number;
  stringToNewUTF8(text: string): number;
  _sqlite3_create_function_v2(...args: number[]): number;
  _sqlite3_result_int64(context: number, value: bigint): void;
}

const SQLITE_UTF8 = 1;
/** random()'s implementation, made once per module (a WebAssembly table slot) and its name's bytes. */
let randomInt: { fn: number; name: number } | null = null;
const word = new BigInt64Array(1);

/** Puts random() and randomblob(N) in place on a database Deskbase opened (see the header). */
export function replaceRandom(SQL: SqlJsStatic, db: Database): void {
  const m = SQL as unknown as SqlJsModule;
  randomInt ??= {
    // sql.js's own create_function returns numbers as REAL: random() returns an INTEGER as SQLite's does
    fn: m.addFunction((context: number) => {
      use('random()');
      randomFillSync(word);
      m._sqlite3_result_int64(context, word[0]);
    }, 'viii'),
    name: m.stringToNewUTF8('random'),
  };
  const handle = (db as unknown as { db: number }).db;
  const rc = m._sqlite3_create_function_v2(handle, randomInt.name, 0, SQLITE_UTF8, 0, randomInt.fn, 0, 0, 0);
  if (rc !== 0) throw new Error(`cannot put random() in place (SQLite code ${rc})`);
  db.create_function('randomblob', (n: unknown) => {
    use('randomblob()');
    const size = Math.floor(Number(n));
    // SQLite's own limit (SQLITE_MAX_LENGTH) and its answer past it
    if (size > 1_000_000_000) throw new Error('string or blob too big');
    return randomFillSync(new Uint8Array(size >= 1 ? size : 1));
  });
}
