// Reading request bodies: each endpoint reads at most the bytes it needs (a 413 past them), the shape
// of the body is bounded before anything parses it (body-shape.ts), and large bodies are parsed off the
// event loop (body-worker.ts); multipart bodies go through the one multipart parser (multipart.ts).
// Keys a client chooses are stored as own properties (own-keys.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { H3Event } from 'h3';
import { ApiError, badRequest, tooLarge } from '../errors.js';
import { isRecord } from '../json-object.js';
import { checkEntryCount, JsonShape } from './body-shape.js';
import { bodyServicesOf, type BodyServices } from './body-services.js';
import { formToObject, invalidBody, parseBody } from './body-values.js';
import { INLINE_BYTES } from './body-worker.js';
import { readMultipart } from './multipart.js';
import { drain, requestStream } from './request-stream.js';

/** Record bodies apart from their files (PocketBase's 32 MiB; file uploads stream apart from it: upload-form.ts). */
export const RECORD_BODY_BYTES = 32 * 1024 * 1024;
/** A multipart batch's whole body (PocketBase's batch maxBodySize default, 128 MiB): requests and files together. */
export const BATCH_BODY_BYTES = 128 * 1024 * 1024;
/** Bodies small by nature: sign-in (identity and password of at most 255 characters) and setup. */
export const AUTH_BODY_BYTES = 64 * 1024;
/** A collection's definition (superusers only). */
export const COLLECTION_BODY_BYTES = 4 * 1024 * 1024;
/** A records import (superusers only); within the bodies in flight (bodies-in-flight.ts). */
export const IMPORT_BODY_BYTES = 64 * 1024 * 1024;
/**
 * The raw body, refused with a 413 as soon as it passes `limit` (declared or streamed, chunked
 * included), and with whatever `inspect` throws as soon as a chunk fails it; the rest of a refused body
 * is drained without being kept.
 */
async function readLimited(event: H3Event, limit: number, inspect?: (chunk: Uint8Array) => void): Promise<Uint8Array> {
  const node = event.runtime?.node;
  // Read straight from node's request where there is one: the web stream srvx would wrap it in cost a
  // tenth of a durable create's rate.
  if (node?.req !== undefined && node.res !== undefined) return readNodeLimited(node.req, node.res, event.req.headers.get('content-length'), bodyServicesOf(event), limit, inspect);
  const declared = declaredLength(event.req.headers.get('content-length'), limit);
  const budget = bodyServicesOf(event).inFlight.forRequest();
  if (declared !== null && Number.isSafeInteger(declared) && declared > 0) budget.take(declared);
  try {
    const stream = event.req.body;
    if (!stream) return new Uint8Array(0);
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      try {
        if (size > limit) throw tooLarge();
        if (declared === null) budget.take(value.byteLength);
        inspect?.(value);
      } catch (err) {
        reader.releaseLock();
        throw err;
      }
      chunks.push(value);
    }
    return join(chunks, size);
  } finally {
    budget.release(); // no response to wait for: an in-process request (tests)
  }
}

/** The declared length (null when none), a 413 past `limit`. */
function declaredLength(text: string | null, limit: number): number | null {
  const declared = text === null ? null : Number(text);
  if ((declared ?? 0) > limit) throw tooLarge();
  return declared;
}

/** readLimited on node's request and response (the app's requests, and creates served without h3: fast-creates.ts). */
function readNodeLimited(req: Readable, res: Writable, contentLength: string | null, services: BodyServices, limit: number, inspect?: (chunk: Uint8Array) => void): Promise<Uint8Array> {
  const declared = declaredLength(contentLength, limit);
  // a connection that closed before its body was looked at (the caller's session read first): its
  // 'close' has gone by, so nothing may be held for it (it would be held for good) and nothing will come
  if (req.destroyed || res.destroyed || res.closed) throw new BodyNotReceived();
  // the bytes held count against all requests' budget until this one's response is sent
  const budget = services.inFlight.forRequest();
  res.once('close', budget.release);
  try {
    if (declared !== null && Number.isSafeInteger(declared) && declared > 0) budget.take(declared);
  } catch (err) {
    drain(req);
    throw err;
  }
  return readNode(req, limit, budget, declared, inspect);
}

/** Body bytes inspected in one turn of the event loop before the read pauses for a turn. */
const YIELD_BYTES = 1024 * 1024;

/**
 * Reads node's request. With a declared length the body goes straight into one buffer of that size as
 * it arrives (its chunks are dropped at once: no second copy, and the buffer can move to the parser
 * thread as it is); without one, chunks are collected and joined at the end.
 */
