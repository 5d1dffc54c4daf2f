// OAuth2 sign-in as PocketBase's (apis/record_auth_methods.go, apis/record_auth_with_oauth2.go): the
// providers auth-methods lists (auth URL, state, PKCE verifier and challenge: all kept by the client,
// as PocketBase keeps nothing between the two calls, so any team-server node answers the second), and
// auth-with-oauth2: the code exchanged at the provider (with the PKCE verifier), its user read, then
// the linked record signed in, or the account with the provider's VERIFIED e-mail linked, or a new
// record created under the createRule. Outbound requests are bounded in time and size.
import { createHash, createPublicKey, randomInt, verify } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FileStorage } from '../files/storage.js';
import { StagedFile } from '../files/staged.js';
import { effectiveMaxSize, takesMime } from './fields/file.js';
import { validateText } from './fields/text.js';
import { uploadsIn } from './writes/file-uploads.js';
import { capped } from './writes/hook-files.js';
import { getPublic } from './public-fetch.js';
import type { CoreEnv } from './env.js';
import { ApiError, badRequest, fieldError, forbidden, type ErrorData } from '../errors.js';
import { isRecord } from '../json-object.js';
import { authOptionsOf } from './auth-options.js';
import { addLink, findLink, removeLinks } from './external-auths.js';
import { newId } from './ids.js';
import { storeFailure } from './store-failures.js';
import { pick } from './pick-fields.js';
import { toStoredValue } from './field-values.js';
import { PROVIDERS, type OAuth2User, type ProviderSpec } from './oauth2-providers.js';
import type { RequestContext } from './request-context.js';
import type { RecordWrites } from './writes/funnel.js';
import type { PreparedWrite } from './writes/prepared.js';
import type { Auth, SignIn } from './sign-in.js';
import { ident } from '../filter/sql.js';
import { SUPERUSERS_ID, type Collection, type FileField, type OAuth2ProviderConfig, type Row } from '../model/types.js';

