// The e-mail flows of auth records, as PocketBase's apis/record_auth_{verification,password_reset,
// email_change}_*.go answer them: request (a 204 whatever the e-mail), confirm with the mailed token.
//
// Tokens. Deskbase keeps them server-side like sessions: a token is `<8>.<claims>.<9>` (the secret's
// characters base64url from a CSPRNG around a claims segment the PocketBase SDK decodes: id,
// collectionId, type, email, exp), and `_authTokens` stores only its SHA-256, with the record, the
// e-mail it was sent for and a mark of the record's password hash at the time. A token works once
// (its row is deleted inside the transaction that applies it), until it expires (the collection's
// `verificationToken` / `passwordResetToken` / `emailChangeToken` duration), and only while the record
// still has that e-mail and that password (a reset token stops working once the password changed by
// other means).
//
// No enumeration: a request answers 204 whether or not the e-mail exists, after the same work (the
// body checked, the client counted); the lookup, the token and the mail follow the answer, in the
// background (PocketBase sends in the background too; a failed send is kept in the outbox: mail/mailer.ts).
// Limits: per client and kind, REQUEST_LIMIT requests per window (a 429); per record, one mail of a
// kind per RESEND_SECONDS (PocketBase's resend key; further requests answer 204 and send nothing).
// Both are counted in the database, so every node of a team server counts alike.
import { otpAttemptKey, otpDecoyAttemptKey } from './account-rows.js';
import { removeLinks } from './external-auths.js';
import { provesPassword } from './writes/auth-record.js';
import type { CoreEnv } from './env.js';
import { ApiError, badRequest, fieldError, notFound, unauthorized, forbidden, type ErrorData } from '../errors.js';
import { isRecord } from '../json-object.js';
import { hashToken, newId } from './ids.js';
import { authOptionsOf } from './auth-options.js';
import { asCaller, internalContext, type RequestContext } from './request-context.js';
import type { RecordWrites } from './writes/funnel.js';
import type { SettingsService } from './settings.js';
import type { Mailer } from './mail/mailer.js';
import { resolveTemplate } from './mail/templates.js';
import { ident } from '../filter/sql.js';
import { SUPERUSERS_ID, type AuthInfo, type Collection, type EmailTemplate, type Row } from '../model/types.js';
import { randomBytes, randomInt } from 'node:crypto';
import type { Auth, SignIn } from './sign-in.js';
import type { WriteTx } from '../store/db.js';
import type { EventScope } from './events.js';
import { stoppable } from './stoppable.js';

export type MailTokenKind = 'verification' | 'passwordReset' | 'emailChange';
/** A mail PocketBase's `$mails` sends for a record (mails/record.go): its template and placeholders. */
export type RecordMail =
  | { kind: 'verification' | 'passwordReset' }
  | { kind: 'emailChange'; newEmail: string }
  | { kind: 'otp'; otpId: string; password: string }
  | { kind: 'authAlert'; info: string };
/** What a client's requests are counted by (REQUEST_LIMIT): the mailed tokens' kinds, and OTP requests. */
type RequestKind = MailTokenKind | 'otp';

/** PocketBase's limits on OTPs: 5 attempts per record in 180 s (then its OTPs are deleted), 10 live OTPs per record. */
export const OTP_ATTEMPTS = { max: 5, windowSeconds: 180 };
export const OTP_LIVE_MAX = 10;
/** The devices kept per record for the new-device alert (PocketBase's maxAuthOrigins). */
export const AUTH_ORIGINS_MAX = 5;
const INVALID_OTP = 'Invalid or expired OTP';
const OTP_ATTEMPT_PREFIX = 'otpAttempt:';

interface OtpRow {
  id: string;
  collectionId: string;
  recordId: string;
  codeHash: string;
  sentTo: string;
  created: number | string;
}

/** Requests one client may make per kind and collection in a window (a 429 past it). */
export const REQUEST_LIMIT = { max: 5, windowSeconds: 60 };
/** The first key of the PostgreSQL advisory locks (the two-key space) `_mailRequests`' counts are taken under. */
const COUNT_LOCK_CLASS = 0x646b6d72;
/** One mail of a kind per record in this time (PocketBase's 2 minutes). */
export const RESEND_SECONDS = 120;

interface TokenRow {
  id: string;
  tokenHash: string;
  kind: MailTokenKind;
  collectionId: string;
  recordId: string;
  email: string;
  newEmail: string;
  passwordMark: string;
  created: number;
  expires: number;
}

