// What a failed statement failed on, whatever the engine: the one place core reads a store's errors.
// A store that knows (the PostgreSQL store, by SQLSTATE) says so in `storeFailure`; the desktop engine's
// sql.js errors carry only SQLite's wording, read here.
import type { StoreFailure } from '../store/contract.js';

const SQLITE_UNIQUE = /UNIQUE constraint failed: (.+)$/;

export function storeFailure(err: unknown): StoreFailure | undefined {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const said = (e as { storeFailure?: StoreFailure }).storeFailure;
    if (said !== undefined) return said;
    if (!(e instanceof Error)) continue;
    const unique = SQLITE_UNIQUE.exec(e.message);
    if (unique) {
      const what = unique[1].trim();
      const index = /^index '(.+)'$/.exec(what);
      // `t.a, t.b`: the columns of a UNIQUE column constraint or primary key
      return index ? { kind: 'unique', index: index[1] } : { kind: 'unique', columns: what.split(',').map((s) => s.trim().split('.').pop() ?? s) };
    }
    // SQLite's max_page_count (store option maxDatabaseBytes): the database reached its size cap
    if (/database or disk is full/.test(e.message)) return { kind: 'full' };
  }
  return undefined;
}
