// Multipart record bodies with files, streamed through the one multipart parser (multipart.ts): each
// file part streams to a temporary file of the data folder under its field's maxSize (core/files.ts),
// never held in memory; the other parts keep the limits every record body has (32 MiB, 20,000 fields)
// and become the body as every form does (body-values.ts: inferred values, repeated keys,
// `@jsonPayload`). The whole body may hold 32 MiB plus each file field's maxSize × maxSelect, as PocketBase allows (a 413 past it).
// A multipart batch (`POST /api/batch`) is read the same way: its files, keyed `requests.N.<field>`
// (or `requests[N].<field>`), join request N's body, where its write validates and places them; it
// takes at most as many file parts as its requests could place (core/files.ts `batchUploadLimits`).
import type { H3Event } from 'h3';
import { badRequest, fieldError } from '../errors.js';
import type { Core } from '../core/index.js';
import { setOwn } from '../core/own-keys.js';
import type { StagedFile } from '../files/staged.js';
import { BATCH_BODY_BYTES, RECORD_BODY_BYTES } from './body.js';
import { fieldOf, readMultipart } from './multipart.js';

export interface RecordForm {
  body: Record<string, unknown>;
  /** Every upload received: the caller discards what no write placed. */
  uploads: StagedFile[];
}

/**
 * A multipart record body with its files received. `failed` is the write's message (`Failed to create
 * record.`) for a field sent more files than it takes.
 */
export async function readRecordForm(event: H3Event, core: Core, collection: string, failed: string): Promise<RecordForm> {
  const limits = core.files.uploadLimits(collection);
  const form = await readMultipart(event, {
    bodyLimit: RECORD_BODY_BYTES + limits.fileBytes, fieldBytes: RECORD_BODY_BYTES,
    fileField: (key) => limits.fields.get(fieldOf(key)),
    // a file under a key that is no file field of the collection: refused, as a batch refuses it (core/batch.ts)
    otherFile: (key) => badRequest(failed, { [fieldOf(key)]: fieldError('validation_invalid_file', 'Not a file field of the collection: it cannot hold files.') }),
  }, core.files);
  if (form.tooMany.size > 0) {
    await core.files.discard(form.uploads);
    throw tooManyFiles(failed, form.tooMany, limits.fields);
  }
  const { body } = form;
  // files join the strings sent under the same key (kept names first), as PocketBase's form does
  for (const [key, list] of form.files) joinFiles(body, key, list);
  return { body, uploads: form.uploads };
}

/** The 400 naming each field sent more files than its maxSelect. */
function tooManyFiles(failed: string, names: Set<string>, fields: Map<string, { maxSelect: number }>) {
  const data: Record<string, ReturnType<typeof fieldError>> = {};
  for (const name of names) {
    const maxSelect = fields.get(name)?.maxSelect ?? 1;
    data[name] = fieldError('validation_too_many_files', `The maximum allowed files is ${maxSelect}`, { maxSelect });
  }
  return badRequest(failed, data);
}

/** Files keyed `requests.N.<key>` or `requests[N].<key>` (PocketBase's batch form; the SDK sends the first). */
const BATCH_FILE_KEY = /^requests(?:\.(\d+)\.|\[(\d+)\]\.)(.+)$/;

/**
 * A multipart batch: `@jsonPayload` (the requests) and each request's files, added to that request's
 * body under their key (`avatar`, `avatar+`), as a single write's form would hold them. A file for a
 * request the batch does not have is a 400; a file for a field that is not a file field is refused by
 * the batch (core/batch.ts), never dropped.
 */
export async function readBatchForm(event: H3Event, core: Core): Promise<RecordForm> {
  const limits = core.files.batchUploadLimits();
  const fileLimit = { maxSize: limits.maxSize, maxSelect: Number.POSITIVE_INFINITY }; // counts: each field's validation
  const form = await readMultipart(event, {
    bodyLimit: BATCH_BODY_BYTES,
    fieldBytes: RECORD_BODY_BYTES,
    maxFiles: limits.maxFiles,
    tooManyFiles: () => badRequest('Failed to read the submitted batch files data.', {
      requests: fieldError('validation_too_many_files', `A batch takes at most ${limits.maxFiles} files (its requests' file fields' maxSelect together).`, { maxFiles: limits.maxFiles }),
    }),
    fileField: (key) => (BATCH_FILE_KEY.test(key) ? fileLimit : undefined),
    otherFile: (key) => badRequest('Failed to read the submitted batch files data.', { [key]: fieldError('validation_invalid_value', 'Files must be keyed requests.N.<field>.') }),
  }, core.files);
  const { body } = form;
  const requests = Array.isArray(body.requests) ? (body.requests as unknown[]) : [];
  for (const [key, list] of form.files) {
    const m = BATCH_FILE_KEY.exec(key) as RegExpExecArray;
    const index = Number(m[1] ?? m[2]);
    const request = requests[index];
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      await core.files.discard(form.uploads);
      throw badRequest('Failed to read the submitted batch files data.', { [key]: fieldError('validation_invalid_value', `The batch has no request ${index} for these files.`) });
    }
    const r = request as Record<string, unknown>;
    if (typeof r.body !== 'object' || r.body === null || Array.isArray(r.body)) r.body = {};
    joinFiles(r.body as Record<string, unknown>, m[3], list);
  }
  return { body, uploads: form.uploads };
}

/** Files join the strings sent under the same key (kept names first), as PocketBase's form does. */
function joinFiles(body: Record<string, unknown>, key: string, list: unknown[]): void {
  const strings: unknown[] = Object.hasOwn(body, key) ? (Array.isArray(body[key]) ? (body[key] as unknown[]) : [body[key]]) : [];
  setOwn(body, key, [...strings, ...list]);
}
