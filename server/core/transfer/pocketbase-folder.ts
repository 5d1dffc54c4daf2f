// Moving a PocketBase (v0.23+) data folder in: its data.db's `_collections` rows (fields, indexes and
// options as JSON, core/collection_model.go) become the collections JSON the schema import takes, and
// every record of each imported collection is copied in the same transaction, ids, times and password
// hashes as they are (PocketBase's bcrypt hashes are accepted at sign-in and re-hashed to scrypt then).
// The records' files are placed before that transaction (pocketbase-files.ts) and taken away again if
// it fails. What cannot come over is listed, never silently dropped.
import { badRequest, fieldError, type ErrorData } from '../../errors.js';
import { ident } from '../../filter/sql.js';
import { SQLITE, type Dialect } from '../../rules/compile.js';
import { openForeignDb, type ForeignDb } from '../../store/foreign-db.js';
import type { WriteTx } from '../../store/db.js';
import type { Registry } from '../collection-registry.js';
import { isSafeSegment } from '../../files/paths.js';
import { fromStoredValue, toStoredValue } from '../field-values.js';
import { fileNames } from '../fields/file.js';
import { ID_PATTERN } from '../ids.js';
import { storedHashProblem } from '../passwords.js';
import { authIdTaken } from '../writes/auth-record.js';
import type { Collection, Row, SqlValue } from '../../model/types.js';
import { LONG_WRITE_ROWS, LoopSlice } from '../../loop-slice.js';
import type { FileStorage } from '../../files/storage.js';
import type { Adopted } from '../../files/adopt.js';
import { bringFiles, type FileSource } from './pocketbase-files.js';
import type { ImportSteps, SchemaImportResult } from './schema-import.js';
import type { Plan } from './schema-plan.js';
import type { Notes } from './transfer-notes.js';

const RULES = ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'] as const;

export interface PocketBaseImportResult extends SchemaImportResult {
  /** Records copied, and the files they name that came with them, per collection. */
  records: { collection: string; count: number; files: number }[];
}

type Copied = PocketBaseImportResult['records'];
type SchemaImporter = (body: unknown, steps: ImportSteps<Copied>) => Promise<SchemaImportResult & { then?: Copied }>;

/** A PocketBase data folder: its data.db's bytes and where its files are. */
export interface PocketBaseSource {
  db: Uint8Array;
  files: FileSource;
}

function parseJson(value: SqlValue, fallback: unknown): unknown {
  try {
    return typeof value === 'string' ? (JSON.parse(value) as unknown) : fallback;
  } catch {
    return fallback;
  }
}

/** The collections JSON of a PocketBase database, as PocketBase's export would write it. */
function collectionsOf(db: ForeignDb): Record<string, unknown>[] {
  const tables = db.tables();
  if (!tables.has('_collections')) throw badRequest('Not a PocketBase database: it has no _collections table.');
  const columns = new Set(db.all(`SELECT name FROM pragma_table_info('_collections')`).map((r) => String(r.name)));
  if (!columns.has('fields')) throw badRequest('This database is from PocketBase before v0.23 (its collections have no "fields"): open it once with PocketBase v0.23 or later to migrate it, then import it.');
  return db.all('SELECT * FROM "_collections" ORDER BY "created", "name"').map((row) => {
    const options = parseJson(row.options, {});
    const out: Record<string, unknown> = {
      ...(typeof options === 'object' && options !== null ? options : {}),
      id: row.id, name: row.name, type: row.type, system: Boolean(row.system),
      fields: parseJson(row.fields, []), indexes: parseJson(row.indexes, []),
    };
    for (const key of RULES) out[key] = row[key] ?? null;
    return out;
  });
}

/** A PocketBase column value → ours: through the field's own converters (datetimes, lists, JSON); hashes as they are. */
function storedValue(c: Collection, name: string, value: SqlValue | undefined): SqlValue {
  const field = c.fields.find((f) => f.name === name);
  if (field === undefined) return null;
  if (field.type === 'password') return typeof value === 'string' ? value : '';
  return toStoredValue(field, fromStoredValue(field, value ?? null));
}

/** A record the import refuses: where it is and why. */
interface Refused {
  collection: string;
  row: number;
  id: string;
  reason: string;
}

/** Records listed by name in the refusal's message, and in its data. */
const SHOWN_REFUSED = 5;
const LISTED_REFUSED = 100;

