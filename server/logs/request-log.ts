// What a request's log holds (PocketBase's apis/middlewares.go logRequest): message `METHOD /path?query`,
// data {type: "request", execTime, error, details, url, method, status, referer, userAgent, auth, authId,
// userIP, remoteIP}. The HTTP layer hands over the facts when the response is ready; the log is made
// from them when its batch is written (logger.ts), never on the request's path.
//
// Secrets: bodies are never logged (so no password is); query values that carry a secret (a file token,
// an OAuth2 code or state, anything named like a token, password, secret or key) are replaced with
// `[redacted]`, in the url and the message alike, and in the referer (a same-origin page's whole URL, as
// `/reset?token=...` sends it with each API call it makes). PocketBase logs the URL as it came and skips the
// successful logs of `/api/oauth2-redirect` instead; Deskbase redacts and skips both ways.

export interface RequestFacts {
  method: string;
  /** The request target as received: path and query. */
  url: string;
  status: number;
  /** Time to the response, in ms. */
  execTime: number;
  userAgent: string;
  referer: string;
  /** The caller's auth collection name, '' for a guest. */
  auth: string;
  authId?: string;
  userIP?: string;
  remoteIP?: string;
  /** A failed request's error message and the envelope's `data`. */
  error?: string;
  details?: unknown;
}

/** Query parameter names whose values are secrets. */
const SECRET_PARAM = /token|password|secret|key|code|state|otp|signature/i;
export const REDACTED = '[redacted]';

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The request target with secret query values replaced; the path and other parameters kept as sent. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch { /* a malformed escape: judged as written */ }
    return eq >= 0 && SECRET_PARAM.test(name) ? `${rawName}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** Go's url.PathUnescape, as PocketBase makes the message: every %XX decoded, `+` kept. */
function unescapePath(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** The log of one request: its level (error for a failed one, as PocketBase), message and data. */
export function requestLog(f: RequestFacts): { level: number; message: string; data: Record<string, unknown> } {
  const method = cut(f.method.toUpperCase(), 50);
  const url = cut(redactUrl(f.url), 3000);
  const data: Record<string, unknown> = { type: 'request', execTime: f.execTime };
  if (f.error !== undefined) {
    data.error = f.error;
    data.details = f.details ?? null;
  }
  data.url = url;
  data.method = method;
  data.status = f.status;
  data.referer = cut(redactUrl(f.referer), 2000);
  data.userAgent = cut(f.userAgent, 2000);
  data.auth = f.auth;
  if (f.authId !== undefined) data.authId = f.authId;
  if (f.userIP !== undefined) data.userIP = f.userIP;
  if (f.remoteIP !== undefined) data.remoteIP = f.remoteIP;
  return { level: f.error !== undefined ? 8 : 0, message: `${method} ${unescapePath(url)}`, data };
}
