// File fields in the write funnel: a write's uploads are placed at the end of its prepare step (before
// the transaction, so before its journal entry), adopted inside its transaction (the team server's
// database storage: the same commit as the record), kept from sweeps until the write settles, and
// removed again when it rolls back. What a durable write stops naming is dropped
// by the change listener in core/file-cleanup.ts.
import type { FileStorage, PlaceTx } from '../../files/storage.js';
import { OversizeFile, StagedFile } from '../../files/staged.js';
import { uploadsOf } from '../fields/file.js';
import type { Collection } from '../../model/types.js';
import type { PreparedWrite } from './prepared.js';

/** The uploads a record's values hold, over all its file fields. */
export function uploadsIn(c: Collection, values: Record<string, unknown>): StagedFile[] {
  return c.fields.flatMap((f) => (f.type === 'file' ? uploadsOf(values[f.name]) : []));
}

const isUpload = (v: unknown): boolean => v instanceof StagedFile || v instanceof OversizeFile;

/**
 * The keys of a submitted body that hold uploads but name no file field of `c` (`avatar`, `avatar+`,
 * `+avatar` name one): a write would not place them, so the caller refuses them instead of dropping.
 */
export function misplacedUploads(c: Collection, body: Record<string, unknown>): string[] {
  const files = new Set(c.fields.filter((f) => f.type === 'file').map((f) => f.name));
  return Object.keys(body).filter((key) => {
    const v = body[key];
    if (!(Array.isArray(v) ? v.some(isUpload) : isUpload(v))) return false;
    return !files.has(key.replace(/^\+/, '').replace(/\+$/, ''));
  });
}

/**
 * Places the uploads of `values` under the record and returns the write with the after-effects that
 * settle them: kept after a commit, removed after a rollback.
 */
export async function withPlacedUploads<T>(files: FileStorage, c: Collection, recordId: string, values: Record<string, unknown>, write: PreparedWrite<T>, tx?: PlaceTx): Promise<PreparedWrite<T>> {
  const uploads = uploadsIn(c, values);
  if (uploads.length === 0) return write;
  // `tx`: the prepare step runs inside the write's transaction (a write with hooks): placed through it
  const placed = await files.place(c.id, recordId, uploads, tx);
  return {
    async apply(tx, changes) {
      // on the team server the placed files become the record's in this transaction
      await files.adopt(tx, placed);
      return write.apply(tx, changes);
    },
    async afterCommit() {
      files.settle(placed);
      await write.afterCommit?.();
    },
    async afterRollback() {
      await files.unplace(placed);
      await write.afterRollback?.();
    },
  };
}
