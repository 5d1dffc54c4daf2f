// The admin UI, served at /_/ from the built renderer folder, with a Content-Security-Policy.
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { H3, H3Event } from 'h3';
import { decodeUrlComponent } from '../core/url-parts.js';
import { notFound } from '../errors.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
  '.map': 'application/json', '.txt': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
};

export const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "connect-src 'self'", "font-src 'self' data:", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Deskbase</title>
<body style="font:16px system-ui;margin:3rem;max-width:40rem">
<h1>Deskbase</h1><p>The API is running at <code>/api</code>, but the admin UI has not been built.</p>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload.</p></body>`;

const notBuilt = (): Response =>
  new Response(NOT_BUILT, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP, 'cache-control': 'no-cache' } });

async function fileResponse(path: string, immutable: boolean): Promise<Response | null> {
  try {
    const s = await stat(path);
    if (!s.isFile()) return null;
    const body = await readFile(path);
    return new Response(body, {
      headers: {
        'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    });
  } catch {
    return null;
  }
}

export function registerStatic(app: H3, uiDir: string | null): void {
  app.get('/', () => new Response(null, { status: 302, headers: { location: '/_/' } }));
  const serve = async (event: H3Event) => {
    const rel = decodeUrlComponent(event.url.pathname.slice('/_/'.length)) || 'index.html';
    if (uiDir === null) return notBuilt();
    const full = normalize(join(uiDir, rel));
    if (!full.startsWith(normalize(uiDir) + sep) && full !== normalize(uiDir)) throw notFound();
    const res = await fileResponse(full, rel.startsWith('assets/'));
    if (res) return res;
    if (rel === 'index.html') return notBuilt();
    throw notFound();
  };
  // h3's router matches '/_' and '/_/' alike: redirect only the bare path
  app.get('/_', (event) => (event.url.pathname === '/_' ? new Response(null, { status: 302, headers: { location: '/_/' } }) : serve(event)));
  app.get('/_/**', serve);
}
