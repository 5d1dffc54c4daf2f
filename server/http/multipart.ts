// The one multipart/form-data parser: busboy, reading the body as it arrives (a chunk at a time, never
// the whole body held as bytes first). Its limits bound the parts (MAX_BODY_KEYS fields and parts, each
// field under the body's limit); what busboy cannot count is counted here: the whole body's bytes (a 413
// past `bodyLimit`) and the fields' bytes together (a 413 past `fieldBytes`, taken from the app's bodies
// in flight as they arrive). File parts stream to a `FileSink` (core's files) under their key's limits;
// under a key that is no file field (or where the endpoint takes none) the whole body is refused (a 400
// naming the key, `otherFile` saying it in the endpoint's words): a file is never dropped unnoticed. The
// other parts become the body as every form does (body-values.ts).
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { H3Event } from 'h3';
import { ApiError, badRequest, fieldError, tooLarge } from '../errors.js';
import { OversizeFile, StagedFile } from '../files/staged.js';
import { MAX_BODY_KEYS } from './body-shape.js';
import { bodyServicesOf } from './body-services.js';
import { formToObject, invalidBody } from './body-values.js';
import { drain, requestStream } from './request-stream.js';

/** A file part where the endpoint takes no files: refused, naming its key, rather than dropped. */
const noFilesHere = (key: string) => badRequest('Failed to load the submitted data: this request takes no files.', { [key]: fieldError('validation_invalid_file', 'Files are not accepted here.') });

export interface MultipartLimits {
  /** Bytes the whole body may hold (a 413 past it). */
  bodyLimit: number;
  /** Bytes the parts other than files may hold together (a 413 past it). */
  fieldBytes: number;
  /** The limits of a file part's key; undefined: not a file field (its bytes are read and dropped, or refused). */
  fileField?: (key: string) => { maxSize: number; maxSelect: number } | undefined;
  /** The refusal of a file part under a key `fileField` does not know; without it, a generic 400 naming the key. */
  otherFile?: (key: string) => ApiError;
  /** The file parts the whole form may hold, and the refusal of one more (as it arrives). */
  maxFiles?: number;
  tooManyFiles?: () => ApiError;
}

/** Where file parts go: core's files (received to a synced temporary file under a limit; discarded). */
export interface FileSink {
  receive(source: Readable, originalName: string, limit: number): Promise<StagedFile | OversizeFile>;
  discard(files: readonly StagedFile[]): Promise<void>;
}

export interface MultipartForm {
  body: Record<string, unknown>;
  /** Every upload received: the caller discards what no write placed. */
  uploads: StagedFile[];
  /** The files by their part's key, in order. */
  files: Map<string, (StagedFile | OversizeFile)[]>;
  /** Keys (fields, `+` removed) sent more files than their maxSelect: their extra parts were not kept. */
  tooMany: Set<string>;
}

/** `avatar+`, `+avatar`, `avatar` → `avatar`. */
export const fieldOf = (key: string): string => key.replace(/^\+/, '').replace(/\+$/, '');

/** Whether a request's body is multipart/form-data. */
export const isMultipart = (event: H3Event): boolean => (event.req.headers.get('content-type') ?? '').split(';', 1)[0].trim().toLowerCase() === 'multipart/form-data';

const NO_FILES: FileSink = {
  receive: () => Promise.reject(new Error('no file sink')),
  discard: () => Promise.resolve(),
};

export async function readMultipart(event: H3Event, limits: MultipartLimits, sink: FileSink = NO_FILES): Promise<MultipartForm> {
  const type = event.req.headers.get('content-type') ?? '';
  if (Number(event.req.headers.get('content-length') ?? '0') > limits.bodyLimit) throw tooLarge();
  const source = requestStream(event);
  if (source === null) return { body: {}, uploads: [], files: new Map(), tooMany: new Set() };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': type },
      limits: { fields: MAX_BODY_KEYS, parts: MAX_BODY_KEYS, fieldSize: limits.fieldBytes, fieldNameSize: 1024 },
    });
  } catch {
    drain(source);
    throw invalidBody();
  }

  // the parts other than files are held in memory: they count against all requests' bodies in flight
  // until this one's response is sent (bodies-in-flight.ts); files stream to disk and do not
  const services = bodyServicesOf(event);
  const budget = services.inFlight.forRequest();
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
      if (info.valueTruncated || fieldBytes > limits.fieldBytes) return refuse(tooLarge());
      try {
        budget.take(name.length + value.length);
      } catch (err) {
        return refuse(err);
      }
      entries.push([name, value]);
    });
    parser.on('file', (key, stream, info) => {
      const field = limits.fileField?.(key);
      const list = files.get(key) ?? [];
      if (field === undefined && refused === null) {
        stream.resume();
        return refuse(limits.otherFile?.(key) ?? noFilesHere(key));
      }
      if (field === undefined || refused !== null) return void stream.resume(); // the body is refused already
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
      // parts never queue thousands of file operations at once
      const previous = receiving[receiving.length - 1] ?? Promise.resolve();
      receiving.push(
        previous.catch(() => undefined).then(() => sink.receive(stream, info.filename ?? 'file', field.maxSize)).then((file) => {
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
    await sink.discard(uploads);
    throw err instanceof ApiError ? err : (err as { code?: unknown }).code !== undefined ? err : invalidBody();
  }
  let body: Record<string, unknown>;
  try {
    body = await formToObject(entries, services.parser);
  } catch (err) {
    await sink.discard(uploads);
    throw err;
  } finally {
    if (!response) budget.release(); // no response to wait for: an in-process request (tests)
  }
  return { body, uploads, files, tooMany };
}
