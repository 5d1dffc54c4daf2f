// The shape of a session token. Sessions stay server-side (the `_sessions` row decides, by the hash
// of the token's secret), but PocketBase's SDKs judge "signed in" by decoding a JWT's middle segment:
// the JS SDK's `isValid` wants a non-empty JSON object whose `exp` (seconds) is in the future, read
// with the platform `atob`; the Dart SDK wants three segments and a numeric `exp`. So a token is
//
//   <8 secret chars> . <base64 of {"exp":<session expiry, seconds>}> . <9 secret chars>
//
// 43 characters (the spec's length). The 17 secret characters are base64url from a CSPRNG (102 bits);
// the middle segment is a claim for the client's eyes only: the server never reads it, so a refresh
// re-shapes the same secret with the new expiry and every copy of the token names the same session.
// `{"exp":` followed by ten digits and `}` is 18 bytes, so its base64 is 24 characters without
// padding, and (worked through for every digit) never holds `+` or `/`. Tokens issued before this
// shape (43 characters of base64url, no dots) are hashed whole and keep working.
import { randomBytes } from 'node:crypto';

const HEAD = 8;
const TAIL = 9;

/** 17 characters of base64url: 102 random bits. */
export function newSecret(): string {
  return randomBytes(13).toString('base64url').slice(0, HEAD + TAIL);
}

/** The token the client holds for `secret`, claiming `expires` (ISO time) as its `exp`. */
export function shapeToken(secret: string, expires: string): string {
  const exp = Math.floor(Date.parse(expires) / 1000);
  const claims = Buffer.from(JSON.stringify({ exp })).toString('base64');
  return `${secret.slice(0, HEAD)}.${claims}.${secret.slice(HEAD)}`;
}

/** What the session's hash is made from: the secret of a shaped token, an older token whole. */
export function secretOf(token: string): string {
  const parts = token.split('.');
  if (parts.length === 3 && parts[0].length === HEAD && parts[2].length === TAIL) return parts[0] + parts[2];
  return token;
}

/** A token of the shape before this one (no claims): a refresh gives its session a shaped one. */
export function isUnshaped(token: string): boolean {
  return !token.includes('.');
}
