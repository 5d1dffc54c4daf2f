// Multipart record bodies with files, streamed: busboy parses the body as it arrives; each file part
// streams to a temporary file of the data folder under its field's maxSize (core/files.ts), never
// held in memory; the other parts keep the limits every record body has (32 MiB, 20,000 fields) and
// become the body as body.ts builds it (inferred values, repeated keys, `@jsonPayload`). The whole
// body may hold 32 MiB plus each file field's maxSize × maxSelect, as PocketBase allows (a 413 past it).
// A multipart batch (`POST /api/batch`) is read the same way: its files, keyed `requests.N.<field>`
// (or `requests[N].<field>`), join request N's body, where its write validates and places them; it
// takes at most as many file parts as its requests could place (core/files.ts `batchUploadLimits`).
import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { H3Event } from 'h3';
import { ApiError, badRequest, fieldError, tooLarge } from '../errors.js';
import type { Core } from '../core/index.js';
import { RECORD_BODY_BYTES } from '../core/files.js';
import { setOwn } from '../core/own-keys.js';
import { OversizeFile, StagedFile } from '../files/staged.js';
import { bodyBudgetOf } from './body-budget.js';
import { MAX_BODY_KEYS } from './body-shape.js';
import { formToObject, invalidBody } from './body.js';

export interface RecordForm {
  body: Record<string, unknown>;
  /** Every upload received: the caller discards what no write placed. */
  uploads: StagedFile[];
}

/** Whether a request's body is multipart/form-data (the forms this file reads). */
export const isMultipart = (event: H3Event): boolean => (event.req.headers.get('content-type') ?? '').split(';', 1)[0].trim().toLowerCase() === 'multipart/form-data';

/** `avatar+`, `+avatar`, `avatar` → `avatar`. */
const fieldOf = (key: string): string => key.replace(/^\+/, '').replace(/\+$/, '');

function requestStream(event: H3Event): Readable | null {
  const node = event.runtime?.node?.req;
  if (node !== undefined) return node.readableEnded ? null : node;
  const web = event.req.body;
  return web ? Readable.fromWeb(web as import('node:stream/web').ReadableStream<Uint8Array>) : null;
}

/** Reads and drops what is left of a refused body, so the answer reaches the client whole (body.ts). */
function drain(source: Readable): void {
  source.on('data', () => undefined);
  source.resume();
}

/**
 * A multipart record body with its files received. `failed` is the write's message (`Failed to create
 * record.`) for a field sent more files than it takes.
 */