/**
 * Why a PocketBase row cannot come over as it is, or null: what every create checks (an id of the
 * pattern, an auth id no other auth collection uses: auth-record.ts), stored file names that are one
 * plain path segment (files/paths.ts: a name with `..` would break every backup), and password hashes
 * within the bounds a sign-in runs (passwords.ts).
 */
async function refusal(tx: WriteTx, schema: Registry, c: Collection, row: Record<string, SqlValue>): Promise<string | null> {
  const id = row.id;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return 'the id is not 15 characters from a-z0-9 (as every record id here)';
  if (await authIdTaken(tx, schema, c, id)) return 'a record of another auth collection has the same id (auth ids are unique across auth collections)';
  for (const f of c.fields) {
    if (f.type === 'file') {
      const bad = fileNames(fromStoredValue(f, row[f.name] ?? null)).find((name) => !isSafeSegment(name));
      if (bad !== undefined) return `the file name ${JSON.stringify(bad.slice(0, 100))} in "${f.name}" is not a plain file name`;
    } else if (f.type === 'password' && typeof row[f.name] === 'string' && row[f.name] !== '') {
      const problem = storedHashProblem(row[f.name] as string);
      if (problem !== null) return `its password hash cannot be used here: ${problem}`;
    }
  }
  return null;
}

function refusedError(refused: Refused[], total: number): Error {
  const shown = refused.slice(0, SHOWN_REFUSED).map((r) => `${r.collection} ${JSON.stringify(r.id.slice(0, 40))}: ${r.reason}`).join('; ');
  const more = total > SHOWN_REFUSED ? `; and ${total - SHOWN_REFUSED} more` : '';
  const data: ErrorData = {};
  for (const r of refused) {
    const byRow = (data[r.collection] ??= {}) as ErrorData;
    byRow[String(r.row)] = fieldError('validation_invalid_record', `${r.id.slice(0, 40)}: ${r.reason}`);
  }
  return badRequest(`Failed to import the records: ${total} record(s) refused, nothing was changed: ${shown}${more}.`, { records: data });
}

/** How many records the foreign database holds in the tables of `collections` (counted up to LONG_WRITE_ROWS each). */
function recordCount(db: ForeignDb, collections: readonly { name?: unknown }[]): number {
  const tables = db.tables();
  let total = 0;
  for (const { name } of collections) {
    if (typeof name !== 'string' || !tables.has(name)) continue;
    total += Number(db.all(`SELECT count(*) AS n FROM (SELECT 1 FROM ${ident(name)} LIMIT ${LONG_WRITE_ROWS})`)[0]?.n ?? 0);
  }
  return total;
}

/** The rows of `sql`, read from the foreign database one page at a time. */
function* pagedRows(db: ForeignDb, sql: string): Generator<Row> {
  for (const page of db.pages(sql, 500)) yield* page;
}

async function copyRecords(dialect: Dialect, db: ForeignDb, tx: WriteTx, schema: Registry, plan: Plan, notes: Notes, files: Map<string, number>): Promise<Copied> {
  const tables = db.tables();
  const out: Copied = [];
  const refused: Refused[] = [];
  let refusedCount = 0;
  const slice = new LoopSlice();
  for (const item of plan.items) {
    const c = schema.get(item.id);
    if (!c || !tables.has(item.name)) continue;
    const columns = new Set(db.all(`SELECT name FROM pragma_table_info(?)`, [item.name]).map((r) => String(r.name)));
    const fields = c.fields.filter((f) => columns.has(f.name));
    const insert = `INSERT INTO ${ident(c.name)} (${fields.map((f) => ident(f.name)).join(', ')}) VALUES (${fields.map(() => '?').join(', ')})`;
    let count = 0;
    let skipped = 0;
    let rowNumber = 0;
    // read a page at a time, with a turn of the loop once a slice of work has run: a 100k-row table
    // read and copied in one stretch held every other request for seconds
    for (const row of pagedRows(db, `SELECT * FROM ${ident(item.name)} ORDER BY _rowid_`)) {
      if (slice.due) await slice.pause();
      rowNumber++;
      // Deskbase's own superusers stay; PocketBase's join them unless one has the same email
      if (c.system && await tx.get(`SELECT 1 AS x FROM ${ident(c.name)} WHERE "id" = ? OR ${dialect.equalsNoCase('"email"')}`, [row.id, row.email ?? '']) !== undefined) {
        skipped++;
        continue;
      }
      const reason = await refusal(tx, schema, c, row);
      if (reason !== null) {
        if (++refusedCount <= LISTED_REFUSED) refused.push({ collection: c.name, row: rowNumber, id: String(row.id), reason });
        continue;
      }
      try {
        await tx.run(insert, fields.map((f) => storedValue(c, f.name, row[f.name] as SqlValue)));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw badRequest(`Failed to import the records of "${c.name}": record ${String(row.id)}: ${message}`);
      }
      count++;
    }
    if (skipped > 0) notes.add(c.name, 'records', `${skipped} record(s) already here (same id or email) were left as they are.`);
    out.push({ collection: c.name, count, files: files.get(item.name) ?? 0 });
  }
  if (refusedCount > 0) throw refusedError(refused, refusedCount);
  return out;
}

