// Routes from pb_hooks (routerAdd), served where no built-in route answers (built-in routes come first;
// a hook route a built-in one would shadow is refused when its file loads: server/hooks/routes.ts).
// The request crosses as plain values; who is calling is resolved as for the API (caller.ts: bearer
// token or the session cookie, with its CSRF check); the body is read only when a handler asks, under
// PocketBase's 32 MiB default body limit (or the route's $apis.bodyLimit); the answer is sent as the
// handlers wrote it (e.json honours `?fields=` as PocketBase's does), an error in the spec's envelope.
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { H3Event } from 'h3';
import type { Core } from '../core/index.js';
import { parseFields } from '../core/request-params.js';
import { pick } from '../core/pick-fields.js';
import { decodeUrlComponent } from '../core/url-parts.js';
import type { AuthInfo } from '../model/types.js';
import type { HookRequest, HookRequestBody, HookResponse, HookRoute } from '../hooks/routes.js';
import { badRequest, notFound } from '../errors.js';
import { RECORD_BODY_BYTES, readBodyBytes, readBodyObject } from './body.js';
import { authMiddleware } from './caller.js';
import { bodyServicesOf } from './body-services.js';
import { formToObject, parseBody } from './body-values.js';
import { checkEntryCount, JsonShape } from './body-shape.js';
import { isRecord } from '../json-object.js';
import { envelopeJson } from './envelope.js';
import { expandedIp } from './client-key.js';
import { realIpOf, stateOf } from './request.js';

/** What the HTTP app needs of the hook routes (server/hooks/routes.ts `HookRoutes`). */
export interface HookRouter {
  match(method: string, segments: readonly string[]): { route: HookRoute; params: Record<string, string> } | null;
  serve(route: HookRoute, request: HookRequest, auth: AuthInfo | null, body: HookRequestBody): Promise<HookResponse>;
}

/** PocketBase's DefaultMaxBodySize (its bodyLimit middleware on every route). */
export const HOOK_BODY_BYTES = RECORD_BODY_BYTES;


/** The answer for a request a hook route matches, or null when none does (the caller's 404). */
export async function serveHookRoute(event: H3Event, core: Core, router: HookRouter): Promise<Response | null> {
  const method = event.req.method.toUpperCase();
  const segments = event.url.pathname.slice(1).split('/').map(decodeUrlComponent);
  const found = router.match(method, segments);
  if (!found) return null;
  // the API's routes have their caller resolved by the /api/** middleware; the others here, the same way
  if (!event.url.pathname.startsWith('/api/')) await authMiddleware(core)(event);
  const node = event.runtime?.node?.req;
  const remote = node?.socket?.remoteAddress;
  const declared = event.req.headers.get('content-length');
  const request: HookRequest = {
    method,
    url: event.url.pathname + event.url.search,
    host: event.req.headers.get('host') ?? event.url.host,
    headers: [...event.req.headers],
    remoteAddr: remote ? `${remote.includes(':') ? `[${remote}]` : remote}:${node?.socket?.remotePort ?? 0}` : '',
    remoteIP: expandedIp(remote),
    // PocketBase's RealIP: behind the settings' trusted proxy, the client its header names
    realIP: expandedIp(realIpOf(event)),
    tls: event.url.protocol === 'https:',
    contentLength: declared === null ? (event.req.headers.has('transfer-encoding') ? -1 : 0) : Number(declared),
    chunked: declared === null && event.req.headers.has('transfer-encoding'),
    params: found.params,
  };
  let read: Promise<{ object: Record<string, unknown> } | { bytes: Uint8Array }> | null = null;
  const body: HookRequestBody = {
    object: async (limit) => {
      read ??= readBodyObject(event, limit > 0 ? limit : HOOK_BODY_BYTES).then((object) => ({ object }));
      const got = await read;
      return 'object' in got ? got.object : bindBytes(got.bytes, event);
    },
    text: async (limit) => {
      read ??= readBodyBytes(event, limit > 0 ? limit : HOOK_BODY_BYTES).then((bytes) => ({ bytes }));
      const got = await read;
      return 'bytes' in got ? new TextDecoder().decode(got.bytes) : JSON.stringify(got.object);
    },
  };
  const answer = await router.serve(found.route, request, stateOf(event).auth, body);
  return toResponse(answer, event);
}

const gzipAsync = promisify(gzip);

/**
 * The body read as text first, then bound (PocketBase re-reads it): JSON and urlencoded as every body
 * (the same bounds and parser, body-values.ts); a multipart body cannot be parsed from its text here.
 */
