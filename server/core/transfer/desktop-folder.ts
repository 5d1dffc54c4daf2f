// Moving a desktop up (issue 25, step 6): a Deskbase data folder's collections, records and files into
// another Deskbase's store that holds nothing yet (a team server's PostgreSQL database). Both sides are
// Deskbase, so nothing is converted: the collection definitions go over as they are (ids, fields,
// rules, indexes, times), each table made by the destination's own DDL (collections-ddl.ts, through
// its dialect), and every record with its id, times, password hashes and `_rowid_` (the order lists
// fall back to), so users and superusers sign in with the same passwords. Sessions do not go over
// (their tokens were signed for the desktop): everyone signs in again.
//
// All or nothing: the records' files are placed first through the destination's own storage
// (files/adopt.ts: on a team server, its database), then the destination's check, the schema, every
// record and the files' adoption are one write transaction; the files are taken away again if it
// fails. Bounded memory: rows are read from the source in batches of at most BATCH_ROWS (files placed,
// records inserted), one batch after the other (the desktop engine itself holds its database in
// memory, as it always does).
import { badRequest } from '../../errors.js';
import { ident } from '../../filter/sql.js';
import type { Dialect } from '../../rules/compile.js';
import { adoptFiles, type Adopted, type Adoption } from '../../files/adopt.js';
import { filePath, isSafeSegment, STORAGE_DIR } from '../../files/paths.js';
import type { ReadDb, WriteTx } from '../../store/db.js';
import { join } from 'node:path';
import type { CoreEnv } from '../env.js';
import { Registry } from '../collection-registry.js';
import { createCollectionTable, dropCollectionTable, saveDefinition } from '../collections-ddl.js';
import { fromStoredValue } from '../field-values.js';
import { fileNames } from '../fields/file.js';
import { rebuildViews, viewCreationOrder, ViewFailure } from '../views.js';
import type { Collection, FileField, SqlValue } from '../../model/types.js';
import { EXTERNAL_AUTHS_ID, SUPERUSERS_NAME } from '../../model/types.js';
import { ensureExternalAuths } from '../external-auths.js';

/** Rows read, inserted and given their files at once (and fewer when a table has many columns). */
export const BATCH_ROWS = 500;
/** Bound parameters in one multi-row INSERT (PostgreSQL takes 65,535, SQLite 32,766). */
const MAX_PARAMS = 30_000;
/** The names shown where a list could be long. */
const SHOWN = 5;

/** A desktop data folder opened for reading: its store and where its files are. */
export interface DesktopSource {
  db: ReadDb;
  /** The data folder (its storage/ holds the records' files). */
  dir: string;
}

export interface MovedCollection {
  name: string;
  type: Collection['type'];
  records: number;
  /** Files its records name (a plan), or placed (a move). */
  files: number;
}

export interface MoveResult {
  collections: MovedCollection[];
  /** Files the records name that the source folder lacks: the records keep the names (those answer 404). */
  missingFiles: number;
  notes: string[];
  dryRun: boolean;
}

export interface MoveOptions {
  dryRun?: boolean;
  /** Progress lines (a collection started, every few batches). */
  progress?: (line: string) => void;
}

const NOTES = [
  'Sessions do not move: every user and superuser signs in again, with the same password.',
];

/** The collections of the source: tables in the order they were made, then views in the order they read each other. */
async function sourceCollections(db: ReadDb): Promise<{ tables: Collection[]; views: Collection[]; all: Collection[] }> {
  const registry = new Registry();
  await registry.load(db);
  const all = registry.all();
  const tables = all.filter((c) => c.type !== 'view').sort((a, b) => a.created.localeCompare(b.created) || a.name.localeCompare(b.name));
  const views = viewCreationOrder(all.filter((c) => c.type === 'view'));
  return { tables, views, all };
}

async function countRows(db: ReadDb, c: Collection): Promise<number> {
  return Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ident(c.name)}`))?.n ?? 0);
}

/**
 * What the destination holds, or null when it holds nothing: only the collections every new server
 * makes (`_superusers`, `users`), without a record. Named in the refusal: collections and counts.
 */
async function contentsOf(db: ReadDb, collections: readonly Collection[]): Promise<string | null> {
  const made = new Set([SUPERUSERS_NAME.toLowerCase(), 'users', EXTERNAL_AUTHS_ID.toLowerCase()]);
  const found: string[] = [];
  const extra = collections.filter((c) => !made.has(c.name.toLowerCase()));
  if (extra.length > 0) {
    const names = extra.slice(0, SHOWN).map((c) => `"${c.name}"`).join(', ');
    found.push(`${extra.length} collection(s) of its own (${names}${extra.length > SHOWN ? ', …' : ''})`);
  }
  for (const c of collections) {
    if (c.type === 'view' || !made.has(c.name.toLowerCase())) continue;
    const n = await countRows(db, c);
    if (n > 0) found.push(`${n} record(s) in "${c.name}"`);
  }
  return found.length === 0 ? null : found.join(', ');
}

/**
 * Collections and fields the destination's engine reads as its own (dialect.reserves: a collection
 * named pg_settings on PostgreSQL would be the catalog's relation), which the desktop allowed: named
 * in one 400 before anything is done, as the schema API refuses them.
 */
function refuseReservedNames(dialect: Dialect, collections: readonly Collection[]): void {
  const names: string[] = [];
  for (const c of collections) {
    if (dialect.reserves('table', c.name)) names.push(`the collection "${c.name}"`);
    for (const f of c.fields) if (dialect.reserves('column', f.name)) names.push(`the field "${c.name}.${f.name}"`);
  }
  if (names.length === 0) return;
  throw badRequest(`The destination's database reserves the name of ${names.join(', ')}. Rename it on the desktop first; nothing was changed.`);
}

