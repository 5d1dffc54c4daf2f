// The shape of a session token. Sessions stay server-side (the `_sessions` row decides), but the
// PocketBase SDKs judge a token by decoding a JWT's middle segment: the JS SDK's `isValid` wants a
// non-empty JSON object whose `exp` (seconds), if any, is in the future; its `isSuperuser` wants
// `type == "auth"` (with the record's `collectionName == "_superusers"`); cookies take their Expires
// from `exp`; the Dart SDK wants three segments. The spec fixes tokens at 43 characters, and both
// claims (`{"type":"auth","exp":1234567890}`, 32 bytes, 43 characters of base64 alone) do not fit
// beside any secret. So a token carries one claim, by its collection:
//
//   superusers:  <10 secret> . <base64 {"type":"auth"}> . <11 secret>   (20 claims chars, 126 bits)
//   the others:  <8 secret>  . <base64 {"exp":<seconds>}> . <9 secret>  (24 claims chars, 102 bits)
//
// The secret characters are base64url from a CSPRNG; the session row stores the SHA-256 of the secret
// (the two outer segments) and the claims it issued, so a token is accepted only exactly as issued
// (session-store.ts). Both claim segments are in atob's alphabet (no `-`/`_`: `{"exp":` with ten
// digits and `}` is 18 bytes, worked through for every digit; `{"type":"auth"}` is a constant).
// Tokens issued before (43 base64url characters without dots; or `8.24.9` for a superuser) are
// recognised as such (`TokenParts.kind`).
import { randomBytes } from 'node:crypto';

export type TokenKind = 'superuser' | 'expiring';

const UNSHAPED_LENGTH = 43;

const SHAPES: Record<TokenKind, { head: number; tail: number }> = {
  superuser: { head: 10, tail: 11 },
  expiring: { head: 8, tail: 9 },
};

/** `{"type":"auth"}`: what the SDK's isSuperuser reads; the same for every superuser token. */
export const SUPERUSER_CLAIMS = Buffer.from(JSON.stringify({ type: 'auth' })).toString('base64');

/** A secret for a token of `kind`: 21 (126 bits) or 17 (102 bits) characters of base64url. */
export function newSecret(kind: TokenKind): string {
  const { head, tail } = SHAPES[kind];
  return randomBytes(16).toString('base64url').slice(0, head + tail);
}

/** The exp claim (seconds) of a session expiring at `expires` (ISO time). */
export function expSeconds(expires: string): number {
  return Math.floor(Date.parse(expires) / 1000);
}

/** The claims segment of an expiring token claiming `exp` (seconds). */
export function expClaims(exp: number): string {
  return Buffer.from(JSON.stringify({ exp })).toString('base64');
}

/** The token for `secret`: a superuser's claims `type`, any other's the session's `exp`. */
export function shapeToken(kind: TokenKind, secret: string, exp: number): string {
  const { head } = SHAPES[kind];
  const claims = kind === 'superuser' ? SUPERUSER_CLAIMS : expClaims(exp);
  return `${secret.slice(0, head)}.${claims}.${secret.slice(head)}`;
}

export interface TokenParts {
  /** `unshaped`: a token from before claims (43 base64url characters, no dots), hashed whole. */
  kind: TokenKind | 'unshaped';
  /** What the session's hash is made from: the outer segments, or an unshaped token whole. */
  secret: string;
  /** The middle segment as presented ('' for an unshaped token). */
  claims: string;
}

/** A presented token's parts, or null when it has no shape a token was ever issued in. */
export function partsOf(token: string): TokenParts | null {
  const parts = token.split('.');
  // (only at the length they were issued in: a shaped token's secret alone is no token)
  if (parts.length === 1) return token.length === UNSHAPED_LENGTH ? { kind: 'unshaped', secret: token, claims: '' } : null;
  if (parts.length !== 3) return null;
  for (const kind of ['superuser', 'expiring'] as const) {
    const { head, tail } = SHAPES[kind];
    if (parts[0].length === head && parts[2].length === tail) return { kind, secret: parts[0] + parts[2], claims: parts[1] };
  }
  return null;
}
