// Sending a stored file as PocketBase's filesystem.Serve does (Go's http.ServeContent underneath):
// the type sniffed from its content, inline only for media and PDF (else, or with `?download=1`,
// an attachment), a CSP that runs nothing, nosniff, ETag / Last-Modified with their 304s, and one
// byte range. SVG and HTML are never active from our origin: attachment plus `sandbox`. Unlike
// PocketBase, `.js` and `.css` keep their sniffed type (text/plain), so no page of this origin can
// load an upload as a script or a style.
import { Readable } from 'node:stream';
import { baseMime } from '../files/sniff.js';
import type { ServedFile } from '../core/files.js';

const INLINE = new Set([
  'image/png', 'image/jpg', 'image/jpeg', 'image/gif', 'image/webp', 'image/x-icon', 'image/bmp',
  'video/webm', 'video/mp4', 'video/3gpp', 'video/quicktime', 'video/x-ms-wmv',
  'audio/basic', 'audio/aiff', 'audio/mpeg', 'audio/midi', 'audio/mp3', 'audio/wave', 'audio/wav', 'audio/x-wav', 'audio/x-mpeg', 'audio/x-m4a', 'audio/aac',
  'application/pdf', 'application/x-pdf',
]);

export const FILE_CSP = "default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; sandbox";

/** Go's strconv.ParseBool, which PocketBase reads `download` with. */
const truthy = (v: string | null): boolean => v !== null && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);

type Range = { start: number; end: number } | 'unsatisfiable' | null;

/** One `bytes=` range (first-last, first-, -suffix); several ranges are answered whole. */
function parseRange(header: string | null, size: number): Range {
  if (header === null) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function notModified(req: Request, etag: string, mtime: Date): boolean {
  const match = req.headers.get('if-none-match');
  if (match !== null) return match.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*');
  const since = Date.parse(req.headers.get('if-modified-since') ?? '');
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

export async function fileResponse(req: Request, url: URL, file: ServedFile): Promise<Response> {
  const stored = file.file;
  let keep = false;
  try {
    const size = stored.size;
    const etag = `"${size.toString(16)}-${Math.floor(stored.mtime.getTime()).toString(16)}"`;
    const mime = baseMime(file.sniffed.mime);
    const disposition = INLINE.has(mime) && !truthy(url.searchParams.get('download')) ? 'inline' : 'attachment';
    const headers: Record<string, string> = {
      'content-type': file.sniffed.mime,
      'content-disposition': `${disposition}; filename="${file.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`,
      'content-security-policy': FILE_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': `${file.protected ? 'private, ' : ''}max-age=2592000, stale-while-revalidate=86400`,
      'accept-ranges': 'bytes',
      etag,
      'last-modified': stored.mtime.toUTCString(),
    };
    if (notModified(req, etag, stored.mtime)) return new Response(null, { status: 304, headers });
    const ifRange = req.headers.get('if-range');
    let range = parseRange(req.headers.get('range'), size);
    if (ifRange !== null && ifRange !== etag && ifRange !== stored.mtime.toUTCString()) range = null;
    if (range === 'unsatisfiable') {
      return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${size}` } });
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? size - 1;
    const length = size === 0 ? 0 : end - start + 1;
    headers['content-length'] = String(length);
    if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    const status = range ? 206 : 200;
    if (req.method === 'HEAD' || length === 0) return new Response(null, { status, headers });
    keep = true;
    const stream = stored.stream(start, end);
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers });
  } finally {
    if (!keep) await stored.close();
  }
}