export async function readRecordForm(event: H3Event, core: Core, collection: string, failed: string): Promise<RecordForm> {
  const limits = core.files.uploadLimits(collection);
  const form = await receiveForm(event, core, { bodyLimit: limits.bodyLimit, fileField: (key) => limits.fields.get(fieldOf(key)) });
  if (form.tooMany.size > 0) {
    await core.files.discard(form.uploads);
    const data: Record<string, ReturnType<typeof fieldError>> = {};
    for (const name of form.tooMany) {
      const maxSelect = limits.fields.get(name)?.maxSelect ?? 1;
      data[name] = fieldError('validation_too_many_files', `The maximum allowed files is ${maxSelect}`, { maxSelect });
    }
    throw badRequest(failed, data);
  }
  const { body } = form;
  // files join the strings sent under the same key (kept names first), as PocketBase's form does
  for (const [key, list] of form.files) joinFiles(body, key, list);
  return { body, uploads: form.uploads };
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
  const form = await receiveForm(event, core, {
    bodyLimit: limits.bodyLimit,
    maxFiles: limits.maxFiles,
    tooManyFiles: () => badRequest('Failed to read the submitted batch files data.', {
      requests: fieldError('validation_too_many_files', `A batch takes at most ${limits.maxFiles} files (its requests' file fields' maxSelect together).`, { maxFiles: limits.maxFiles }),
    }),
    fileField: (key) => (BATCH_FILE_KEY.test(key) ? fileLimit : undefined),
    otherFile: (key) => badRequest('Failed to read the submitted batch files data.', { [key]: fieldError('validation_invalid_value', 'Files must be keyed requests.N.<field>.') }),
  });
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

interface FormLimits {
  /** Bytes the whole body may hold (a 413 past it). */
  bodyLimit: number;
  /** The limits of a file part's key; undefined: not a file field (its bytes are read and dropped, or refused). */
  fileField(key: string): { maxSize: number; maxSelect: number } | undefined;
  /** The refusal of a file part under a key `fileField` does not know; without it, such a part is dropped. */
  otherFile?: (key: string) => ApiError;
  /** The file parts the whole form may hold, and the refusal of one more (as it arrives). */
  maxFiles?: number;
  tooManyFiles?: () => ApiError;
}

interface ReceivedForm {
  body: Record<string, unknown>;
  uploads: StagedFile[];
  /** The files by their part's key, in order. */
  files: Map<string, (StagedFile | OversizeFile)[]>;
  /** Keys (fields) sent more files than their maxSelect: their extra parts were not kept. */
  tooMany: Set<string>;
}

async function receiveForm(event: H3Event, core: Core, limits: FormLimits): Promise<ReceivedForm> {
  const type = event.req.headers.get('content-type') ?? '';
  if (Number(event.req.headers.get('content-length') ?? '0') > limits.bodyLimit) throw tooLarge();
  const source = requestStream(event);
  if (source === null) return { body: {}, uploads: [], files: new Map(), tooMany: new Set() };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': type },
      limits: { fields: MAX_BODY_KEYS, parts: MAX_BODY_KEYS, fieldSize: RECORD_BODY_BYTES, fieldNameSize: 1024 },
    });
  } catch {
    throw invalidBody();
  }

  // the parts other than files are held in memory: they count against all requests' body budget until
  // this one's response is sent (body-budget.ts); files stream to disk and do not
  const budget = bodyBudgetOf(event).forRequest();
  const response = event.runtime?.node?.res;
  if (response) response.once('close', budget.release);
  const entries: [string, string][] = [];
  const files = new Map<string, (StagedFile | OversizeFile)[]>();
  const receiving: Promise<void>[] = [];
  const uploads: StagedFile[] = [];
  const tooMany = new Set<string>();
  let received = 0;
  let fieldBytes = 0;
  let fileParts = 0;

  const done = new Promise<void>((resolve, reject) => {
    let refused: unknown = null;
    const refuse = (error: unknown) => {
      if (refused !== null) return;
      refused = error;
      source.unpipe(parser);
      drain(source);
      reject(error);
    };
    source.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bodyLimit) refuse(tooLarge());
    });
    source.once('error', refuse);
    parser.on('field', (name, value, info) => {
      fieldBytes += name.length + value.length;
      if (info.valueTruncated || fieldBytes > RECORD_BODY_BYTES) return refuse(tooLarge());
      try {
        budget.take(name.length + value.length);
      } catch (err) {
        return refuse(err);
      }
      entries.push([name, value]);
    });
    parser.on('file', (key, stream, info) => {
      const field = limits.fileField(key);
      const list = files.get(key) ?? [];
      if (field === undefined && limits.otherFile && refused === null) {
        stream.resume();
        return refuse(limits.otherFile(key));
      }
      if (field === undefined || refused !== null) return void stream.resume(); // not a file field: dropped
      if (list.length >= field.maxSelect) {
        tooMany.add(fieldOf(key));
        return void stream.resume();
      }
      if (limits.maxFiles !== undefined && ++fileParts > limits.maxFiles) {
        stream.resume();
        return refuse(limits.tooManyFiles?.() ?? tooLarge());
      }
      files.set(key, list);
      const index = list.length;
      list.push(new OversizeFile(info.filename ?? 'file', 0)); // its place, kept in order while it streams
      // one file at a time: busboy waits (backpressure) until this part is on disk, so thousands of small
      // parts never queue thousands of file operations at once (3,000 at once: /api/health 455 ms; 89 ms)
      const previous = receiving[receiving.length - 1] ?? Promise.resolve();
      receiving.push(
        previous.catch(() => undefined).then(() => core.files.receive(stream, info.filename ?? 'file', field.maxSize)).then((file) => {
          list[index] = file;
          if (file instanceof StagedFile) uploads.push(file);
        }),
      );
    });
    const tooComplex = () => refuse(badRequest(`The request body is too complex to process (more than ${MAX_BODY_KEYS} form fields).`));
    parser.on('partsLimit', tooComplex);
    parser.on('fieldsLimit', tooComplex);
    parser.on('error', () => refuse(invalidBody()));
    parser.on('close', () => {
      if (refused === null) resolve();
    });
    source.pipe(parser);
  });

  try {
    await done;
    await Promise.all(receiving);
  } catch (err) {
    if (!response) budget.release();
    await Promise.allSettled(receiving);
    await core.files.discard(uploads);
    throw err instanceof ApiError ? err : (err as { code?: unknown }).code !== undefined ? err : invalidBody();
  }
  let body: Record<string, unknown>;
  try {
    body = await formToObject(entries);
  } catch (err) {
    await core.files.discard(uploads);
    throw err;
  } finally {
    if (!response) budget.release(); // no response to wait for: an in-process request (tests)
  }
  return { body, uploads, files, tooMany };
}