async function bindBytes(bytes: Uint8Array, event: H3Event): Promise<Record<string, unknown>> {
  const media = (event.req.headers.get('content-type') ?? '').split(';', 1)[0].trim().toLowerCase();
  const { parser } = bodyServicesOf(event);
  if (media === 'application/x-www-form-urlencoded') {
    checkEntryCount(bytes, 0x26); // '&'
    const parsed = await parseBody(parser, 'urlencoded', bytes);
    return 'entries' in parsed ? formToObject(parsed.entries, parser) : {};
  }
  if (media !== 'application/json') throw badRequest('The request body was read as text already: bind it before reading it as text.');
  // its shape bounded as every JSON body's, a slice per turn of the loop (body-values.ts does the same)
  const shape = new JsonShape();
  for (let at = 0; at < bytes.length; at += 256 * 1024) {
    await new Promise((resolve) => setImmediate(resolve));
    shape.push(bytes.subarray(at, at + 256 * 1024));
  }
  const parsed = await parseBody(parser, 'json', bytes);
  const value = 'value' in parsed ? parsed.value : undefined;
  if (value === undefined) return {};
  if (!isRecord(value)) throw badRequest('Failed to load the submitted data due to invalid formatting.');
  return value;
}

async function toResponse(answer: HookResponse, event: H3Event): Promise<Response> {
  const headers = new Headers();
  for (const [k, v] of answer.headers) headers.append(k, v);
  const status = answer.written ? answer.status : 200;
  let payload: string | Uint8Array | null = null;
  const b = answer.body;
  if (b && 'json' in b) {
    const fields = event.url.searchParams.get('fields');
    // the worker wrote the JSON; Go's json.Encoder ends the value with a newline. `?fields=` picks from
    // it parsed again (a large one on the body parser's thread) and only the picked part is written here
    let text = b.json;
    if (fields && status >= 200 && status <= 299) {
      const tree = parseFields(fields);
      const parsed = await parseBody(bodyServicesOf(event).parser, 'json', new TextEncoder().encode(text));
      text = JSON.stringify(pick('value' in parsed ? parsed.value : null, tree));
    }
    payload = `${text}\n`;
  } else if (b && 'text' in b) payload = b.text;
  else if (b && 'base64' in b) payload = Buffer.from(b.base64, 'base64');
  else if (b && 'file' in b) return fileAnswer(b.file, headers, event);
  else if (b && 'error' in b) {
    headers.set('content-type', 'application/json; charset=utf-8');
    payload = envelopeJson(b.error.status, b.error.message, b.error.data);
  }
  if (answer.gzip && payload !== null && /\bgzip\b/.test(event.req.headers.get('accept-encoding') ?? '')) {
    payload = await gzipAsync(payload); // on the thread pool, not the event loop
    headers.set('content-encoding', 'gzip');
    headers.append('vary', 'Accept-Encoding');
  }
  const noBody = event.req.method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
  return new Response(noBody ? null : (payload as BodyInit | null), { status, headers });
}

/** What a file's extension says it holds ($apis.static), as Go's mime.TypeByExtension for the common ones. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8', '.xml': 'text/xml; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.avif': 'image/avif', '.ico': 'image/x-icon',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.wasm': 'application/wasm', '.pdf': 'application/pdf', '.mp4': 'video/mp4',
  '.webm': 'video/webm', '.mp3': 'audio/mpeg', '.webmanifest': 'application/manifest+json',
};

/** A file $apis.static chose, streamed from disk: its type by extension, Last-Modified and its 304. */
async function fileAnswer(file: { path: string; size: number; mtime: number }, headers: Headers, event: H3Event): Promise<Response> {
  const modified = new Date(Math.floor(file.mtime / 1000) * 1000);
  if (!headers.has('content-type')) headers.set('content-type', TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream');
  headers.set('last-modified', modified.toUTCString());
  const since = Date.parse(event.req.headers.get('if-modified-since') ?? '');
  if (!Number.isNaN(since) && modified.getTime() <= since) return new Response(null, { status: 304, headers });
  headers.set('content-length', String(file.size));
  if (event.req.method === 'HEAD') return new Response(null, { status: 200, headers });
  const stream = createReadStream(file.path);
  await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject)).catch(() => {
    throw notFound('File not found.');
  });
  return new Response(Readable.toWeb(stream) as ReadableStream, { status: 200, headers });
}
