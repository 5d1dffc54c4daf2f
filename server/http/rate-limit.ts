// Per request, what the settings say of its rate: PocketBase's rate-limit rules (core/rate-limits.ts),
// each request's client as request.ts clientOf names it (the trusted proxy's client: app.ts reads it
// first), with the labels
// PocketBase gives each route: a collection route's `<collection>:<action>` and `*:<action>` tags
// (its apis/record_auth.go, record_crud.go, file.go), then `METHOD /path` and `/path`.
import type { H3Event } from 'h3';
import type { Core } from '../core/index.js';
import type { RateLimitRequest } from '../core/rate-limits.js';
import type { SubRequestLimit } from '../core/batch.js';
import { isSuperuser } from '../model/types.js';
import { authOf } from './caller.js';
import { clientOf } from './request.js';

/** PocketBase's tags of each auth route (`auth` on those that sign in). */
const AUTH_TAGS: Record<string, string[]> = {
  'GET auth-methods': ['listAuthMethods'],
  'POST auth-refresh': ['authRefresh'],
  'POST auth-with-password': ['authWithPassword', 'auth'],
  'POST auth-with-oauth2': ['authWithOAuth2', 'auth'],
  'POST request-otp': ['requestOTP'],
  'POST auth-with-otp': ['authWithOTP', 'auth'],
  'POST request-password-reset': ['requestPasswordReset'],
  'POST confirm-password-reset': ['confirmPasswordReset'],
  'POST request-verification': ['requestVerification'],
  'POST confirm-verification': ['confirmVerification'],
  'POST request-email-change': ['requestEmailChange'],
  'POST confirm-email-change': ['confirmEmailChange'],
};
const RECORDS_TAGS: Record<string, string> = { GET: 'list', POST: 'create' };
const RECORD_TAGS: Record<string, string> = { GET: 'view', PATCH: 'update', DELETE: 'delete' };

/** The collection route a request is, with PocketBase's pattern and tags; null for any other. */
function collectionRoute(method: string, path: string): { collection: string; route: string; tags: string[]; alsoGlobal: boolean } | null {
  const parts = path.split('/');
  // ['', 'api', 'collections', c, ...]
  if (parts[1] !== 'api') return null;
  if (parts[2] === 'collections' && parts.length >= 5 && parts[3] !== '') {
    const rest = parts.slice(4);
    if (rest.length > 1 && rest[rest.length - 1] === '') rest.pop(); // a trailing slash
    const c = parts[3];
    if (rest.length === 1 && rest[0] === 'records' && RECORDS_TAGS[method]) {
      return { collection: c, route: `${method} /api/collections/{collection}/records`, tags: [RECORDS_TAGS[method]], alsoGlobal: true };
    }
    if (rest.length === 2 && rest[0] === 'records' && rest[1] !== '' && RECORD_TAGS[method]) {
      return { collection: c, route: `${method} /api/collections/{collection}/records/{id}`, tags: [RECORD_TAGS[method]], alsoGlobal: true };
    }
    const tags = rest.length === 1 ? AUTH_TAGS[`${method} ${rest[0]}`] : undefined;
    if (tags) return { collection: c, route: `${method} /api/collections/{collection}/${rest[0]}`, tags, alsoGlobal: false };
    return null;
  }
  if (parts[2] === 'files' && parts.length === 6 && (method === 'GET' || method === 'HEAD')) {
    return { collection: parts[3], route: 'GET /api/files/{collection}/{recordId}/{filename}', tags: ['file'], alsoGlobal: false };
  }
  return null;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The middleware: after the caller is known (audience), before any route's work. */
export function rateLimitMiddleware(core: Core) {
  return (event: H3Event): void => {
    const settings = core.settings.cached();
    if (!settings.rateLimits.enabled) return;
    const auth = authOf(event);
    if (auth !== null && isSuperuser(auth)) return; // as PocketBase: superusers are never limited
    const method = event.req.method.toUpperCase();
    const path = event.url.pathname;
    const route = collectionRoute(method, path);
    const c = route ? core.registry.get(decoded(route.collection)) : undefined;
    const req: RateLimitRequest = {
      method,
      path,
      signedIn: auth !== null,
      client: clientOf(event),
      collection: route && c ? { id: c.id, name: c.name, route: route.route, tags: route.tags, alsoGlobal: route.alsoGlobal } : null,
    };
    core.rateLimits.check(settings.rateLimits, req);
  };
}

/**
 * A batch's sub-requests, each checked as PocketBase's record handlers check theirs: its collection's
 * tag (`create`, `update`, `delete`) and its own method and path, as the batch's caller (core/batch.ts
 * calls it once a sub-request's action is known).
 */
export function batchRateLimit(event: H3Event, core: Core): SubRequestLimit {
  return (c, method, url) => {
    const settings = core.settings.cached();
    if (!settings.rateLimits.enabled) return;
    const auth = authOf(event);
    if (auth !== null && isSuperuser(auth)) return;
    const path = url.split('?')[0] ?? '';
    const tag = method === 'POST' ? 'create' : method === 'PATCH' ? 'update' : 'delete';
    const route = `${method} /api/collections/{collection}/records${method === 'POST' ? '' : '/{id}'}`;
    core.rateLimits.check(settings.rateLimits, {
      method, path, signedIn: auth !== null, client: clientOf(event),
      collection: { id: c.id, name: c.name, route, tags: [tag], alsoGlobal: false },
    });
  };
}