/** What a PocketBase data folder holds that never comes over, counted where the database shows it. */
function folderNotes(db: ForeignDb, notes: Notes): void {
  const tables = db.tables();
  const count = (table: string) => (tables.has(table) ? Number(db.all(`SELECT COUNT(*) AS n FROM ${ident(table)}`)[0]?.n ?? 0) : 0);
  const linked = count('_externalAuths');
  if (linked > 0) notes.add('*', '_externalAuths', `${linked} linked OAuth2 account(s) were not brought over (the providers' client secrets are not in PocketBase's export): those users sign in with a password, or with OAuth2 once the providers are set up here, linked again by their verified e-mail.`);
  const mfa = count('_mfas') + count('_otps');
  if (mfa > 0) notes.add('*', '_mfas, _otps', `${mfa} pending MFA/OTP entries (short-lived) were not imported.`);
  notes.add('*', 'settings', 'Application settings (_params: name, URL, SMTP, S3, backups, rate limits, batch, trusted proxy) are not imported.');
  notes.add('*', 'hooks and migrations', 'pb_hooks (JavaScript hooks) and pb_migrations are code that runs inside PocketBase; they are not part of pb_data and do not run in Deskbase.');
  notes.add('*', 'logs', 'Request logs (auxiliary.db) are not imported.');
  notes.add('*', 'sessions', 'Auth tokens issued by PocketBase do not carry over: users sign in again (with the same passwords).');
}

/**
 * Imports a PocketBase folder: collections, records and their files, all or nothing. A stored
 * collection the folder also has (`users`, `_superusers`) is merged: its fields keep their ids by name
 * and the ones the folder lacks stay (schema-convert.ts `keepStored`), so no field is dropped with its
 * data; rules the folder opens are flagged (rule-changes.ts). `dryRun` runs everything but the files in
 * a transaction that is rolled back and answers what applying would do.
 */
export async function importPocketBase(importSchema: SchemaImporter, storage: FileStorage, source: PocketBaseSource, dryRun = false, dialect: Dialect = SQLITE): Promise<PocketBaseImportResult> {
  let db: ForeignDb;
  try {
    db = await openForeignDb(source.db);
  } catch (err) {
    throw badRequest(`Failed to read the PocketBase database: ${err instanceof Error ? err.message : String(err)}`);
  }
  let adopted: Adopted | null = null;
  let files = new Map<string, number>();
  try {
    const collections = collectionsOf(db);
    const result = await importSchema({ collections, deleteMissing: false, dryRun }, {
      keepStoredFields: true,
      long: recordCount(db, collections) >= LONG_WRITE_ROWS,
      before: async (plan, notes) => {
        ({ adopted, counts: files } = await bringFiles(db, plan, storage, source.files, notes));
      },
      then: async (tx, schema, plan, notes) => {
        const records = await copyRecords(dialect, db, tx, schema, plan, notes, files);
        // the files placed before the transaction become the records' with its commit (the team server's database storage)
        await (adopted as Adopted | null)?.adopt(tx);
        folderNotes(db, notes);
        return records;
      },
    });
    (adopted as Adopted | null)?.settle();
    return { changes: result.changes, notes: result.notes, dryRun, records: result.then ?? [] };
  } catch (err) {
    await (adopted as Adopted | null)?.undo();
    throw err;
  } finally {
    db.close();
  }
}
