// PocketBase's `_externalAuths` (OAuth2 links): the system collection every data folder has (made by
// `ensureExternalAuths` at start-up, after a restore and after a move up), and the links' reads and
// writes for auth-with-oauth2 (oauth2.ts). Its records API (list, view, delete = unlink) is the generic
// one, under the collection's rules (collections-defaults.ts externalAuthsCollection).
import type { Dialect } from '../rules/compile.js';
import type { ReadDb, WriteTx } from '../store/db.js';
import type { Registry } from './collection-registry.js';
import { createCollectionTable, saveDefinition } from './collections-ddl.js';
import { externalAuthsCollection } from './collections-defaults.js';
import { isoNow, newId } from './ids.js';
import { EXTERNAL_AUTHS_ID } from '../model/types.js';

export interface ExternalAuthRow {
  id: string;
  collectionRef: string;
  recordRef: string;
  provider: string;
  providerId: string;
}

/** Adds `_externalAuths` when the folder (or a restored backup, or a moved desktop) predates it. */
export async function ensureExternalAuths(dialect: Dialect, tx: WriteTx, registry: Registry): Promise<void> {
  if (registry.get(EXTERNAL_AUTHS_ID)) return;
  const c = externalAuthsCollection(registry.lookup);
  await createCollectionTable(dialect, tx, c);
  await saveDefinition(dialect, tx, c);
  registry.put(c);
}

export function findLink(db: ReadDb, collectionId: string, provider: string, providerId: string): Promise<ExternalAuthRow | undefined> {
  return db.get<ExternalAuthRow>('SELECT * FROM "_externalAuths" WHERE "collectionRef" = ? AND "provider" = ? AND "providerId" = ?', [collectionId, provider, providerId]);
}

export async function addLink(tx: WriteTx, collectionId: string, recordId: string, provider: string, providerId: string): Promise<void> {
  const now = isoNow();
  await tx.run(
    'INSERT INTO "_externalAuths" ("id","collectionRef","recordRef","provider","providerId","created","updated") VALUES (?,?,?,?,?,?,?)',
    [newId(), collectionId, recordId, provider, providerId, now, now],
  );
}

/** Deletes every link of a record (an unverified account claimed by its e-mail's provider: oauth2.ts). */
export async function removeLinks(tx: WriteTx, collectionId: string, recordId: string): Promise<void> {
  await tx.run('DELETE FROM "_externalAuths" WHERE "collectionRef" = ? AND "recordRef" = ?', [collectionId, recordId]);
}
