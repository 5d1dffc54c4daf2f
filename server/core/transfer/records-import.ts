// Records from CSV, JSON (an array of objects) or NDJSON into an existing collection
// (POST /api/collections/{c}/records/import, superusers only). Every row goes through the write
// funnel's own prepare step (the API's normalising, defaults and validation: no second validator),
// then all rows are applied in one transaction: one journal entry, one sync, all or none. Ids are kept
// when given; relations may name records of the same import, before or after them; autodates given
// (`created`, `updated`) are kept. Rows are parsed and prepared in slices with a turn of the event
// loop between them; the apply is one synchronous stretch (measured in README, "Move your data").
// File fields: a row holds at most the names of stored files, never their bytes, and a name means
// nothing to a record that does not hold that file yet (PocketBase answers validation_invalid_file to
// such a name in a create). A row naming files is refused with an error on that field saying so:
// leaving the field empty instead would drop what the user meant to import without their knowing.
import { ApiError, badRequest, fieldError, type ErrorData } from '../../errors.js';
import { ident } from '../../filter/sql.js';
import type { ReadDb } from '../../store/db.js';
import { isMultiple, type Collection, type Lookup } from '../../model/types.js';
import { isRecord } from '../../json-object.js';
import { fileNames } from '../fields/file.js';
import type { RequestContext } from '../request-context.js';
import type { RecordWrites } from '../writes/funnel.js';
import { bulkCreate } from '../writes/bulk-create.js';
import type { PreparedCreate } from '../writes/prepare-create.js';
import type { WriteOptions } from '../writes/prepared.js';
import { CsvFormatError, csvRecords, unguardCsvText } from './csv.js';
import { jsonArrayItems, ndjsonLines } from './json-rows.js';

export type ImportFormat = 'csv' | 'json' | 'ndjson';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['csv', 'json', 'ndjson'];

/** Rows prepared between two turns of the event loop. */
const SLICE = 250;
/** Errors listed before the import stops looking. */
const MAX_ERRORS = 100;
/**
 * Rows one import may hold. Each row costs a prepared write besides its values (a small body of
 * empty rows holds much more memory once prepared), so the body's 64 MiB alone does not bound an
 * import's memory: the rows are counted as they are parsed and the 100,001st refuses the import.
 */
export const MAX_IMPORT_ROWS = 100_000;

