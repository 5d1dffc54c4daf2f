// Percent-decoding of URL parts a client wrote itself (a batch sub-request's URL; the admin UI's paths):
// a malformed escape (`%E0%A4%A`, `%zz`) is the client's 400, as h3 answers for a request's own URL,
// never a URIError that ends as a 500 with a logged stack. Nothing is decoded leniently (no U+FFFD
// stands in for bytes the client sent).
import { badRequest, type ApiError } from '../errors.js';
import { setOwn } from './own-keys.js';

export const invalidEncoding = (): ApiError => badRequest('The request URL holds an invalid percent-encoding.');

/** `decodeURIComponent`, with a malformed escape refused as the client's 400. */
export function decodeUrlComponent(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalidEncoding();
  }
}

/**
 * A query string (without its `?`) as URLSearchParams reads it (`&`-separated, the first `=` splits,
 * `+` is a space), the first value of each name kept, as the request's own query (`http/request.ts`).
 */
export function parseQuery(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeUrlComponent((eq < 0 ? pair : pair.slice(0, eq)).replaceAll('+', ' '));
    const value = eq < 0 ? '' : decodeUrlComponent(pair.slice(eq + 1).replaceAll('+', ' '));
    if (!Object.hasOwn(out, key)) setOwn(out, key, value);
  }
  return out;
}