const INVALID_DATA = 'An error occurred while validating the submitted data.';
const SUPERUSERS_CHANGE = 'All superusers can change their emails directly.';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const invalidToken = () => badRequest(INVALID_DATA, { token: fieldError('validation_invalid_token', 'Invalid or expired token.') });
const required = () => fieldError('validation_required', 'Cannot be blank.');

/** The claims segment: standard base64 without `+`, `/` or `=` (atob reads it, a URL path keeps it), by spacing the JSON. */
export function claimsSegment(claims: Record<string, unknown>): string {
  const entries = Object.entries(claims).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  for (let pad = 0; ; pad++) {
    // spaces after the brace and before the closing one move every byte's place in the groups of three
    const text = `{${' '.repeat(pad % 16)}${entries.join(',')}${' '.repeat(Math.floor(pad / 16))}}`;
    const b64 = Buffer.from(text).toString('base64');
    if (!/[+/=]/.test(b64)) return b64;
    if (pad > 4096) return Buffer.from(text).toString('base64url').replace(/=+$/, ''); // never in practice
  }
}

function newToken(claims: Record<string, unknown>): string {
  const secret = randomBytes(16).toString('base64url').slice(0, 17);
  return `${secret.slice(0, 8)}.${claimsSegment(claims)}.${secret.slice(8)}`;
}

const passwordMark = (record: Row) => hashToken(`password:${String(record.password ?? '')}`);

function readEmail(body: unknown, key: string): string {
  const b = isRecord(body) ? body : {};
  const v = b[key];
  const errors: ErrorData = {};
  if (v === undefined || v === null || v === '') errors[key] = required();
  else if (typeof v !== 'string') errors[key] = fieldError('validation_invalid_value', 'Must be a string.');
  else if (v.length > 255) errors[key] = fieldError('validation_length_out_of_range', 'The length must be between 1 and 255.', { min: 1, max: 255 });
  else if (!EMAIL.test(v)) errors[key] = fieldError('validation_is_email', 'Must be a valid email address.');
  if (Object.keys(errors).length > 0) throw badRequest(INVALID_DATA, errors);
  return v as string;
}

function readString(body: unknown, key: string, errors: ErrorData): string {
  const v = isRecord(body) ? body[key] : undefined;
  if (v === undefined || v === null || v === '') errors[key] = required();
  else if (typeof v !== 'string') errors[key] = fieldError('validation_invalid_value', 'Must be a string.');
  return typeof v === 'string' ? v : '';
}

export interface AccountMailDeps {
  settings: SettingsService;
  mailer: Mailer;
  writes: RecordWrites;
  /** The session an OTP sign-in ends with (sign-in.ts: authRule, then a session as auth-with-password's). */
  signIn: Pick<Auth, 'complete'>;
}

