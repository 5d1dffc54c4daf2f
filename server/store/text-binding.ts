// Binding texts without sql.js's character loop. sql.js copies every bound string into WebAssembly
// memory with a JavaScript loop over its code points (twice over, since it counts the bytes first), all on
// the event loop: about 0.5 µs and 5 ns a character. A well-formed text of LARGE_TEXT characters or more
// is bound here instead (about 0.3 µs and 0.5 ns a character: a log's data or a post's content, 3 to 6
// times faster; a 1 KB text 0.9 µs against 6.3): the statement's such texts encoded by Buffer (native)
// into one buffer, copied into memory with sql.js's writeArrayToMemory (one set()), and each handed to
// sqlite3_bind_text with SQLITE_TRANSIENT, so SQLite keeps its own copy and ours is freed at once. The bytes SQLite receives are the same UTF-8 either way (a text with a lone surrogate, which
// the two encoders spell differently, keeps sql.js's path), so stored data and journal replay are alike.
//
// sql.js keeps a statement's pointer in a field whose name its minifier chose: it is found once per
// module by preparing a probe statement and asking sqlite3_sql which numeric field names it. If none
// does (another sql.js build), binding simply stays with sql.js.
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import type { SqlValue } from '../model/types.js';

/** Texts from this length (UTF-16 units) are bound by `TextBinder`: below it sql.js's loop costs as little. */
export const LARGE_TEXT = 32;
const SQLITE_OK = 0;
const SQLITE_TRANSIENT = -1;

/** The parts of sql.js's module this file uses (exported by sql.js, absent from its type definitions). */
interface ModuleApi {
  _malloc(size: number): number;
  _free(ptr: number): void;
  writeArrayToMemory(array: Uint8Array, ptr: number): void;
  UTF8ToString(ptr: number): string;
  _sqlite3_sql(stmt: number): number;
  _sqlite3_bind_text(stmt: number, index: number, ptr: number, bytes: number, destructor: number): number;
}

/** Binds `params` to a reset statement: long texts natively, the rest through sql.js. */
export type TextBinder = (stmt: Statement, params: readonly SqlValue[]) => void;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** No lone surrogate (String.prototype.isWellFormed where the runtime has it). */
function wellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : !LONE_SURROGATE.test(text);
}

/** Whether `TextBinder` binds this value itself (a well-formed text of LARGE_TEXT or more); sql.js binds the rest. */
export const bindsNatively = (v: SqlValue): v is string => typeof v === 'string' && v.length >= LARGE_TEXT && wellFormed(v);

const binders = new WeakMap<SqlJsStatic, TextBinder | null>();

/** The binder for databases of this sql.js module, or null when the module does not offer what it needs. */
export function textBinder(SQL: SqlJsStatic, probe: Database): TextBinder | null {
  if (binders.has(SQL)) return binders.get(SQL) ?? null;
  const api = SQL as unknown as Partial<ModuleApi>;
  let binder: TextBinder | null = null;
  if (api._malloc && api._free && api.writeArrayToMemory && api.UTF8ToString && api._sqlite3_sql && api._sqlite3_bind_text) {
    const m = api as ModuleApi;
    const field = pointerField(m, probe);
    if (field !== null) binder = (stmt, params) => bindWith(m, field, stmt, params);
  }
  binders.set(SQL, binder);
  return binder;
}

/** The name of the Statement field holding its sqlite3_stmt pointer. */
function pointerField(m: ModuleApi, db: Database): string | null {
  const sql = 'SELECT ? AS deskbase_probe';
  const stmt = db.prepare(sql);
  try {
    for (const [key, value] of Object.entries(stmt)) {
      // the pointer is a heap address; the statement's small counters are not
      if (typeof value === 'number' && Number.isInteger(value) && value > 4096 && m.UTF8ToString(m._sqlite3_sql(value)) === sql) return key;
    }
    return null;
  } catch {
    return null;
  } finally {
    stmt.free();
  }
}

function bindWith(m: ModuleApi, field: string, stmt: Statement, params: readonly SqlValue[]): void {
  let native: number[] | null = null;
  let bytes = 0;
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (!bindsNatively(v)) continue;
    (native ??= []).push(i);
    bytes += Buffer.byteLength(v, 'utf8');
  }
  if (native === null) {
    stmt.bind(params as SqlValue[]);
    return;
  }
  const rest = params.slice();
  for (const i of native) rest[i] = null;
  stmt.bind(rest);
  const encoded = Buffer.allocUnsafe(bytes);
  const ends: number[] = [];
  let end = 0;
  for (const i of native) ends.push((end += encoded.write(params[i] as string, end, 'utf8')));
  const pointer = (stmt as unknown as Record<string, number>)[field];
  const ptr = m._malloc(Math.max(bytes, 1));
  if (ptr === 0) throw new Error('out of memory binding a text');
  try {
    m.writeArrayToMemory(encoded, ptr);
    for (let k = 0, start = 0; k < native.length; start = ends[k++]) {
      const rc = m._sqlite3_bind_text(pointer, native[k] + 1, ptr + start, ends[k] - start, SQLITE_TRANSIENT);
      if (rc !== SQLITE_OK) throw new Error(`binding a text failed (SQLite code ${rc})`);
    }
  } finally {
    m._free(ptr);
  }
}