function refuseFull(what: string): never {
  throw badRequest(`The destination is not empty: it has ${what}. Moving a desktop up needs an empty database (a new one: CREATE DATABASE ... OWNER ...); nothing was changed.`);
}

/** The files one batch of records names, each with where it is in the source folder ('' when its name cannot be a path). */
function filesOf(c: Collection, fields: FileField[], rows: Record<string, SqlValue>[], root: string): Adoption[] {
  const out: Adoption[] = [];
  for (const row of rows) {
    const recordId = String(row.id);
    for (const f of fields) {
      for (const name of fileNames(fromStoredValue(f, row[f.name] ?? null))) {
        const safe = [c.id, recordId, name].every(isSafeSegment);
        out.push({ collectionId: c.id, recordId, name, source: safe ? filePath(root, c.id, recordId, name) : '' });
      }
    }
  }
  return out;
}

/**
 * Moves `source` into the store of `env`, which must hold nothing yet (see contentsOf). `dryRun`
 * checks the destination and counts what would move, changing nothing. Throws a 400 naming what is
 * in the way (a destination that is not empty; a view collection the destination cannot make fails the
 * move, naming it).
 */
export async function moveDesktop(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'storage'>, source: DesktopSource, options: MoveOptions = {}): Promise<MoveResult> {
  const { store, dialect, registry, storage } = env;
  const progress = options.progress ?? (() => undefined);
  const { tables, views, all } = await sourceCollections(source.db);
  const root = join(source.dir, STORAGE_DIR);
  const fileFields = (c: Collection) => c.fields.filter((f): f is FileField => f.type === 'file');

  refuseReservedNames(dialect, all);
  const held = await contentsOf(store, registry.all());
  if (held !== null) refuseFull(held);

  if (options.dryRun === true) {
    const collections: MovedCollection[] = [];
    for (const c of tables) {
      const fields = fileFields(c);
      let files = 0;
      if (fields.length > 0) {
        for await (const rows of batches(c, fields.map((f) => f.name))) {
          for (const row of rows) for (const f of fields) files += fileNames(fromStoredValue(f, row[f.name] ?? null)).length;
        }
      }
      collections.push({ name: c.name, type: c.type, records: await countRows(source.db, c), files });
    }
    for (const v of views) collections.push({ name: v.name, type: 'view', records: 0, files: 0 });
    return { collections, missingFiles: 0, notes: NOTES, dryRun: true };
  }

  // a desktop folder from before JS migrations has no `_migrations` table
  const hasMigrations = (await source.db.get(`SELECT 1 AS "one" FROM "sqlite_master" WHERE "type" = 'table' AND "name" = '_migrations'`)) !== undefined;
  const appliedMigrations = hasMigrations ? await source.db.all<{ file: string; applied: number }>('SELECT "file", "applied" FROM "_migrations"') : [];
  const adopted: Adopted[] = [];
  let missingFiles = 0;
  const missingNames: string[] = [];
  const placedFiles = new Map<string, number>();
  try {
    // the files first, through the destination's storage (on a team server, its database): placed
    // before the transaction that names them, adopted inside it, taken away again if it fails
    for (const c of tables) {
      const fields = fileFields(c);
      if (fields.length > 0) placedFiles.set(c.id, await placeFiles(c, fields));
    }
    const collections = await store.write(async (tx: WriteTx) => {
      // checked again inside the transaction: a server started on it meanwhile may have written
      await registry.load(tx);
      const late = await contentsOf(tx, registry.all());
      if (late !== null) refuseFull(late);
      // the collections every new server makes go: the desktop's own take their place, ids and all
      for (const c of registry.all()) await dropCollectionTable(tx, c);
      await tx.run('DELETE FROM "_sessions"');
      const moved: MovedCollection[] = [];
      for (const c of tables) {
        await createCollectionTable(dialect, tx, c);
        await saveDefinition(dialect, tx, c);
      }
      for (const c of tables) moved.push({ ...(await copyTable(tx, c)), files: placedFiles.get(c.id) ?? 0 });
      for (const a of adopted) await a.adopt(tx);
      if (views.length > 0) {
        // the team server writes each view's SQLite query as PostgreSQL's (core/view-postgres.ts); one it
        // cannot make fails the move, naming the view, with nothing changed
        let rebuilt: Collection[];
        try {
          rebuilt = await rebuildViews(tx, all, dialect);
        } catch (err) {
          if (!(err instanceof ViewFailure)) throw err;
          throw badRequest(`The view collection "${err.view.name}" cannot be made on the destination (${err.message}). Change its query on the desktop, or delete it (its records stay in the collections it reads); nothing was changed.`);
        }
        for (const v of rebuilt) if (v.type === 'view') await saveDefinition(dialect, tx, v);
        for (const v of views) moved.push({ name: v.name, type: 'view', records: 0, files: 0 });
      }
      // the starter `users` collection is never made again on this database (collections.ts bootstrap)
      await tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), ['usersCreated', 'true']);
      // the JS migrations the desktop applied stay applied (hooks/migrations.ts): the same pb_migrations
      // folder on the team server runs none of them again
      await tx.run('DELETE FROM "_migrations"');
      for (const m of appliedMigrations) await tx.run('INSERT INTO "_migrations" ("file", "applied") VALUES (?, ?)', [m.file, m.applied]);
      await registry.load(tx);
      // a desktop from before OAuth2 brings no `_externalAuths`
      await ensureExternalAuths(dialect, tx, registry);
      return moved;
    });
    for (const a of adopted) a.settle();
    const notes = [...NOTES];
    if (missingFiles > 0) {
      notes.push(`${missingFiles} file(s) the records name were not in ${root} (${missingNames.join(', ')}${missingFiles > missingNames.length ? ', …' : ''}): the records keep the names; those files answer 404 until uploaded again.`);
    }
    return { collections, missingFiles, notes, dryRun: false };
  } catch (err) {
    for (const a of adopted.reverse()) await a.undo().catch(() => undefined);
    // the registry follows what is stored again (the transaction was rolled back)
    await registry.load(store);
    throw err;
  }

  /** The files a table's records name, batch after batch, into the destination's storage; answers how many were placed. */
  async function placeFiles(c: Collection, fields: FileField[]): Promise<number> {
    let placed = 0;
    let reported = performance.now();
    for await (const rows of batches(c, ['id', ...fields.map((f) => f.name)])) {
      const wanted = filesOf(c, fields, rows, root);
      const done = await adoptFiles(storage, wanted.filter((a) => a.source !== ''), 'copy');
      adopted.push(done);
      const missing = [...done.missing, ...wanted.filter((a) => a.source === '')];
      missingFiles += missing.length;
      for (const m of missing) if (missingNames.length < SHOWN) missingNames.push(`${c.name}/${m.recordId}/${m.name}`);
      placed += wanted.length - missing.length;
      if (performance.now() - reported > 2000) {
        progress(`  placing files of ${c.name}: ${placed}`);
        reported = performance.now();
      }
    }
    if (placed > 0) progress(`  placed the files of ${c.name}: ${placed}`);
    return placed;
  }

  /** A table's rows in `_rowid_` order, `size` at a time: never the whole table at once. */
  async function* batches(c: Collection, names: string[], size = BATCH_ROWS): AsyncGenerator<Record<string, SqlValue>[]> {
    const sql = `SELECT _rowid_ AS "_rowid_", ${names.map(ident).join(', ')} FROM ${ident(c.name)} WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ?`;
    for (let after = 0; ;) {
      const rows = await source.db.all<Record<string, SqlValue>>(sql, [after, size]);
      if (rows.length === 0) return;
      after = Number(rows[rows.length - 1]._rowid_);
      yield rows;
    }
  }

  /** One table's records, batch after batch in `_rowid_` order, each batch's files placed before the next. */
  async function copyTable(tx: WriteTx, c: Collection): Promise<MovedCollection> {
    const total = await countRows(source.db, c);
    progress(`  copying ${c.name}: ${total} record(s)`);
    const columns = ['_rowid_', ...c.fields.map((f) => f.name)];
    const perBatch = Math.max(1, Math.min(BATCH_ROWS, Math.floor(MAX_PARAMS / columns.length)));
    const head = `INSERT INTO ${ident(c.name)} (${columns.map(ident).join(', ')}) VALUES `;
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    let copied = 0;
    let reported = performance.now();
    for await (const rows of batches(c, c.fields.map((f) => f.name), perBatch)) {
      try {
        await tx.run(head + rows.map(() => tuple).join(', '), rows.flatMap((row) => columns.map((name) => row[name] ?? null)));
      } catch (err) {
        const ids = `${String(rows[0].id)} … ${String(rows[rows.length - 1].id)}`;
        throw new Error(`the records of "${c.name}" (${ids}) could not be written: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      copied += rows.length;
      if (performance.now() - reported > 2000) {
        progress(`  copying ${c.name}: ${copied}/${total}`);
        reported = performance.now();
      }
    }
    for (const statement of dialect.continueRowOrder(c.name)) await tx.run(statement);
    return { name: c.name, type: c.type, records: copied, files: 0 };
  }
}
