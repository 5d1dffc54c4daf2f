// The files of a PocketBase folder's records. PocketBase keeps each record's uploads in
// storage/<collectionId>/<recordId>/<name> (core/record_model.go, BaseFilesPath: the collection's id,
// then the record's) and the stored names in the record's file columns (one name as text, several as a
// JSON array). An imported record keeps its id and its names, so its files go to
// storage/<our collection id>/<record id>/<name> (the id from plan.ids) and the values stay as they
// are. Thumbnails (thumbs_<name>/) and the `.attrs` sidecars of PocketBase's blob driver are not read:
// Deskbase makes thumbnails again on first request. A file a record names that the folder lacks is
// listed in the notes (a count and a few names per collection), never a failure.
import { join } from 'node:path';
import { ident } from '../../filter/sql.js';
import { adoptFiles, type Adopted, type Adoption } from '../../files/adopt.js';
import { isSafeSegment } from '../../files/paths.js';
import type { FileStorage } from '../../files/storage.js';
import type { ForeignDb } from '../../store/foreign-db.js';
import { isRecord } from '../../json-object.js';
import { fileNames } from '../fields/file.js';
import type { Plan } from './schema-plan.js';
import type { Notes } from './transfer-notes.js';

export interface FileSource {
  /** The folder's storage/, or null when only a data.db came (no files at all). */
  dir: string | null;
  /** `copy` from the user's own folder (only ever read), `link` from a folder of ours (an extracted upload). */
  how: 'copy' | 'link';
  /** What the notes call it: `the folder`, `the backup zip`. */
  from: string;
}

/** Names shown in a note about missing files. */
const SHOWN = 3;

/** The files every imported record names, by collection, with where each one is now. */
function wantedFiles(db: ForeignDb, plan: Plan, dir: string | null): Map<string, Adoption[]> {
  const tables = db.tables();
  const out = new Map<string, Adoption[]>();
  for (const item of plan.items) {
    const foreignId = typeof item.raw.id === 'string' ? item.raw.id : '';
    const fields = (Array.isArray(item.raw.fields) ? item.raw.fields : []).filter((f) => isRecord(f) && f.type === 'file' && typeof f.name === 'string');
    if (fields.length === 0 || !tables.has(item.name)) continue;
    const columns = new Set(db.all('SELECT name FROM pragma_table_info(?)', [item.name]).map((r) => String(r.name)));
    const names = fields.map((f) => String((f as { name: string }).name)).filter((n) => columns.has(n));
    if (names.length === 0) continue;
    const list: Adoption[] = [];
    for (const row of db.all(`SELECT "id", ${names.map(ident).join(', ')} FROM ${ident(item.name)}`)) {
      const recordId = String(row.id);
      for (const column of names) {
        for (const name of fileNames(row[column])) {
          // a segment that could leave the folder is never joined to a path: such a file is missing
          const safe = dir !== null && [foreignId, recordId, name].every(isSafeSegment);
          list.push({ collectionId: item.id, recordId, name, source: safe ? join(dir, foreignId, recordId, name) : '' });
        }
      }
    }
    if (list.length > 0) out.set(item.name, list);
  }
  return out;
}

/**
 * Places the files of the imported records (before the transaction that names them); the caller
 * settles them after the commit or undoes them after a failure. Returns the files per collection.
 */
export async function bringFiles(db: ForeignDb, plan: Plan, storage: FileStorage, source: FileSource, notes: Notes): Promise<{ adopted: Adopted | null; counts: Map<string, number> }> {
  const wanted = wantedFiles(db, plan, source.dir);
  const all = [...wanted.values()].flat();
  const counts = new Map<string, number>();
  if (all.length === 0) return { adopted: null, counts };
  const adopted = await adoptFiles(storage, all.filter((a) => a.source !== ''), source.how);
  const missing = new Set([...adopted.missing, ...all.filter((a) => a.source === '')]);
  for (const [collection, list] of wanted) {
    const lacking = list.filter((a) => missing.has(a));
    counts.set(collection, list.length - lacking.length);
    if (lacking.length === 0) continue;
    const shown = lacking.slice(0, SHOWN).map((a) => a.name).join(', ');
    const more = lacking.length > SHOWN ? ` and ${lacking.length - SHOWN} more` : '';
    const where = source.dir === null ? 'the upload (a data.db alone carries no files)' : `${source.from}'s storage/`;
    notes.add(collection, 'files', `${lacking.length} file(s) its records name are not in ${where}: ${shown}${more}. The records keep the names; those files answer 404 until uploaded again.`);
  }
  if (source.dir === null) {
    notes.add('*', 'storage/', 'Only a data.db was given, so no files came over: a PocketBase backup zip (its Backups page) or npm run import-pocketbase on the pb_data folder brings them.');
  }
  return { adopted, counts };
}
