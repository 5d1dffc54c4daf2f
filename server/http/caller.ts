// Who is calling: a bearer token (`Authorization: Bearer <token>`, or the bare token as the PocketBase
// SDK sends it) or the `service_session` cookie. Unknown or expired tokens act as signed out. Requests
// authenticated by cookie that change state must carry an Origin naming this site (CSRF).
import type { H3Event } from 'h3';
import { getCookie } from 'h3';
import { ApiError, forbidden, unauthorized } from '../errors.js';
import type { Core } from '../core/index.js';
import { SESSION_SECONDS } from '../core/session-store.js';
import type { AuthInfo } from '../model/types.js';
import { isSuperuser } from '../model/types.js';
import { setState, stateOf } from './request.js';

export const COOKIE_NAME = 'service_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function bearerOf(event: H3Event): string | null {
  return bearerFrom(event.req.headers.get('authorization'));
}

/** The token an Authorization header carries (`Bearer <token>`, or the bare token), or null. */
export function bearerFrom(header: string | null): string | null {
  if (!header) return null;
  const token = header.replace(/^bearer\s+/i, '').trim();
  return token === '' ? null : token;
}

/**
 * Does the request's Origin name this site? Browsers send Origin as exactly `scheme://host[:port]`
 * (lower-case host, default port left out, no path, no user info), so it must equal this server's own
 * origin as built from the request's scheme and Host: `https://` for an http server, a trailing slash or
 * `user@` are someone else's origin, or no browser's.
 */
export function sameOrigin(event: H3Event): boolean {
  const origin = event.req.headers.get('origin');
  const host = event.req.headers.get('host') ?? event.url.host;
  if (!origin || !host) return false;
  try {
    return origin === new URL(`${event.url.protocol}//${host}`).origin;
  } catch {
    return false;
  }
}

export function authMiddleware(core: Core) {
  const viaCookie = async (event: H3Event, cookie: string): Promise<void> => {
    const auth = await core.sessions.resolve(cookie);
    if (auth && !SAFE_METHODS.has(event.req.method.toUpperCase()) && !sameOrigin(event)) {
      throw new ApiError(403, 'Cross-site requests with the session cookie are not allowed.');
    }
    setState(event, { auth, bearer: null, viaCookie: auth !== null });
  };
  // a guest's request (no token, no cookie) goes on at once: only a session lookup needs the store
  return (event: H3Event): Promise<void> | undefined => {
    const bearer = bearerOf(event);
    if (bearer !== null) {
      return core.sessions.resolve(bearer).then((auth) => setState(event, { auth, bearer, viaCookie: false }));
    }
    const cookie = getCookie(event, COOKIE_NAME);
    if (cookie) return viaCookie(event, cookie);
    setState(event, { auth: null, bearer: null, viaCookie: false });
    return undefined;
  };
}

export function authOf(event: H3Event): AuthInfo | null {
  return stateOf(event).auth;
}

export function requireAuth(event: H3Event): AuthInfo {
  const auth = authOf(event);
  if (!auth) throw unauthorized();
  return auth;
}

/** Collection management is for superusers: 401 signed out, 403 for other records. */
export function requireSuperuser(event: H3Event): AuthInfo {
  const auth = requireAuth(event);
  if (!isSuperuser(auth)) throw forbidden('The authorized record is not allowed to perform this action.');
  return auth;
}

/** The cookie lives as long as the session it names (the session's own lifetime decides). */
export function sessionCookie(token: string): string {
  return `${COOKIE_NAME}=${token}; Path=/; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Lax; Secure`;
}

export function clearedCookie(): string {
  return `${COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure`;
}