/** PocketBase gives the whole exchange 30 seconds; each request here gets at most that. */
export const OAUTH2_TIMEOUT_MS = 30_000;
/** A token or user-info answer larger than this is refused (they are a few KiB). */
export const OAUTH2_ANSWER_BYTES = 1024 * 1024;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** PocketBase's security.RandomString. */
function randomString(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** Go's url.Values.Encode: keys sorted, QueryEscape'd (a space is `+`). */
function encodeQuery(values: Record<string, string>): string {
  return Object.keys(values).sort().map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(values[k]!).replace(/%20/g, '+')}`).join('&');
}

interface Provider { name: string; config: OAuth2ProviderConfig; spec: ProviderSpec; pkce: boolean; authURL: string; tokenURL: string; userInfoURL: string; displayName: string }

function providerOf(config: OAuth2ProviderConfig): Provider | null {
  const make = Object.hasOwn(PROVIDERS, config.name) ? PROVIDERS[config.name] : undefined;
  if (!make) return null;
  const spec = make();
  return {
    name: config.name, config, spec, pkce: config.pkce ?? spec.pkce,
    authURL: config.authURL || spec.authURL, tokenURL: config.tokenURL || spec.tokenURL, userInfoURL: config.userInfoURL || spec.userInfoURL,
    displayName: config.displayName || spec.displayName || config.name,
  };
}

/** One bounded outbound request: its time (OAUTH2_TIMEOUT_MS) and its answer's size. */
async function send(url: string, init: RequestInit): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(OAUTH2_TIMEOUT_MS) });
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > OAUTH2_ANSWER_BYTES) throw new Error('answer too large');
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (!reader) break;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > OAUTH2_ANSWER_BYTES) {
      await reader.cancel();
      throw new Error('answer too large');
    }
    chunks.push(value);
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: Buffer.concat(chunks).toString('utf8') };
}

interface TokenAnswer { accessToken: string; refreshToken: string; expiry: string; idToken: string }

/** PocketBase's DateTime text ("2006-01-02 15:04:05.000Z"), '' for none. */
const dateTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ');

/** The code exchanged at the token URL, as golang.org/x/oauth2 does: the client's credentials in HTTP Basic, then (refused) in the body. */
async function exchange(p: Provider, code: string, verifier: string, redirectURL: string): Promise<TokenAnswer> {
  const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: redirectURL };
  if (p.pkce) form.code_verifier = verifier;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(p.config.clientId)}:${encodeURIComponent(p.config.clientSecret)}`).toString('base64')}`;
  const post = (body: Record<string, string>, auth: string | null) => send(p.tokenURL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: encodeQuery(body),
  });
  let res = await post(form, basic);
  if (res.status === 400 || res.status === 401) res = await post({ ...form, client_id: p.config.clientId, client_secret: p.config.clientSecret }, null);
  if (res.status < 200 || res.status > 299) throw new Error(`token endpoint answered ${res.status}`);
  let fields: Record<string, unknown>;
  if (res.type.includes('json')) {
    const parsed: unknown = JSON.parse(res.text);
    fields = isRecord(parsed) ? parsed : {};
  } else fields = Object.fromEntries(new URLSearchParams(res.text));
  const accessToken = typeof fields.access_token === 'string' ? fields.access_token : '';
  if (accessToken === '') throw new Error('no access_token');
  const expiresIn = Number(fields.expires_in);
  return {
    accessToken,
    refreshToken: typeof fields.refresh_token === 'string' ? fields.refresh_token : '',
    idToken: typeof fields.id_token === 'string' ? fields.id_token : '',
    expiry: Number.isFinite(expiresIn) && expiresIn > 0 ? dateTime(Date.now() + expiresIn * 1000) : '',
  };
}

/**
 * The claims of an id_token taken straight from the provider's token endpoint (PocketBase trusts it
 * so for Microsoft's e-mail claims): its times checked, not its signature.
 */
function unverifiedClaims(idToken: string): Record<string, unknown> {
  const body = idToken.split('.')[1];
  if (body === undefined) throw new Error('no id_token');
  const claims: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  if (!isRecord(claims)) throw new Error('malformed id_token');
  const now = Date.now() / 1000;
  if (typeof claims.exp === 'number' && now > claims.exp + ID_TOKEN_LEEWAY_S) throw new Error('id_token expired');
  if (typeof claims.iat === 'number' && claims.iat > now + ID_TOKEN_LEEWAY_S) throw new Error('id_token issued in the future');
  return claims;
}

/** PocketBase's id_token leeway for its times. */
const ID_TOKEN_LEEWAY_S = 300;
const JWS_ALGORITHMS: Record<string, string | null> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512', EdDSA: null };

/**
 * The claims of the id_token the token endpoint answered, checked as PocketBase's parseIdToken: its
 * times (5 minutes' leeway), the client id among its audiences, its issuer among `issuers` when given,
 * and its signature by a key of `jwksURL` when given (RSA or Ed25519, the key's own `alg`).
 */
async function idTokenClaims(p: Provider, idToken: string): Promise<Record<string, unknown>> {
  const parts = idToken.split('.');
  if (parts.length !== 3) throw new Error('no id_token');
  const part = (i: number): Record<string, unknown> => {
    const v: unknown = JSON.parse(Buffer.from(parts[i]!, 'base64url').toString('utf8'));
    if (!isRecord(v)) throw new Error('malformed id_token');
    return v;
  };
  const header = part(0);
  const claims = part(1);
  const now = Date.now() / 1000;
  const num = (k: string) => (typeof claims[k] === 'number' ? (claims[k] as number) : null);
  if (num('exp') !== null && now > num('exp')! + ID_TOKEN_LEEWAY_S) throw new Error('id_token expired');
  if (num('iat') !== null && num('iat')! > now + ID_TOKEN_LEEWAY_S) throw new Error('id_token issued in the future');
  if (num('nbf') !== null && num('nbf')! > now + ID_TOKEN_LEEWAY_S) throw new Error('id_token not valid yet');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(p.config.clientId)) throw new Error('id_token is for another client');
  const extra = p.config.extra ?? {};
  const issuers = Array.isArray(extra.issuers) ? extra.issuers.filter((i): i is string => typeof i === 'string') : p.spec.issuers ?? [];
  if (issuers.length > 0 && !issuers.includes(String(claims.iss))) throw new Error('id_token of another issuer');
  const jwksURL = typeof extra.jwksURL === 'string' && extra.jwksURL !== '' ? extra.jwksURL : p.spec.jwksURL ?? '';
  if (jwksURL !== '') {
    const res = await send(jwksURL, { headers: { accept: 'application/json' } });
    const set: unknown = JSON.parse(res.text);
    const keys = isRecord(set) && Array.isArray(set.keys) ? set.keys : [];
    const key = keys.find((k): k is Record<string, unknown> => isRecord(k) && k.kid === header.kid && typeof k.alg === 'string' && k.alg !== '');
    if (!key || header.alg !== key.alg || !Object.hasOwn(JWS_ALGORITHMS, String(key.alg))) throw new Error('no key for the id_token');
    const publicKey = createPublicKey({ key: key as import('node:crypto').JsonWebKey, format: 'jwk' });
    const ok = verify(JWS_ALGORITHMS[String(key.alg)] ?? null, Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2]!, 'base64url'));
    if (!ok) throw new Error('id_token signature is not valid');
  }
  return claims;
}

async function fetchUser(p: Provider, token: TokenAnswer): Promise<OAuth2User> {
  const get = async (url: string): Promise<unknown> => {
    const res = await send(url, { headers: { authorization: `Bearer ${token.accessToken}`, accept: 'application/json' } });
    if (res.status < 200 || res.status > 299) throw new Error(`user info answered ${res.status}`);
    return JSON.parse(res.text) as unknown;
  };
  // an OpenID provider without a user-info URL, and Apple: the id_token's claims (checked: idToken)
  const raw = p.userInfoURL === '' ? await idTokenClaims(p, token.idToken) : await get(p.userInfoURL);
  if (!isRecord(raw)) throw new Error('user info is not an object');
  const user = await p.spec.user(raw, get, () => unverifiedClaims(token.idToken), p.config.extra ?? {});
  if (user.id === '') throw new Error('user info names no id');
  return { ...user, rawUser: raw, accessToken: token.accessToken, refreshToken: token.refreshToken, expiry: token.expiry };
}

/** PocketBase gives an avatar's download 15 seconds (here: all of it, redirects included). */
export const AVATAR_TIMEOUT_MS = 15_000;
/** Redirects an avatar's download follows at most. */
export const AVATAR_REDIRECTS = 3;

/** The hosts (URL.host) of the provider's URLs as configured: its own pictures are fetched from them as the admin set them. */
function providerHosts(p: Provider): Set<string> {
  const hosts = new Set<string>();
  for (const url of [p.authURL, p.tokenURL, p.userInfoURL]) {
    if (url === '') continue;
    try {
      hosts.add(new URL(url).host);
    } catch {
      // not a URL: no host trusted for it
    }
  }
  return hosts;
}

/**
 * The picture at `url` received as an upload (files/storage.ts) for `field`, or null when it cannot be
 * had within the bounds: http(s) only, a public address or the provider's host at every hop
 * (public-fetch.ts), AVATAR_TIMEOUT_MS, the field's maxSize, and an image the field takes.
 */
async function downloadAvatar(storage: FileStorage, url: string, field: FileField, trustedHosts: ReadonlySet<string>, report: (error: unknown) => void): Promise<StagedFile | null> {
  const maxBytes = effectiveMaxSize(field);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${AVATAR_TIMEOUT_MS / 1000} s`)), AVATAR_TIMEOUT_MS);
  try {
    const res = await getPublic(url, { trustedHosts, maxRedirects: AVATAR_REDIRECTS, signal: abort.signal, headers: { accept: 'image/*' } });
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299 || Number(res.headers['content-length'] ?? '0') > maxBytes) {
      res.destroy();
      throw new Error(status < 200 || status > 299 ? `answered ${status}` : `larger than ${maxBytes} bytes`);
    }
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'avatar';
    const file = await storage.receive(Readable.from(capped(res, maxBytes, () => res.destroy())), name, maxBytes);
    if (!(file instanceof StagedFile)) throw new Error(`larger than ${maxBytes} bytes`);
    if (!file.sniffed.mime.startsWith('image/') || !takesMime(field, file.sniffed.mime)) {
      await storage.discard([file]);
      throw new Error(`${file.sniffed.mime} is not an image the field takes`);
    }
    return file;
  } catch (err) {
    report(new Error(`OAuth2 avatar not downloaded from ${url}: ${err instanceof Error ? err.message : String(err)}`));
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** `verified` = true as the collection stores it (field-values.ts). */
const verifiedTrue = (c: Collection) => toStoredValue(c.fields.find((f) => f.name === 'verified')!, true);

/** How long the name Apple posts to /api/oauth2-redirect waits for its auth-with-oauth2 (PocketBase: a minute). */
export const REDIRECT_NAME_MS = 60_000;
/** Names waiting at once (each at most 150 characters): a bound on what redirects can make this node keep. */
const REDIRECT_NAMES_MAX = 10_000;

/** Apple's posted `user` (`{"name":{"firstName","lastName"}}`) as PocketBase reads it: the full name, at most 150 characters, or ''. */
export function appleName(posted: string): string {
  try {
    const v: unknown = JSON.parse(posted);
    const name = isRecord(v) && isRecord(v.name) ? v.name : {};
    const part = (k: string) => (typeof name[k] === 'string' ? (name[k] as string) : '');
    return `${part('firstName')} ${part('lastName')}`.slice(0, 150).trim();
  } catch {
    return '';
  }
}

export function createOAuth2(env: Pick<CoreEnv, 'store' | 'registry' | 'sessions' | 'credentials' | 'dialect' | 'storage' | 'report' | 'now'>, auth: Auth, writes: RecordWrites) {
  const { store, sessions, credentials: { passwords }, dialect, storage, report, now } = env;
  /**
   * Apple posts the user's name once, to the redirect, beside the code; PocketBase keeps it a minute
   * under that code for the auth-with-oauth2 that follows. In memory, per node (on a team server the
   * redirect and the sign-in reach the same node with the sticky sessions the redirect needs anyway).
   */
  const redirectNames = new Map<string, { name: string; until: number }>();
  const takeRedirectName = (code: string): string => {
    const kept = redirectNames.get(code);
    redirectNames.delete(code);
    return kept && kept.until > now() ? kept.name : '';
  };

  /** The providers auth-methods lists, each with a fresh state and PKCE pair (PocketBase keeps none of them). */
  function providersOf(c: Collection): unknown[] {
    const o = authOptionsOf(c).oauth2;
    if (!o.enabled) return [];
    const out: unknown[] = [];
    for (const config of o.providers) {
      const p = providerOf(config);
      if (!p) continue;
      const state = randomString(30);
      const params: Record<string, string> = { client_id: config.clientId, response_type: 'code', scope: p.spec.scopes.join(' '), state };
      if (p.name === 'apple') params.response_mode = 'form_post'; // Apple posts its answer (to /api/oauth2-redirect)
      let codeVerifier = '';
      let codeChallenge = '';
      let codeChallengeMethod = '';
      if (p.pkce) {
        codeVerifier = randomString(43);
        codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
        codeChallengeMethod = 'S256';
        Object.assign(params, { code_challenge: codeChallenge, code_challenge_method: codeChallengeMethod });
      }
      // an empty redirect_uri last, for the client to append its own (PocketBase's answer)
      const authURL = `${p.authURL}${p.authURL.includes('?') ? '&' : '?'}${encodeQuery(params)}&redirect_uri=`;
      out.push({ name: p.name, displayName: p.displayName, state, authURL, authUrl: authURL, codeVerifier, codeChallenge, codeChallengeMethod });
    }
    return out;
  }

  function readForm(c: Collection, body: Record<string, unknown>) {
    const errors: ErrorData = {};
    const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : '');
    for (const k of ['provider', 'code', 'codeVerifier', 'redirectURL', 'redirectUrl']) {
      if (body[k] !== undefined && body[k] !== null && typeof body[k] !== 'string') errors[k] = fieldError('validation_invalid_value', 'Must be a string.');
    }
    if (body.createData !== undefined && body.createData !== null && !isRecord(body.createData)) errors.createData = fieldError('validation_invalid_value', 'Must be an object.');
    const form = {
      provider: text('provider'), code: text('code'), codeVerifier: text('codeVerifier'),
      redirectURL: text('redirectURL') || text('redirectUrl'),
      createData: isRecord(body.createData) ? body.createData : {},
    };
    const config = authOptionsOf(c).oauth2.providers.find((p) => p.name === form.provider);
    if (errors.provider === undefined) {
      if (form.provider === '') errors.provider = fieldError('validation_required', 'Cannot be blank.');
      else if (!config) errors.provider = fieldError('validation_invalid_provider', `Provider with name "${form.provider}" is missing or is not enabled.`, { name: form.provider });
    }
    if (errors.code === undefined && form.code === '') errors.code = fieldError('validation_required', 'Cannot be blank.');
    if (errors.redirectURL === undefined && form.redirectURL === '') errors.redirectURL = fieldError('validation_required', 'Cannot be blank.');
    if (Object.keys(errors).length > 0) throw badRequest('An error occurred while loading the submitted data.', errors);
    return { ...form, config: config! };
  }

  async function byEmail(c: Collection, email: string): Promise<Row | undefined> {
    return store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE ${dialect.equalsNoCase(ident('email'))} LIMIT 1`, [email]);
  }

  /**
   * PocketBase's payload for a new record: createData, its e-mail or else the provider's, a random
   * password, the mapped fields. A createData e-mail that is no text is left for the create to refuse.
   */
  async function newRecordPayload(c: Collection, p: Provider, user: OAuth2User, createData: Record<string, unknown>): Promise<Record<string, unknown>> {
    const payload: Record<string, unknown> = { ...createData };
    if (payload.email === undefined || payload.email === null || payload.email === '') payload.email = user.email;
    if (typeof payload.password !== 'string' || payload.password === '') {
      payload.password = randomString(30);
      payload.passwordConfirm = payload.password;
    }
    const mapped = authOptionsOf(c).oauth2.mappedFields;
    const has = (k: string) => Object.hasOwn(payload, k);
    if (mapped.id !== '' && !has(mapped.id)) payload[mapped.id] = user.id;
    if (mapped.name !== '' && !has(mapped.name)) payload[mapped.name] = user.name;
    if (mapped.username !== '' && !has(mapped.username) && user.username !== '') {
      // as PocketBase: only a text field, only a username no record has yet, and only one the field
      // takes (its length and pattern: PocketBase's ValidatePlainValue); else left out, the sign-up goes on
      const field = c.fields.find((f) => f.name === mapped.username);
      const taken = await store.get(`SELECT 1 AS x FROM ${ident(c.name)} WHERE ${ident(mapped.username)} = ? LIMIT 1`, [user.username]);
      if (field?.type === 'text' && !taken && validateText(user.username, field) === null) payload[mapped.username] = user.username;
    }
    if (mapped.avatarURL !== '' && !has(mapped.avatarURL) && user.avatarURL !== '') {
      const field = c.fields.find((f) => f.name === mapped.avatarURL);
      if (field?.type === 'file') {
        // downloaded into the file field as PocketBase does, but only from a public address or the
        // provider's own host (downloadAvatar); one that cannot be had is left out, the sign-up goes on
        const file = await downloadAvatar(storage, user.avatarURL, field, providerHosts(p), report);
        if (file) payload[mapped.avatarURL] = file;
      } else payload[mapped.avatarURL] = user.avatarURL;
    }
    return payload;
  }

  return {
    /** The name a provider posted to /api/oauth2-redirect with `code` (Apple's `user`), kept for the sign-in with that code. */
    keepRedirectName(code: string, posted: string): void {
      const name = appleName(posted);
      if (name === '' || code === '' || code.length > 1000) return;
      const t = now();
      if (redirectNames.size >= REDIRECT_NAMES_MAX) {
        for (const [k, v] of redirectNames) if (v.until <= t) redirectNames.delete(k);
        if (redirectNames.size >= REDIRECT_NAMES_MAX) redirectNames.delete(redirectNames.keys().next().value as string);
      }
      redirectNames.set(code, { name, until: t + REDIRECT_NAME_MS });
    },

    /** The kept name of `code`, once ('' when none or past its minute). */
    takeRedirectName,

    /** What the SDK's listAuthMethods() reads (PocketBase's auth-methods): password, OAuth2 with its providers, MFA and OTP. */
    methods(name: string, ctx: RequestContext): unknown {
      const c = auth.authCollection(name);
      const identityFields = c.identityFields ?? ['email'];
      const providers = providersOf(c);
      const options = authOptionsOf(c);
      return pick({
        password: { enabled: true, identityFields },
        oauth2: { enabled: options.oauth2.enabled, providers },
        // PocketBase's apis/record_auth_methods.go: a method's duration only when it is enabled
        mfa: { enabled: options.mfa.enabled, duration: options.mfa.enabled ? options.mfa.duration : 0 },
        otp: { enabled: options.otp.enabled, duration: options.otp.enabled ? options.otp.duration : 0 },
      }, ctx.fields);
    },

    async signIn(name: string, body: Record<string, unknown>, ctx: RequestContext, userAgent: string): Promise<SignIn & { meta: unknown }> {
      const c = auth.authCollection(name);
      if (!authOptionsOf(c).oauth2.enabled) throw forbidden('The collection is not configured to allow OAuth2 authentication.');
      const form = readForm(c, body);
      const p = providerOf(form.config);
      if (!p) throw new ApiError(500, 'Missing or invalid provider config.');
      let token: TokenAnswer;
      try {
        token = await exchange(p, form.code, form.codeVerifier, form.redirectURL);
      } catch {
        throw badRequest('Failed to fetch OAuth2 token.');
      }
      let user: OAuth2User;
      try {
        user = await fetchUser(p, token);
      } catch {
        throw badRequest('Failed to fetch OAuth2 user.');
      }

      // Apple names the user only in its first redirect's post (PocketBase's record_auth_with_oauth2.go)
      if (p.name === 'apple' && user.name === '') user = { ...user, name: takeRedirectName(form.code) };

      let linked = false;
      /** The record this provider account signs in as: linked, found by its verified e-mail, or created (PocketBase's oauth2Submit). */
      const resolve = async (): Promise<{ id: string; isNew: boolean }> => {
        const caller = ctx.request.auth && ctx.request.auth.collection.id === c.id ? ctx.request.auth : null;
        const link = await findLink(store, c.id, p.name, user.id);
        linked = link !== undefined;
        let record: Row | undefined;
        if (link) {
          record = await store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [link.recordRef]);
          if (!record) throw badRequest('Failed to authenticate.');
        } else if (caller) record = caller.record;
        else if (user.email !== '') record = await byEmail(c, user.email); // a verified address only (oauth2-providers.ts)

        if (!record) {
          if (c.id === SUPERUSERS_ID) throw badRequest('Failed to authenticate.'); // superusers never sign up this way
          const payload = await newRecordPayload(c, p, user, form.createData);
          const id = typeof payload.id === 'string' && payload.id !== '' ? payload.id : newId();
          payload.id = id;
          const oauthCtx: RequestContext = { ...ctx, request: { ...ctx.request, context: 'oauth2', body: payload } };
          let create: PreparedWrite<unknown>;
          try {
            create = await writes.prepareCreate(c, payload, oauthCtx);
          } catch (err) {
            await storage.discard(uploadsIn(c, payload));
            if (err instanceof ApiError && err.status < 500) throw new ApiError(400, 'Failed to authenticate.', err.data);
            throw err;
          }
          const linkIt: PreparedWrite<unknown> = {
            async apply(tx) {
              // verified as long as the e-mail is the provider's (verified) one, even both empty; a
              // createData e-mail of another address stays unverified (PocketBase)
              await tx.run(`UPDATE ${ident(c.name)} SET "verified" = ? WHERE "id" = ? AND "email" = ?`, [verifiedTrue(c), id, user.email]);
              await addLink(tx, c.id, id, p.name, user.id);
            },
          };
          await writes.commit([create, linkIt]);
          return { id, isNew: true };
        }
        const r = record;
        const id = String(r.id);
        const email = typeof r.email === 'string' ? r.email : '';
        const verified = (r.verified as unknown) === true || r.verified === 1;
        const isCaller = caller !== null && String(caller.record.id) === id;
        // an unverified account of that address: whoever registered it first loses its password (PocketBase)
        const newPassword = !isCaller && email !== '' && !verified ? await passwords.hash(randomString(30), ctx.request.client) : null;
        await store.write(async (tx) => {
          if (newPassword !== null) {
            await tx.run(`UPDATE ${ident(c.name)} SET "password" = ? WHERE "id" = ?`, [newPassword, id]);
            await sessions.endAllFor(tx, c.id, id);
            // and, claimed by its e-mail, the links it made: another provider account linked while
            // signed in would sign in as the account once it is the address's owner's (PocketBase keeps them)
            if (!link) await removeLinks(tx, c.id, id);
          }
          if (email === '' && user.email !== '') await tx.run(`UPDATE ${ident(c.name)} SET "email" = ? WHERE "id" = ?`, [user.email, id]);
          const nowEmail = email === '' ? user.email : email;
          if (!verified && (nowEmail === '' || nowEmail === user.email)) await tx.run(`UPDATE ${ident(c.name)} SET "verified" = ? WHERE "id" = ?`, [verifiedTrue(c), id]);
          if (!link) await addLink(tx, c.id, id, p.name, user.id);
        });
        return { id, isNew: false };
      };
      let resolved: { id: string; isNew: boolean };
      try {
        resolved = await resolve();
      } catch (err) {
        // the same provider account signing in twice at once: the other request linked it first (a unique
        // index refused this one, nothing of it kept), so this one signs in through that link
        if (!linked && (await findLink(store, c.id, p.name, user.id))) resolved = await resolve();
        // else a unique index refused the link (one per provider and record) or the e-mail: PocketBase's 400
        else if (storeFailure(err)?.kind === 'unique') throw badRequest('Failed to authenticate.');
        else throw err;
      }

      const row = await store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [resolved.id]);
      if (!row) throw badRequest('Failed to authenticate.');
      // PocketBase's RecordAuthResponse with the method `oauth2`: the authRule (403), MFA (MfaRequired:
      // the 401 {mfaId}, the record linked or created meanwhile, as PocketBase's), the session, the alert
      const signedIn = await auth.complete(c, row, { ...ctx, request: { ...ctx.request, context: 'oauth2' } }, userAgent, 'oauth2');
      return { ...signedIn, meta: { ...user, avatarUrl: user.avatarURL, isNew: resolved.isNew } };
    },
  };
}

export type OAuth2 = ReturnType<typeof createOAuth2>;
