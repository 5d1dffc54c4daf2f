// Files through the API: receiving uploads for a record body, and finding what
// `GET /api/files/{collection}/{recordId}/{filename}` serves (PocketBase's apis/file.go): the record
// must exist and name the file in one of its file fields; a protected field's file needs a file token
// whose owner passes the record's viewRule; `?thumb=` names a size of the field's (or 100x100) for
// images, else the original is served.
import type { CoreEnv } from './env.js';
import type { Readable } from 'node:stream';
import { notFound } from '../errors.js';
import { sniff, SNIFF_BYTES, baseMime, type Sniffed } from '../files/sniff.js';
import type { OversizeFile, StagedFile } from '../files/staged.js';
import type { StoredFile } from '../files/storage.js';
import { THUMBABLE } from '../files/thumbs.js';
import { MAX_BATCH_REQUESTS } from './batch.js';
import { storedNames } from './file-cleanup.js';
import type { FileTokens } from './file-tokens.js';
import { DEFAULT_THUMBS, effectiveMaxSelect, effectiveMaxSize } from './fields/file.js';
import { underDeadline } from './query-budget.js';
import { getRow, viewRecord } from './records-read.js';
import type { RequestContext } from './request-context.js';
import type { AuthInfo, FileField } from '../model/types.js';
import { viewFileSource } from './views.js';
import { dialectOf } from '../rules/compile.js';

export interface ServedFile {
  /** What is served (the original or its thumbnail), opened: the response streams it or closes it. */
  file: StoredFile;
  /** The name it is served as (`100x100_photo_abc.png` for a thumbnail). */
  name: string;
  sniffed: Sniffed;
  protected: boolean;
}

/** What a multipart body may carry for one collection: each file field's limits (by field name). */
export interface UploadLimits {
  fields: Map<string, { maxSize: number; maxSelect: number }>;
  /** Bytes the files may hold together: every file field's maxSize × maxSelect (PocketBase adds them to the body's limit). */
  fileBytes: number;
}

export function createFiles(env: Pick<CoreEnv, 'store' | 'registry' | 'storage' | 'budgetMs'>, tokens: FileTokens) {
  const { store, registry, storage, budgetMs } = env;
  return {
    storage,
    thumbs: storage.thumbs,

    uploadLimits(collection: string): UploadLimits {
      const c = registry.get(collection);
      const fields = new Map<string, { maxSize: number; maxSelect: number }>();
      let fileBytes = 0;
      for (const f of c?.fields ?? []) {
        if (f.type !== 'file') continue;
        fields.set(f.name, { maxSize: effectiveMaxSize(f), maxSelect: effectiveMaxSelect(f) });
        fileBytes += effectiveMaxSize(f) * effectiveMaxSelect(f);
      }
      return { fields, fileBytes };
    },

    /**
     * A multipart batch's files arrive before `@jsonPayload` says which collection each is for: each is
     * received under the largest maxSize of any file field (then validated by its own field as in a
     * single write).
     */
    batchUploadLimits(): { maxSize: number; maxFiles: number } {
      let maxSize = 0;
      // the most files one record of any collection takes: a batch of MAX_BATCH_REQUESTS writes can
      // place no more than that many times over, so more parts are refused as they arrive
      let perRecord = 0;
      for (const c of registry.all()) {
        let files = 0;
        for (const f of c.fields) {
          if (f.type !== 'file') continue;
          maxSize = Math.max(maxSize, effectiveMaxSize(f));
          files += effectiveMaxSelect(f);
        }
        perRecord = Math.max(perRecord, files);
      }
      return { maxSize, maxFiles: perRecord * MAX_BATCH_REQUESTS };
    },

    receive: (source: Readable, originalName: string, limit: number): Promise<StagedFile | OversizeFile> => storage.receive(source, originalName, limit),

    discard: (files: readonly StagedFile[]): Promise<void> => storage.discard(files),

    token: (auth: AuthInfo): string => tokens.issue(auth),

    /** The caller a file token names (live session, unexpired), or null: backup downloads check it. */
    callerOfToken: (token: string): Promise<AuthInfo | null> => tokens.resolve(token),

    /** Throws a 404 for anything missing or not allowed (PocketBase answers both alike). */
    async find(collection: string, recordId: string, filename: string, ctx: RequestContext): Promise<ServedFile> {
      const c = registry.get(collection);
      if (!c) throw notFound();
      const served = await underDeadline(store, budgetMs, async (db) => {
        const row = await getRow(db, c, recordId);
        if (!row) throw notFound();
        const found = c.fields.find((f): f is FileField => f.type === 'file' && storedNames(f, row).includes(filename));
        if (!found) throw notFound();
        if (found.protected) {
          const auth = await tokens.resolve(ctx.request.query.token ?? '', db);
          const asked = { ...ctx, request: { ...ctx.request, auth, context: 'protectedFile' } };
          await viewRecord(db, c, recordId, asked); // a 404 when the token's owner cannot view the record
        }
        // a view's file lives with the record it comes from (PocketBase's FindRecordByViewFile)
        const source = c.type === 'view' ? await viewFileSource(db, registry.lookup, c, found.name, filename, dialectOf(store.dialect)) : { collection: c, recordId };
        if (!source) throw notFound();
        return { field: found, isProtected: found.protected, source };
      });
      const { source } = served;
      const { field, isProtected } = served;
      const original = await storage.open(source.collection.id, source.recordId, filename);
      if (original === null) throw notFound();
      let sniffed: Sniffed;
      try {
        sniffed = sniff(await original.head(SNIFF_BYTES));
      } catch {
        await original.close();
        throw notFound();
      }
      const size = ctx.request.query.thumb ?? '';
      if (size !== '' && (DEFAULT_THUMBS.includes(size) || field.thumbs.includes(size)) && THUMBABLE.has(baseMime(sniffed.mime))) {
        try {
          const thumb = await storage.thumbnail(source.collection.id, source.recordId, filename, size, baseMime(sniffed.mime));
          await original.close();
          return { file: thumb, name: `${size}_${filename}`, sniffed, protected: isProtected };
        } catch {
          // PocketBase serves the original when a thumbnail cannot be made
        }
      }
      return { file: original, name: filename, sniffed, protected: isProtected };
    },
  };
}

export type Files = ReturnType<typeof createFiles>;