const tooManyRows = () => badRequest(`Failed to import records: more than ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows (the limit of one import); split the file and import it in parts.`, {
  rows: fieldError('validation_too_many_rows', `At most ${MAX_IMPORT_ROWS} rows per import.`),
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A CSV cell → the value a JSON body would carry: arrays and objects are written as JSON, formula-like text guarded (csv.ts). */
function csvValue(c: Collection, column: string, raw: string): unknown {
  const cell = unguardCsvText(raw);
  const field = c.fields.find((f) => f.name === column);
  const structured = field !== undefined && (isMultiple(field) || field.type === 'geoPoint');
  if (!structured || !/^\s*[[{]/.test(cell)) return cell;
  try {
    return JSON.parse(cell) as unknown;
  } catch {
    return cell;
  }
}

async function* rowsOf(c: Collection, body: Uint8Array, format: ImportFormat): AsyncGenerator<unknown> {
  if (format === 'csv') {
    let header: string[] | null = null;
    for await (const cells of csvRecords(new TextDecoder().decode(body))) {
      if (header === null) {
        header = cells.map((h) => h.trim());
        continue;
      }
      const row: Record<string, unknown> = {};
      // every record has the header's cells (csv.ts refuses any other count)
      header.forEach((column, i) => {
        if (column !== '') Object.defineProperty(row, column, { value: csvValue(c, column, cells[i]), enumerable: true, writable: true, configurable: true });
      });
      yield row;
    }
    return;
  }
  const items = format === 'json' ? jsonArrayItems(body) : ndjsonLines(new TextDecoder().decode(body));
  for (const item of items) {
    try {
      yield JSON.parse(item) as unknown;
    } catch {
      yield undefined; // reported with its row number
    }
  }
}

/** A CSV that is not CSV: the 400 names the row (1 for the first after the header) and its line. */
function csvFailure(err: CsvFormatError): ApiError {
  const where = err.row === 0 ? 'the header' : `row ${err.row}`;
  const message = `${where} (line ${err.line}): ${err.message}`;
  return badRequest(`Failed to read the CSV: ${message}. Nothing was imported.`, { rows: { [String(err.row)]: rowError(message) } });
}

/** Ids as a relation value names them (one id, or a list), before normalising. */
function idsIn(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}

/**
 * Per collection the import's relations point at, the ids that exist there: the import's own (for its
 * collection) and those found stored, in one query per 500 ids instead of one per row and field.
 */
async function knownRelationTargets(db: ReadDb, lookup: Lookup, c: Collection, rows: unknown[], given: Set<string>): Promise<Map<string, Set<string>>> {
  const known = new Map<string, Set<string>>([[c.id, new Set(given)]]);
  const wanted = new Map<string, Set<string>>();
  for (const f of c.fields) {
    if (f.type !== 'relation') continue;
    const ids = wanted.get(f.collectionId) ?? new Set<string>();
    for (const row of rows) if (isRecord(row) && Object.hasOwn(row, f.name)) for (const id of idsIn(row[f.name])) ids.add(id);
    wanted.set(f.collectionId, ids);
  }
  for (const [collectionId, ids] of wanted) {
    const target = lookup(collectionId);
    if (target === undefined) continue;
    const found = known.get(collectionId) ?? new Set<string>();
    const list = [...ids].filter((id) => !found.has(id));
    for (let i = 0; i < list.length; i += 500) {
      const slice = list.slice(i, i + 500);
      const rows = await db.all<{ id: string }>(`SELECT "id" AS id FROM ${ident(target.name)} WHERE "id" IN (${slice.map(() => '?').join(',')})`, slice);
      for (const r of rows) found.add(r.id);
    }
    known.set(collectionId, found);
  }
  return known;
}

/** The file fields of `row` that name files: an error for each (none when every file field is empty). */
function fileErrors(c: Collection, row: Record<string, unknown>): ErrorData | null {
  const errors: ErrorData = {};
  for (const f of c.fields) {
    if (f.type !== 'file' || !Object.hasOwn(row, f.name) || fileNames(row[f.name]).length === 0) continue;
    errors[f.name] = fieldError('validation_invalid_file', 'Files cannot be imported from CSV or JSON (a row holds their names, not their bytes): leave this field empty and upload the files to the records afterwards.');
  }
  return Object.keys(errors).length > 0 ? errors : null;
}

function rowError(message: string): ErrorData {
  return { row: fieldError('validation_invalid_value', message) };
}

function failure(errors: Map<number, ErrorData>): ApiError {
  const [row, data] = errors.entries().next().value as [number, ErrorData];
  const [key, first] = Object.entries(data)[0] ?? ['row', { message: '' }];
  const detail = typeof (first as { message?: unknown }).message === 'string' ? `${key}: ${(first as { message: string }).message}` : key;
  return badRequest(`Failed to import records: ${errors.size}${errors.size >= MAX_ERRORS ? '+' : ''} rows have errors (row ${row}, ${detail})`, { rows: Object.fromEntries([...errors].map(([n, e]) => [String(n), e])) });
}

/** The body's rows, parsed and counted (a 400 past MAX_IMPORT_ROWS or where the text is not its format). */
async function readRows(c: Collection, body: Uint8Array, format: ImportFormat): Promise<unknown[]> {
  const rows: unknown[] = [];
  let tooMany = false;
  try {
    for await (const row of rowsOf(c, body, format)) {
      if (rows.length === MAX_IMPORT_ROWS) {
        tooMany = true;
        break;
      }
      if (rows.push(row) % SLICE === 0) await nextTurn();
    }
  } catch (err) {
    if (err instanceof CsvFormatError) throw csvFailure(err);
    throw badRequest(`Failed to read the ${format.toUpperCase()}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (tooMany) throw tooManyRows();
  if (rows.length === 0) throw badRequest('Nothing to import: no rows.');
  return rows;
}

/** The ids the rows give (relations may name them before their rows come), and the rows repeating one. */
function givenIds(rows: unknown[]): { given: Set<string>; errors: Map<number, ErrorData> } {
  const given = new Set<string>();
  const errors = new Map<number, ErrorData>();
  rows.forEach((row, i) => {
    if (!isRecord(row) || typeof row.id !== 'string' || row.id === '') return;
    if (given.has(row.id)) errors.set(i + 1, { id: fieldError('validation_pk_invalid', 'The id is listed twice in the import.') });
    given.add(row.id);
  });
  return { given, errors };
}

/**
 * Each row through the funnel's prepareCreate, a turn of the loop every SLICE rows; a row's 400 is kept
 * under its number (1 for the first) in `errors`, up to MAX_ERRORS. Answers the prepared writes and the
 * row each came from.
 */
async function prepareRows(writes: RecordWrites, c: Collection, rows: unknown[], errors: Map<number, ErrorData>, options: WriteOptions, ctx: RequestContext): Promise<{ prepared: PreparedCreate[]; rowOf: number[] }> {
  const prepared: PreparedCreate[] = [];
  const rowOf: number[] = [];
  for (let i = 0; i < rows.length && errors.size < MAX_ERRORS; i++) {
    if (i % SLICE === 0 && i > 0) await nextTurn();
    const row = rows[i];
    rows[i] = undefined; // the prepared write holds what it needs
    if (errors.has(i + 1)) continue;
    if (!isRecord(row)) {
      errors.set(i + 1, rowError('Must be an object of field values.'));
      continue;
    }
    const refused = fileErrors(c, row);
    if (refused !== null) {
      errors.set(i + 1, refused);
      continue;
    }
    // a password alone is enough in an import (no one types it twice)
    const body = c.type === 'auth' && row.password !== undefined && row.passwordConfirm === undefined ? { ...row, passwordConfirm: row.password } : row;
    try {
      prepared.push(await writes.prepareCreate(c, body, ctx, options));
      rowOf.push(i + 1);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      errors.set(i + 1, Object.keys(err.data).length > 0 ? err.data : rowError(err.message));
    }
  }
  return { prepared, rowOf };
}

/** `system`: an internal caller acting with superuser rights (the HTTP route passes a superuser's context). */
export async function importRecords(db: ReadDb, writes: RecordWrites, c: Collection, body: Uint8Array, format: ImportFormat, ctx: RequestContext, system = false): Promise<{ imported: number }> {
  const rows = await readRows(c, body, format);
  body = new Uint8Array(0); // dropped once parsed: a large import's memory is its rows from then on
  const { given, errors } = givenIds(rows);
  const known = await knownRelationTargets(db, ctx.lookup, c, rows, given);
  const knownIds = (collectionId: string) => known.get(collectionId);
  const { prepared, rowOf } = await prepareRows(writes, c, rows, errors, { knownIds, keepAutodates: true, system }, ctx);
  if (errors.size > 0) throw failure(errors);
  // applied together (bulk-create.ts); a create applied alone names its row when the transaction refuses it
  let current = -1;
  try {
    // No query budget for the transaction: a superuser's import is bounded by what it holds (at most
    // MAX_IMPORT_ROWS rows of a bounded body), and a budget's backstop sums the engine time of every
    // statement under it, so 60,000 inserts met its 5 s on a loaded machine and a good import was
    // refused at row 52,001 (CI, test/store/page-cache-memory.test.ts). Each row's checks keep theirs.
    await writes.commit([bulkCreate(c, prepared, (i) => (current = i))], null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && current >= 0) {
      throw failure(new Map([[rowOf[current], Object.keys(err.data).length > 0 ? err.data : rowError(err.message)]]));
    }
    throw err;
  }
  return { imported: prepared.length };
}
