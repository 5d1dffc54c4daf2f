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
  if (Number(event.req.headers.get('content-length') ?? '0') > limits.bodyLimit) throw tooLarge();
  const source = requestStream(event);
  if (source === null) return { body: {}, uploads: [], files: new Map(), tooMany: new Set() };
  const parser = openParser(event.req.headers.get('content-type') ?? '', source, limits);
  // the parts other than files are held in memory: they count against all requests' bodies in flight
  // until this one's response is sent (bodies-in-flight.ts); files stream to disk and do not
  const services = bodyServicesOf(event);
  const response = event.runtime?.node?.res;
  // a connection closed before its body was looked at (its client hung up while the caller was looked
  // up): its 'close' has gone by, so nothing held would be given back, and its stream will never end
  if (event.runtime?.node?.req.destroyed === true || response?.destroyed === true) throw badRequest('The request ended before its body was complete.');
  const budget = services.inFlight.forRequest();
  if (response) response.once('close', budget.release);
  // no response to wait for: an in-process request (tests) gives its bytes back once read
  const released = () => { if (!response) budget.release(); };
  const parts = new FormParts(limits, sink, budget);
  try {
    await parts.read(source, parser);
  } catch (err) {
    released();
    await parts.abandon();
    throw err instanceof ApiError ? err : (err as { code?: unknown }).code !== undefined ? err : invalidBody();
  }
  let body: Record<string, unknown>;
  try {
    body = await formToObject(parts.entries, services.parser);
  } catch (err) {
    await sink.discard(parts.uploads);
    throw err;
  } finally {
    released();
  }
  return { body, uploads: parts.uploads, files: parts.files, tooMany: parts.tooMany };
}

/** busboy for this body's type, bounded by MAX_BODY_KEYS parts and the fields' bytes; a type it cannot read is a 400. */
function openParser(type: string, source: Readable, limits: MultipartLimits): busboy.Busboy {
  try {
    return busboy({
      headers: { 'content-type': type },
      limits: { fields: MAX_BODY_KEYS, parts: MAX_BODY_KEYS, fieldSize: limits.fieldBytes, fieldNameSize: 1024 },
    });
  } catch {
    drain(source);
    throw invalidBody();
  }
}

/** What one form's parts came to as they arrived: its fields, its files (streamed to the sink), its refusal. */
class FormParts {
  readonly entries: [string, string][] = [];
  readonly files = new Map<string, (StagedFile | OversizeFile)[]>();
  readonly uploads: StagedFile[] = [];
  readonly tooMany = new Set<string>();
  /** The file parts being received, one after another. */
  private readonly receiving: Promise<void>[] = [];
  private fieldBytes = 0;
  private fileParts = 0;
  private refused = false;

  constructor(
    private readonly limits: MultipartLimits,
    private readonly sink: FileSink,
    private readonly budget: { take(bytes: number): void },
  ) {}

  /** Reads the body through `parser`: resolves once every part is in (files on disk), rejects with the first refusal. */
  async read(source: Readable, parser: busboy.Busboy): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const refuse = (error: unknown) => {
        if (this.refused) return;
        this.refused = true;
        source.unpipe(parser);
        drain(source);
        reject(error);
      };
      let received = 0;
      source.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > this.limits.bodyLimit) refuse(tooLarge());
      });
      source.once('error', refuse);
      parser.on('field', (name, value, info) => {
        const refusal = this.field(name, value, info.valueTruncated);
        if (refusal !== null) refuse(refusal);
      });
      parser.on('file', (key, stream, info) => {
        const refusal = this.file(key, stream, info.filename ?? 'file');
        if (refusal !== null) refuse(refusal);
      });
      const tooComplex = () => refuse(badRequest(`The request body is too complex to process (more than ${MAX_BODY_KEYS} form fields).`));
      parser.on('partsLimit', tooComplex);
      parser.on('fieldsLimit', tooComplex);
      parser.on('error', () => refuse(invalidBody()));
      parser.on('close', () => {
        if (!this.refused) resolve();
      });
      source.pipe(parser);
    });
    await Promise.all(this.receiving);
  }

  /** A refused form's files: once every part being received has settled, each one kept is discarded. */
  async abandon(): Promise<void> {
    await Promise.allSettled(this.receiving);
    await this.sink.discard(this.uploads);
  }

  /** A field part, kept (its bytes taken from the bodies in flight); or the refusal it causes. */
  private field(name: string, value: string, truncated: boolean): unknown {
    this.fieldBytes += name.length + value.length;
    if (truncated || this.fieldBytes > this.limits.fieldBytes) return tooLarge();
    try {
      this.budget.take(name.length + value.length);
    } catch (err) {
      return err;
    }
    this.entries.push([name, value]);
    return null;
  }

  /**
   * A file part, streamed to the sink under its key's limits, or read and dropped (a key past its
   * maxSelect, noted in `tooMany`; a body refused already); or the refusal it causes.
   */
  private file(key: string, stream: Readable, filename: string): unknown {
    const { limits } = this;
    const field = limits.fileField?.(key);
    if (field === undefined && !this.refused) {
      stream.resume();
      return limits.otherFile?.(key) ?? noFilesHere(key);
    }
    if (field === undefined || this.refused) { // the body is refused already
      stream.resume();
      return null;
    }
    const list = this.files.get(key) ?? [];
    if (list.length >= field.maxSelect) {
      this.tooMany.add(fieldOf(key));
      stream.resume();
      return null;
    }
    if (limits.maxFiles !== undefined && ++this.fileParts > limits.maxFiles) {
      stream.resume();
      return limits.tooManyFiles?.() ?? tooLarge();
    }
    this.files.set(key, list);
    const index = list.length;
    list.push(new OversizeFile(filename, 0)); // its place, kept in order while it streams
    // one file at a time: busboy waits (backpressure) until this part is on disk, so thousands of small
    // parts never queue thousands of file operations at once
    const previous = this.receiving[this.receiving.length - 1] ?? Promise.resolve();
    this.receiving.push(
      previous.catch(() => undefined).then(() => this.sink.receive(stream, filename, field.maxSize)).then((file) => {
        list[index] = file;
        if (file instanceof StagedFile) this.uploads.push(file);
      }),
    );
    return null;
  }
}
