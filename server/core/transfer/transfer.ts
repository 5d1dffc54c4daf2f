// Data in and out (issue 15): the schema's import and export, truncate, records' export and import,
// typed clients, and moving a PocketBase data folder in. Each part lives in its own file here.
import { notFound } from '../../errors.js';
import type { Store } from '../../store/db.js';
import type { Registry } from '../collection-registry.js';
import type { Records } from '../records.js';
import type { Sessions } from '../session-store.js';
import { exportSchema } from './schema-export.js';
import { createSchemaImport } from './schema-import.js';

export function createTransfer(store: Store, registry: Registry, sessions: Sessions, records: Records) {
  const importSchema = createSchemaImport(store, registry, sessions);
  return {
    importSchema,
    /** PocketBase's collections JSON: every non-system collection, or those named (ids or names). */
    exportSchema: (only: string[] | null) => exportSchema(registry.all(), only),
    async truncate(idOrName: string): Promise<number> {
      const c = registry.get(idOrName);
      if (!c) throw notFound();
      return records.writes.truncate(c);
    },
  };
}

export type Transfer = ReturnType<typeof createTransfer>;
