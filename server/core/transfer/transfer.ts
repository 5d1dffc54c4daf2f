// Data in and out (issue 15): the schema's import and export, truncate, records' export and import,
// typed clients, and moving a PocketBase data folder in. Each part lives in its own file here.
import type { CoreEnv } from '../env.js';
import { notFound } from '../../errors.js';
import type { Records } from '../records.js';
import { badRequest } from '../../errors.js';
import type { ListContext, RequestContext } from '../request-context.js';
import { isSuperuser } from '../../model/types.js';
import { EXPORT_FORMATS, exportIds, exportRecords, type ExportFormat } from './records-export.js';
import { IMPORT_FORMATS, importRecords, type ImportFormat } from './records-import.js';
import { importPocketBase, type PocketBaseImportResult, type PocketBaseSource } from './pocketbase-folder.js';
import { createPocketBaseUpload, readPocketBaseFolder } from './pocketbase-source.js';
import { moveDesktop, type DesktopSource, type MoveOptions, type MoveResult } from './desktop-folder.js';
import { exportSchema } from './schema-export.js';
import { typescriptTypes } from './typescript-types.js';
import { isoNow } from '../ids.js';
import { createSchemaImport } from './schema-import.js';
import type { CollectionListener } from '../collections.js';
import type { Readable } from 'node:stream';

function formatOf<T extends string>(value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw badRequest(`Unknown format "${value}": use ${allowed.join(', ')}.`);
  return value as T;
}

/** `readBytes`: what one chunk of a records export may read (the response budget of a list). */
export function createTransfer(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'sessions' | 'storage' | 'budgetMs' | 'responseBytes'>, records: Records, onChange: CollectionListener) {
  const { store, registry, storage: files, budgetMs, responseBytes: readBytes } = env;
  const importSchema = createSchemaImport(env, onChange);
  const importFolder = (source: PocketBaseSource, dryRun: boolean): Promise<PocketBaseImportResult> => importPocketBase(importSchema, files, source, dryRun, env.dialect);
  const uploads = createPocketBaseUpload(files, importFolder);
  return {
    importSchema,
    /** PocketBase's collections JSON: every non-system collection, or those named (ids or names). */
    exportSchema: (only: string[] | null) => exportSchema(registry.all(), only),
    /** A PocketBase pb_data folder (or its data.db) on this machine: collections, records, files (the CLI); `dryRun` answers what it would change. */
    importPocketBaseFolder: async (path: string, dryRun = false): Promise<PocketBaseImportResult> => importFolder(await readPocketBaseFolder(path, 'copy'), dryRun),
    /** An uploaded data.db or PocketBase backup zip (superusers only: callers check); `open` hands the body over; `dryRun` answers what it would change. */
    importPocketBaseUpload: (open: () => Readable, declaredBytes: number, dryRun = false): Promise<PocketBaseImportResult> => uploads.upload(open, declaredBytes, dryRun),
    /** A desktop data folder's collections, records and files into this store, which must hold nothing yet (npm run move-up). */
    moveDesktopIn: (source: DesktopSource, options?: MoveOptions): Promise<MoveResult> => moveDesktop(env, source, options),
    /** TypeScript declarations of every collection for the pocketbase SDK. */
    typescriptTypes: () => typescriptTypes(registry.all(), isoNow()),
    async truncate(idOrName: string): Promise<number> {
      const c = registry.get(idOrName);
      if (!c) throw notFound();
      return records.writes.truncate(c);
    },
    /** Records as CSV, JSON or NDJSON under the list rule, filter and sort: pieces of text, streamed. */
    exportRecords(idOrName: string, format: string, ctx: ListContext, ids: string | null = null): Promise<AsyncGenerator<string>> {
      const c = records.collection(idOrName);
      return exportRecords(store, c, ctx, formatOf<ExportFormat>(format, EXPORT_FORMATS), exportIds(c, ids), budgetMs, readBytes);
    },
    /** Records from CSV, JSON or NDJSON: all or none (superusers only: the HTTP layer checks). */
    importRecords(idOrName: string, body: Uint8Array, format: string, ctx: RequestContext): Promise<{ imported: number }> {
      if (!isSuperuser(ctx.request.auth)) throw badRequest('Only superusers can import records.');
      const c = records.collection(idOrName);
      return importRecords(store, records.writes, c, body, formatOf<ImportFormat>(format, IMPORT_FORMATS), ctx);
    },
  };
}

export type Transfer = ReturnType<typeof createTransfer>;