function readNode(req: Readable, limit: number, budget: { take(bytes: number): void }, declared: number | null, inspect?: (chunk: Uint8Array) => void): Promise<Uint8Array> {
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const whole = declared !== null && declared > INLINE_BYTES ? new Uint8Array(declared) : null;
    let size = 0;
    let settled = false;
    const finish = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      if (error === null) return resolve(whole !== null ? whole.subarray(0, size) : join(chunks, size));
      drain(req); // the rest, keeping the connection for the answer
      reject(error);
    };
    let sinceYield = 0;
    const onData = (chunk: Buffer) => {
      try {
        if (size + chunk.length > limit || (whole !== null && size + chunk.length > whole.length)) throw tooLarge();
        if (declared === null) budget.take(chunk.length);
        inspect?.(chunk);
      } catch (err) {
        return finish(err);
      }
      if (whole !== null) whole.set(chunk, size);
      else chunks.push(chunk);
      size += chunk.length;
      // node can hand over megabytes in one turn of the loop: let other requests in between
      if (inspect && (sinceYield += chunk.length) >= YIELD_BYTES) {
        sinceYield = 0;
        req.pause();
        setImmediate(() => req.resume());
      }
    };
    req.on('data', onData);
    req.once('end', () => finish(null));
    // a client that closes or resets the connection mid-body (or is cut off as idle): its own doing, not
    // a server error (it used to be logged with a stack, once per aborted body)
    // (the error is made only then: 'close' also follows every body received whole, and an error's
    // stack costs a few percent of a create's CPU)
    const cut = () => {
      if (!settled) finish(new BodyNotReceived());
    };
    req.once('error', cut);
    req.once('close', cut);
  });
}

/**
 * The chunks as one buffer. A body large enough for the parser thread is always a fresh copy, whose
 * memory can move there without a second copy (a chunk's memory may be shared with other buffers).
 */
function join(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && size <= INLINE_BYTES) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The client stopped sending its body; app.ts logs it as one line. */
export class BodyNotReceived extends ApiError {
  constructor() {
    super(400, 'The request body was not received whole.');
  }
}

/**
 * The request body as an object; `{}` when empty. `limit` is the largest body the endpoint reads (a
 * 413 past it); JSON is refused with a 400 past MAX_BODY_KEYS keys, MAX_JSON_VALUES values or
 * MAX_JSON_DEPTH levels, forms past MAX_BODY_KEYS fields, all before any parse.
 */
export async function readBodyObject(event: H3Event, limit = RECORD_BODY_BYTES): Promise<Record<string, unknown>> {
  // the media type is matched case-insensitively; its parameters (the boundary) keep their case
  const type = event.req.headers.get('content-type') ?? '';
  const media = type.split(';', 1)[0].trim().toLowerCase();
  // files in a body other than a record's are dropped, as before (PocketBase reads them only for records)
  if (media === 'multipart/form-data') return (await readMultipart(event, { bodyLimit: limit, fieldBytes: limit })).body;
  const { parser } = bodyServicesOf(event);
  if (media === 'application/x-www-form-urlencoded') {
    const bytes = await readLimited(event, limit);
    checkEntryCount(bytes, 0x26); // '&'
    const parsed = await parseBody(parser, 'urlencoded', bytes);
    return 'entries' in parsed ? formToObject(parsed.entries, parser) : {};
  }
  const shape = new JsonShape();
  return jsonObject(parser, await readLimited(event, limit, (chunk) => shape.push(chunk)));
}

/** A JSON body's bytes (its shape already counted) as an object; `{}` when empty. */
async function jsonObject(parser: BodyServices['parser'], bytes: Uint8Array): Promise<Record<string, unknown>> {
  const parsed = await parseBody(parser, 'json', bytes);
  const value = 'value' in parsed ? parsed.value : undefined;
  if (value === undefined) return {};
  if (!isRecord(value)) throw invalidBody();
  return value;
}

/**
 * readBodyObject's JSON body straight from node's request, for a request served without h3
 * (fast-creates.ts): the same limits, bytes in flight, shape count and parser.
 */
export async function readNodeJsonObject(req: IncomingMessage, res: ServerResponse, services: BodyServices, limit = RECORD_BODY_BYTES): Promise<Record<string, unknown>> {
  const shape = new JsonShape();
  return jsonObject(services.parser, await readNodeLimited(req, res, req.headers['content-length'] ?? null, services, limit, (chunk) => shape.push(chunk)));
}


/** The raw body (a records import, an uploaded database), a 413 past `limit`; parsed by core in slices. */
export async function readBodyBytes(event: H3Event, limit: number): Promise<Uint8Array> {
  return readLimited(event, limit);
}

/**
 * The body as a stream, for endpoints that write it to disk as it arrives (a restore, a PocketBase
 * import) instead of holding it: node's request where there is one (`event.req.body` would start a
 * second reader of the same bytes), else the web body. Take it before anything awaits. Such endpoints
 * work for a while after the body arrived (extract, check, swap or import) with no bytes either way,
 * so the connection's inactivity limit is lifted for this request (node sets it again for the next).
 */
export function takeBody(event: H3Event): Readable {
  const node = event.runtime?.node?.req;
  node?.socket?.setTimeout(0);
  const source = new PassThrough();
  const body = requestStream(event);
  if (body === null) source.end();
  else body.pipe(source);
  // pipe() neither ends nor fails its destination when the client goes away mid-body (or the request
  // time limit cuts it): the reader would wait forever
  if (node && body === node) {
    const cut = () => {
      if (!node.complete) source.destroy(badRequest('The request ended before its body was complete.'));
    };
    // closed already (its client hung up while the caller was looked up): its 'close' has gone by, and
    // a destroyed request ends no pipe either
    // (the error is kept by the stream for its reader, who comes later: pipeline and finished see it)
    if (node.destroyed && !node.readableEnded) source.on('error', () => {}).destroy(badRequest('The request ended before its body was complete.'));
    else node.once('close', cut);
  }
  return source;
}