export function createAccountMail(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'credentials' | 'report' | 'now'>, deps: AccountMailDeps) {
  const { store, dialect, registry, credentials: { passwords }, report, now } = env;
  const { settings, mailer, writes, signIn } = deps;

  function authCollection(name: string): Collection {
    const c = registry.get(name);
    if (!c) throw notFound('Missing or invalid collection context.');
    if (c.type !== 'auth') throw notFound('Missing or invalid auth collection context.');
    return c;
  }

  const durationOf = (c: Collection, kind: MailTokenKind): number => {
    const o = authOptionsOf(c);
    return (kind === 'verification' ? o.verificationToken : kind === 'passwordReset' ? o.passwordResetToken : o.emailChangeToken).duration;
  };
  const templateOf = (c: Collection, kind: MailTokenKind): EmailTemplate => {
    const o = authOptionsOf(c);
    return kind === 'verification' ? o.verificationTemplate : kind === 'passwordReset' ? o.resetPasswordTemplate : o.confirmEmailChangeTemplate;
  };

  /** The superuser rights the confirmations write with (the token is the authority). */
  function systemContext(): RequestContext {
    const su = registry.get(SUPERUSERS_ID) as Collection;
    return asCaller(internalContext(registry.lookup, dialect), { collection: su, record: { id: '' } as Row, sessionId: '' });
  }

  /**
   * Before a count of `key`'s rows and the insert that follows it: on a team server, where nodes' writes
   * run side by side (READ COMMITTED: each would count without the other's uncommitted row, so N nodes
   * would let N times the limit through), the key's lock, held to the commit. Within a node, and on the
   * desktop, writes take turns already.
   */
  async function lockKey(tx: Parameters<Parameters<typeof store.write>[0]>[0], key: string): Promise<void> {
    if (dialect.name === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(${COUNT_LOCK_CLASS}, hashtext(?))`, [key]);
  }

  /** Counts this request against the client (a 429 past REQUEST_LIMIT), inside the request's one write. */
  async function countClient(tx: Parameters<Parameters<typeof store.write>[0]>[0], c: Collection, kind: RequestKind, client: string): Promise<void> {
    const t = now();
    const key = `${kind}:${c.id}:${client}`;
    await lockKey(tx, key);
    // (OTP attempts are counted here too, over their own longer window: authWithOTP purges those)
    await tx.run(`DELETE FROM "_mailRequests" WHERE "at" < ? AND "key" NOT LIKE '${OTP_ATTEMPT_PREFIX}%'`, [t - REQUEST_LIMIT.windowSeconds * 1000]);
    const row = await tx.get<{ n: number | string }>('SELECT COUNT(*) AS "n" FROM "_mailRequests" WHERE "key" = ?', [key]);
    if (Number(row?.n ?? 0) >= REQUEST_LIMIT.max) throw new ApiError(429, 'Too Many Requests.');
    await tx.run('INSERT INTO "_mailRequests" ("key", "at") VALUES (?, ?)', [key, t]);
  }

  /** A new token row for `record` (after the per-record resend limit: null when one was sent lately). */
  async function issue(tx: Parameters<Parameters<typeof store.write>[0]>[0], c: Collection, record: Row, kind: MailTokenKind, newEmail = '', resend = true): Promise<string | null> {
    const t = now();
    await tx.run('DELETE FROM "_authTokens" WHERE "expires" <= ?', [t]);
    if (resend) {
      const recent = await tx.get('SELECT 1 AS "x" FROM "_authTokens" WHERE "collectionId" = ? AND "recordId" = ? AND "kind" = ? AND "created" > ?', [c.id, String(record.id), kind, t - RESEND_SECONDS * 1000]);
      if (recent) return null;
    }
    const expires = t + durationOf(c, kind) * 1000;
    const email = String(record.email ?? '');
    const claims: Record<string, unknown> = { id: String(record.id), collectionId: c.id, type: kind, email };
    if (kind === 'emailChange') claims.newEmail = newEmail;
    claims.exp = Math.floor(expires / 1000);
    const token = newToken(claims);
    await tx.run(
      'INSERT INTO "_authTokens" ("id","tokenHash","kind","collectionId","recordId","email","newEmail","passwordMark","created","expires") VALUES (?,?,?,?,?,?,?,?,?,?)',
      [newId(), hashToken(token), kind, c.id, String(record.id), email, newEmail, passwordMark(record), t, expires],
    );
    return token;
  }

  /** Work after the answer (the mail, and for requests the lookup too): a failure is reported, never thrown. */
  function later(work: () => Promise<void>): void {
    // after the answer has gone out: none of this work may delay (and so time) the answer
    setImmediate(() => void work().catch((err: unknown) => report(err)));
  }

  /** The message made from the collection's template and sent (or kept: mail/mailer.ts). */
  async function sendMail(c: Collection, record: Row, kind: MailTokenKind, token: string, to: string): Promise<void> {
    const s = await settings.get();
    await mailer.send(s, resolveTemplate(templateOf(c, kind), s, c, record, to, { TOKEN: token }));
  }

  const findByEmail = (db: { get: typeof store.get }, c: Collection, email: string) =>
    db.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE ${dialect.equalsNoCase(ident('email'))} LIMIT 1`, [email]);

  /**
   * request-verification and request-password-reset: a 204 whatever the e-mail. What the answer waits
   * for is the same for every e-mail (the body checked, the client counted in one write); the lookup,
   * the token and the mail follow it, so neither the answer nor its timing tells whether the e-mail exists.
   */
  async function request(name: string, body: unknown, client: string, kind: 'verification' | 'passwordReset'): Promise<void> {
    const c = authCollection(name);
    if (kind === 'verification' && c.id === SUPERUSERS_ID) throw badRequest('All superusers are verified by default.');
    const email = readEmail(body, 'email');
    await store.write(async (tx) => countClient(tx, c, kind, client));
    later(async () => {
      const issued = await store.write(async (tx) => {
        const record = await findByEmail(tx, c, email);
        if (!record) return null;
        if (kind === 'verification' && Number(record.verified) === 1) return null;
        const token = await issue(tx, c, record, kind);
        return token ? { record, token } : null;
      });
      if (issued) await sendMail(c, issued.record, kind, issued.token, String(issued.record.email));
    });
  }

  /** The live token row `token` names for `kind` in `c`, with its record as it is now; a 400 otherwise. */
  async function redeemable(c: Collection, token: string, kind: MailTokenKind): Promise<{ row: TokenRow; record: Row }> {
    if (token.length > 2000) throw invalidToken();
    const row = await store.get<TokenRow>('SELECT * FROM "_authTokens" WHERE "tokenHash" = ?', [hashToken(token)]);
    if (!row || row.kind !== kind || row.collectionId !== c.id || Number(row.expires) <= now()) throw invalidToken();
    const record = await store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [row.recordId]);
    if (!record || String(record.email ?? '').toLowerCase() !== row.email.toLowerCase() || passwordMark(record) !== row.passwordMark) throw invalidToken();
    return { row, record };
  }

  /** Applies `changes` to the record with the token's authority; the token is spent in the same transaction. */
  /**
   * `endSessions`: every session of the record ends; `dropLinks`: its OAuth2 links go (an unverified
   * account claimed through its e-mail: what its first registrant linked must not sign in as it).
   */
  async function applyWithToken(c: Collection, row: TokenRow, record: Row, changes: Record<string, unknown>, { endSessions = false, dropLinks = false } = {}): Promise<Row> {
    const ctx = systemContext();
    const update = await writes.prepareUpdate(c, String(record.id), changes, ctx);
    const [after] = await writes.commit([{
      apply: async (tx, feed) => {
        // spent once: a concurrent confirmation with the same token finds no row; the record must still be the one it was issued for
        const spent = await tx.run('DELETE FROM "_authTokens" WHERE "id" = ?', [row.id]);
        const now = await tx.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [row.recordId]);
        if (spent.changes !== 1 || !now || passwordMark(now) !== row.passwordMark || String(now.email ?? '').toLowerCase() !== row.email.toLowerCase()) throw invalidToken();
        // the record's other tokens of this kind go with it
        await tx.run('DELETE FROM "_authTokens" WHERE "collectionId" = ? AND "recordId" = ? AND "kind" = ?', [c.id, row.recordId, row.kind]);
        const after = await update.apply(tx, feed);
        if (endSessions) await tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ?', [c.id, row.recordId]);
        if (dropLinks) await removeLinks(tx, c.id, row.recordId);
        return after;
      },
      afterCommit: update.afterCommit && (() => update.afterCommit?.()),
      afterRollback: update.afterRollback && (() => update.afterRollback?.()),
    }]);
    return after;
  }

  /** A write's field errors as the confirmation's own 400 (PocketBase's message for a form). */
  async function asForm<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && err.message !== INVALID_DATA) throw badRequest(INVALID_DATA, err.data);
      throw err;
    }
  }

  return {
    requestVerification: (name: string, body: unknown, client = '') => request(name, body, client, 'verification'),

    async confirmVerification(name: string, body: unknown): Promise<void> {
      const c = authCollection(name);
      const errors: ErrorData = {};
      const token = readString(body, 'token', errors);
      if (Object.keys(errors).length > 0) throw badRequest(INVALID_DATA, errors);
      const { row, record } = await redeemable(c, token, 'verification');
      await asForm(() => applyWithToken(c, row, record, { verified: true }));
    },

    requestPasswordReset: (name: string, body: unknown, client = '') => request(name, body, client, 'passwordReset'),

    /**
     * The password changes, every session of the record ends (the funnel's password change), and the
     * e-mail counts as verified. An unverified record is the address's owner's from now on: its OAuth2
     * links go too (as when oauth2.ts claims it), else a provider account its first registrant linked
     * would still sign in as it (PocketBase keeps them).
     */
    async confirmPasswordReset(name: string, body: unknown): Promise<void> {
      const c = authCollection(name);
      const errors: ErrorData = {};
      const token = readString(body, 'token', errors);
      const password = readString(body, 'password', errors);
      const passwordConfirm = readString(body, 'passwordConfirm', errors);
      if (errors.password === undefined && errors.passwordConfirm === undefined && password !== passwordConfirm) {
        errors.passwordConfirm = fieldError('validation_values_mismatch', "Values don't match.");
      }
      if (Object.keys(errors).length > 0) throw badRequest(INVALID_DATA, errors);
      const { row, record } = await redeemable(c, token, 'passwordReset');
      const changes: Record<string, unknown> = { password, passwordConfirm };
      if (c.id !== SUPERUSERS_ID) changes.verified = true;
      await asForm(() => applyWithToken(c, row, record, changes, { dropLinks: c.id !== SUPERUSERS_ID && Number(record.verified) !== 1 }));
    },

    /** Signed in as a record of `name`: mails a confirmation link to `newEmail`. */
    async requestEmailChange(name: string, auth: AuthInfo | null, body: unknown, client = ''): Promise<void> {
      const c = authCollection(name);
      if (c.id === SUPERUSERS_ID) throw badRequest(SUPERUSERS_CHANGE);
      if (!auth) throw unauthorized('The request requires valid auth record.');
      // (PocketBase takes any signed-in record here; Deskbase only one of this collection)
      if (auth.collection.id !== c.id) throw forbidden('You are not allowed to perform this request.');
      const newEmail = readEmail(body, 'newEmail');
      if (newEmail === String(auth.record.email ?? '')) {
        throw badRequest(INVALID_DATA, { newEmail: fieldError('validation_not_in_invalid', 'Must not be in list.') });
      }
      const issued = await store.write(async (tx) => {
        await countClient(tx, c, 'emailChange', client);
        if (await findByEmail(tx, c, newEmail)) {
          throw badRequest(INVALID_DATA, { newEmail: fieldError('validation_invalid_new_email', 'Invalid new email address.') });
        }
        const record = await tx.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [String(auth.record.id)]);
        if (!record) throw unauthorized();
        return { record, token: (await issue(tx, c, record, 'emailChange', newEmail, false)) as string };
      });
      // the signed-in owner asks: nothing to hide, so the send is awaited as PocketBase's (a failure is
      // a 400; the message is kept in the outbox as failed all the same)
      try {
        await sendMail(c, issued.record, 'emailChange', issued.token, newEmail);
      } catch {
        throw badRequest('Failed to request email change.');
      }
    },

    /** Token + the record's password (counted against its sign-in block): the e-mail becomes the new one, verified, and every session of the record ends. */
    async confirmEmailChange(name: string, body: unknown, client = ''): Promise<void> {
      const c = authCollection(name);
      if (c.id === SUPERUSERS_ID) throw badRequest(SUPERUSERS_CHANGE);
      const errors: ErrorData = {};
      const token = readString(body, 'token', errors);
      const password = readString(body, 'password', errors);
      if (Object.keys(errors).length > 0) throw badRequest(INVALID_DATA, errors);
      const { row, record } = await redeemable(c, token, 'emailChange');
      // (counted against the account's sign-in block: a stolen session and a token mailed to an address
      // of the thief's choice must not make it an unlimited password oracle)
      if (!(await provesPassword(env.credentials, c, record, password, client))) {
        throw badRequest(INVALID_DATA, { password: fieldError('validation_invalid_password', 'Missing or invalid auth record password.') });
      }
      await asForm(() => applyWithToken(c, row, record, { email: row.newEmail, verified: true }, { endSessions: true }));
    },

    /**
     * POST request-otp (PocketBase's apis/record_auth_otp_request.go): `{otpId}` for any well-formed
     * e-mail. The answer waits only for the body check and the client's count, and its id is made
     * before the lookup, so neither it nor its timing tells whether the e-mail exists; the lookup, the
     * OTP row (its id the answered one, the code's scrypt hash) and the mail follow the answer. A record
     * with OTP_LIVE_MAX live OTPs gets no new one (PocketBase reuses the last; here the id redeems nothing).
     * An e-mail no record has gets a decoy row all the same (no record, `sentTo` the address in lower
     * case, a hash of a code nobody is sent, the same live cap per address), so that auth-with-otp
     * answers its id as a real one's: PocketBase stores nothing, and its 429 after five wrong codes
     * comes only for real accounts.
     */
    async requestOTP(name: string, body: unknown, client = ''): Promise<{ otpId: string }> {
      const c = authCollection(name);
      if (!authOptionsOf(c).otp.enabled) throw forbidden('The collection is not configured to allow OTP authentication.');
      const email = readEmail(body, 'email');
      await store.write(async (tx) => countClient(tx, c, 'otp', client));
      const otpId = newId();
      later(async () => {
        const { otp } = authOptionsOf(c);
        const record = await findByEmail(store, c, email);
        let code = '';
        for (let i = 0; i < otp.length; i++) code += String(randomInt(10));
        const codeHash = await passwords.hash(code, client);
        const recordId = record ? String(record.id) : '';
        const sentTo = record ? String(record.email ?? '') : email.toLowerCase();
        const created = await store.write(async (tx) => {
          const t = now();
          await tx.run('DELETE FROM "_otps" WHERE "created" <= ?', [t - 86400 * 1000]); // past any duration
          const live = await tx.get<{ n: number | string }>(
            `SELECT COUNT(*) AS "n" FROM "_otps" WHERE "collectionId" = ? AND "recordId" = ? AND "created" > ?${record ? '' : ' AND "sentTo" = ?'}`,
            [c.id, recordId, t - otp.duration * 1000, ...(record ? [] : [sentTo])],
          );
          if (Number(live?.n ?? 0) >= OTP_LIVE_MAX) return false;
          await tx.run('INSERT INTO "_otps" ("id","collectionId","recordId","codeHash","sentTo","created") VALUES (?,?,?,?,?,?)', [otpId, c.id, recordId, codeHash, sentTo, t]);
          return true;
        });
        if (!created || !record) return;
        const s = await settings.get();
        try {
          await mailer.send(s, resolveTemplate(otp.emailTemplate, s, c, record, sentTo, { OTP: code, OTP_ID: otpId }));
        } catch (err) {
          // an OTP whose mail failed redeems nothing, as PocketBase's (which deletes it; the message is
          // kept in the outbox as failed): here it becomes the address's decoy, so that its id still
          // answers as an unknown e-mail's does
          await store.write(async (tx) => tx.run('UPDATE "_otps" SET "recordId" = \'\', "sentTo" = ? WHERE "id" = ?', [email.toLowerCase(), otpId]));
          throw err;
        }
      });
      return { otpId };
    },

    /**
     * POST auth-with-otp (PocketBase's apis/record_auth_with_otp.go): `{otpId, password}` signs in. Every
     * failure is the same 400; OTP_ATTEMPTS attempts per record and window, then a 429 and the record's
     * OTPs are deleted. The code is spent (its row deleted) in the transaction that marks the e-mail
     * verified when it was sent to the record's current address. A decoy's id (requestOTP: an e-mail no
     * record had) goes the same way, its attempts counted per address, and never signs in.
     */
    async authWithOTP(name: string, body: unknown, ctx: RequestContext, userAgent: string): Promise<SignIn> {
      const c = authCollection(name);
      const { otp } = authOptionsOf(c);
      if (!otp.enabled) throw forbidden('The collection is not configured to allow OTP authentication.');
      const b = isRecord(body) ? body : {};
      const errors: ErrorData = {};
      for (const [key, max] of [['otpId', 255], ['password', 71]] as const) {
        const v = b[key];
        if (v === undefined || v === null || v === '') errors[key] = required();
        else if (typeof v !== 'string') errors[key] = fieldError('validation_invalid_value', 'Must be a string.');
        else if (v.length > max) errors[key] = fieldError('validation_length_out_of_range', `The length must be between 1 and ${max}.`, { min: 1, max });
      }
      if (Object.keys(errors).length > 0) throw badRequest(INVALID_DATA, errors);
      const otpId = b.otpId as string;
      const code = b.password as string;
      const row = await store.get<OtpRow>('SELECT * FROM "_otps" WHERE "id" = ?', [otpId]);
      if (!row || row.collectionId !== c.id || Number(row.created) + otp.duration * 1000 <= now()) throw badRequest(INVALID_OTP);
      const record = await store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [row.recordId]);
      const decoy = row.recordId === '';
      // Deskbase sends codes only by e-mail: one sent to an address the record no longer has redeems nothing
      if (!decoy && (!record || String(record.email ?? '').toLowerCase() !== row.sentTo.toLowerCase())) throw badRequest(INVALID_OTP);
      const allowed = await store.write(async (tx) => {
        const t = now();
        const key = decoy ? otpDecoyAttemptKey(c.id, row.sentTo) : otpAttemptKey(c.id, row.recordId);
        await lockKey(tx, key);
        await tx.run(`DELETE FROM "_mailRequests" WHERE "at" < ? AND "key" LIKE '${OTP_ATTEMPT_PREFIX}%'`, [t - OTP_ATTEMPTS.windowSeconds * 1000]);
        const n = await tx.get<{ n: number | string }>('SELECT COUNT(*) AS "n" FROM "_mailRequests" WHERE "key" = ?', [key]);
        if (Number(n?.n ?? 0) >= OTP_ATTEMPTS.max) {
          await tx.run(`DELETE FROM "_otps" WHERE "collectionId" = ? AND "recordId" = ?${decoy ? ' AND "sentTo" = ?' : ''}`, [c.id, row.recordId, ...(decoy ? [row.sentTo] : [])]);
          return false;
        }
        await tx.run('INSERT INTO "_mailRequests" ("key", "at") VALUES (?, ?)', [key, t]);
        return true;
      });
      if (!allowed) throw new ApiError(429, 'Too many attempts, please try again later with a new OTP.');
      // (a decoy's code was sent to nobody: even the right guess redeems nothing)
      if (!(await passwords.verify(code, row.codeHash, ctx.request.client)) || decoy || !record) throw badRequest(INVALID_OTP);
      const spend = async (tx: Parameters<Parameters<typeof store.write>[0]>[0]) => {
        // single use: of two concurrent redemptions only one deletes the row
        if ((await tx.run('DELETE FROM "_otps" WHERE "id" = ?', [row.id])).changes !== 1) throw badRequest(INVALID_OTP);
      };
      // PocketBase marks the record verified when the code went to its current e-mail (before MFA or the authRule)
      if (Number(record.verified) !== 1 && row.sentTo !== '' && String(record.email ?? '') === row.sentTo) {
        const update = await writes.prepareUpdate(c, String(record.id), { verified: true }, systemContext());
        await writes.commit([{
          apply: async (tx, feed) => { await spend(tx); return update.apply(tx, feed); },
          afterCommit: update.afterCommit && (() => update.afterCommit?.()),
          afterRollback: update.afterRollback && (() => update.afterRollback?.()),
        }]);
        record.verified = 1;
      } else {
        await store.write(spend);
      }
      return signIn.complete(c, record, ctx, userAgent, 'otp');
    },

    /**
     * PocketBase's new-device alert (apis/record_helper.go authAlert): each sign-in's device (a
     * fingerprint of the client's address and user agent, kept per record, the AUTH_ORIGINS_MAX latest)
     * is remembered while authAlert.enabled; a device new to a record that has signed in before gets
     * the alert mail (after the answer; a failed send is kept in the outbox as failed). The first
     * sign-in ever sends nothing.
     */
    async authAlert(c: Collection, record: Row, client: string, userAgent: string): Promise<void> {
      // as PocketBase: devices are only kept while the alert is on
      const { authAlert } = authOptionsOf(c);
      if (!authAlert.enabled) return;
      const ua = userAgent.slice(0, 300);
      const fingerprint = hashToken(`${client}\n${ua}`);
      const recordId = String(record.id);
      const isNew = await store.write(async (tx) => {
        const t = now();
        const origins = await tx.all<{ id: string; fingerprint: string }>('SELECT "id", "fingerprint" FROM "_authOrigins" WHERE "collectionId" = ? AND "recordId" = ? ORDER BY "updated" DESC', [c.id, recordId]);
        const known = origins.find((o) => o.fingerprint === fingerprint);
        if (known) {
          await tx.run('UPDATE "_authOrigins" SET "updated" = ? WHERE "id" = ?', [t, known.id]);
          return false;
        }
        for (const old of origins.slice(AUTH_ORIGINS_MAX - 1)) await tx.run('DELETE FROM "_authOrigins" WHERE "id" = ?', [old.id]);
        await tx.run('INSERT INTO "_authOrigins" ("id","collectionId","recordId","fingerprint","created","updated") VALUES (?,?,?,?,?,?)', [newId(), c.id, recordId, fingerprint, t, t]);
        return origins.length > 0;
      });
      const to = String(record.email ?? '');
      if (!isNew || to === '') return;
      later(async () => {
        const s = await settings.get();
        const info = `${ua === '' ? 'an unknown device' : ua}, from ${client === '' ? 'an unknown address' : client}`;
        await mailer.send(s, resolveTemplate(authAlert.emailTemplate, s, c, record, to, { ALERT_INFO: info }));
      });
    },

    /**
     * PocketBase's `$mails.sendRecord*` (mails/record.go) for hooks: the record's mail from its
     * collection's template, sent now; a token kind issues its token as the API does (stored hashed,
     * no resend limit: the owner's code asks), an OTP mail carries the id and code the hook gives, an
     * alert the hook's info. Without `scope.tx` the send is awaited (a failure throws, kept in the
     * outbox as failed). Inside a write (`scope.tx`) the token goes in that transaction and the mail
     * once it committed (the one writer is busy until then; rolled back, nothing is sent).
     */
    async sendRecordMail(c: Collection, recordId: string, mail: RecordMail, scope: Pick<EventScope, 'tx' | 'afterCommit' | 'stopped'> = {}): Promise<void> {
      if (c.type !== 'auth') throw badRequest(`"${c.name}" is not an auth collection.`);
      if (mail.kind === 'verification' && c.id === SUPERUSERS_ID) throw badRequest('All superusers are verified by default.');
      if (mail.kind === 'emailChange' && !EMAIL.test(mail.newEmail)) throw badRequest(`Invalid new email address "${mail.newEmail.slice(0, 255)}".`);
      const prepare = async (tx: WriteTx): Promise<{ record: Row; to: string; template: EmailTemplate; values: Record<string, string> }> => {
        const record = await tx.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [recordId]);
        if (!record) throw notFound();
        const to = mail.kind === 'emailChange' ? mail.newEmail : String(record.email ?? '');
        if (to === '') throw badRequest(`The record "${recordId}" has no e-mail address.`);
        const o = authOptionsOf(c);
        if (mail.kind === 'otp') return { record, to, template: o.otp.emailTemplate, values: { OTP: mail.password, OTP_ID: mail.otpId } };
        if (mail.kind === 'authAlert') return { record, to, template: o.authAlert.emailTemplate, values: { ALERT_INFO: mail.info } };
        const token = (await issue(tx, c, record, mail.kind, mail.kind === 'emailChange' ? mail.newEmail : '', false)) as string;
        return { record, to, template: templateOf(c, mail.kind), values: { TOKEN: token } };
      };
      const send = async (m: Awaited<ReturnType<typeof prepare>>) => {
        const s = await settings.get();
        await mailer.send(s, resolveTemplate(m.template, s, c, m.record, m.to, m.values));
      };
      if (!scope.tx) return send(await store.write(stoppable(scope.stopped, prepare)));
      const m = await prepare(scope.tx);
      if (scope.afterCommit) scope.afterCommit.push(() => send(m));
      else later(() => send(m));
    },

    /** POST /api/settings/test/email: one template of a collection, to `email`, sent now (a failure is the 400). */
    async sendTest(body: unknown): Promise<void> {
      const b = isRecord(body) ? body : {};
      const errors: ErrorData = {};
      let email = '';
      try {
        email = readEmail(b, 'email');
      } catch (err) {
        if (err instanceof ApiError) Object.assign(errors, err.data);
      }
      const templates: Record<string, MailTokenKind> = { verification: 'verification', 'password-reset': 'passwordReset', 'email-change': 'emailChange' };
      const template = b.template;
      if (template === undefined || template === '') errors.template = required();
      else if (typeof template !== 'string' || (template !== 'otp' && template !== 'login-alert' && !Object.hasOwn(templates, template))) errors.template = fieldError('validation_in_invalid', 'Must be a valid value.');
      const name = b.collection === undefined || b.collection === '' ? '_superusers' : b.collection;
      const c = typeof name === 'string' ? registry.get(name) : undefined;
      if (!c || c.type !== 'auth') errors.collection = fieldError('validation_invalid_collection', 'Missing or invalid auth collection.');
      if (Object.keys(errors).length > 0) throw badRequest(INVALID_DATA, errors);
      const coll = c as Collection;
      const kind = templates[template as string];
      // PocketBase's test message: a placeholder record with the address, and a token (or OTP) that redeems nothing
      const record: Row = { id: '_test_id_', email, verified: 0 };
      const s = await settings.get();
      const message = template === 'login-alert'
        ? resolveTemplate(authOptionsOf(coll).authAlert.emailTemplate, s, coll, record, email, { ALERT_INFO: 'a test device, from 127.0.0.1' })
        : kind === undefined
        ? resolveTemplate(authOptionsOf(coll).otp.emailTemplate, s, coll, record, email, { OTP: '123456', OTP_ID: 'OTP_ID' })
        : resolveTemplate(templateOf(coll, kind), s, coll, record, email, { TOKEN: newToken({ id: '_test_id_', collectionId: coll.id, type: kind, email }) });
      try {
        await mailer.send(s, message);
      } catch (err) {
        throw badRequest('Failed to send the test email.', { error: fieldError('validation_send_failed', err instanceof Error ? err.message.slice(0, 200) : 'Failed to send.') });
      }
    },
  };
}

export type AccountMail = ReturnType<typeof createAccountMail>;
