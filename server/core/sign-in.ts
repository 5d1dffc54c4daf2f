// Password sign-in, refresh and the session endpoints' logic. Every sign-in failure (unknown
// identity, wrong password, failing authRule, blocked account) is the same 400, and costs one hash.
import type { CoreEnv } from './env.js';
import { ApiError, badRequest, fieldError, forbidden, notFound, unauthorized, type ErrorData } from '../errors.js';
import { isRecord } from '../json-object.js';
import { ruleSql } from './access.js';
import { authOptionsOf } from './auth-options.js';
import { needsRehash } from './passwords.js';
import { accountKey } from './sign-in-limiter.js';
import { presentRecords } from './record-response.js';
import { asCaller, type RequestContext, type RuleInput } from './request-context.js';
import { SESSION_SECONDS, type SessionRow } from './session-store.js';
import { ident } from '../filter/sql.js';
import type { AuthInfo, Collection, Row } from '../model/types.js';
import type { WriteTx } from '../store/db.js';
import { newId } from './ids.js';
import { isLocked, isOpen } from '../model/rule.js';
import { authWire, requestInfoOf, wireOf } from './event-records.js';

export interface SignIn {
  token: string;
  /** The signed-in record as it sees itself (record-response.ts), with the request's expand and fields. */
  record: unknown;
}

/** The longest impersonation (the longest auth token duration PocketBase's options accept: 3 years). */
export const MAX_IMPERSONATE_SECONDS = 94670856;

/** PocketBase's MFA step: the first method proved, a second one (with this id) is needed: a 401 `{mfaId}`. */
export class MfaRequired extends Error {
  constructor(readonly mfaId: string) {
    super('mfa required');
  }
}

interface MfaRow { id: string; collectionId: string; recordId: string; method: string; created: number | string }

const failed = () => badRequest('Failed to authenticate.');

/** What runs after a sign-in's session started (account-mail.ts's new-device alert), given the request's client and user agent. */
export type AfterSignIn = (c: Collection, record: Row, client: string, userAgent: string) => Promise<void>;

export function createAuth(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'sessions' | 'credentials' | 'responseBytes' | 'now' | 'events'>, afterSignIn: AfterSignIn = async () => {}) {
  const { store, dialect, registry, sessions, credentials: { limiter, passwords }, responseBytes, now, events } = env;
  function authCollection(name: string): Collection {
    const c = registry.get(name);
    if (!c) throw notFound('Missing or invalid collection context.');
    if (c.type !== 'auth') throw notFound('Missing or invalid auth collection context.');
    return c;
  }

  /** `only`: the body's identityField, which restricts the lookup to that field (PocketBase's form). */
  async function findByIdentity(c: Collection, identity: string, only?: string): Promise<Row | undefined> {
    const listed = only === undefined ? [...(c.identityFields ?? ['email'])] : [only];
    const fields = listed.sort((a, b) => (a === 'email' ? -1 : b === 'email' ? 1 : 0));
    for (const name of fields) {
      if (!c.fields.some((f) => f.name === name)) continue;
      if (name === 'email' && !identity.includes('@')) continue;
      const match = name === 'email' ? dialect.equalsNoCase(ident(name)) : `${ident(name)} = ?`;
      const row = await store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE ${match} LIMIT 1`, [identity]);
      if (row) return row;
    }
    return undefined;
  }

  async function passesAuthRule(c: Collection, record: Row, ctx: RuleInput): Promise<boolean> {
    if (isLocked(c.authRule)) return false;
    if (isOpen(c.authRule)) return true;
    const authCtx: RuleInput = { lookup: ctx.lookup, request: { ...ctx.request, context: ctx.request.context === 'default' ? 'password' : ctx.request.context, auth: { collection: c, record, sessionId: '' } }, ...(ctx.dialect === undefined ? {} : { dialect: ctx.dialect }) };
    const w = ruleSql(c.authRule, c, authCtx);
    return (await store.get(`SELECT 1 AS ok FROM ${ident(c.name)} AS r WHERE r."id" = ? AND (${w.sql})`, [record.id, ...w.params])) !== undefined;
  }

  /** Whether `rule` (PocketBase's mfa.rule: empty is everyone) holds for the record signing in. */
  async function ruleHolds(c: Collection, record: Row, rule: string, ctx: RuleInput, context: string): Promise<boolean> {
    if (rule.trim() === '') return true;
    const ruleCtx: RuleInput = { lookup: ctx.lookup, request: { ...ctx.request, context, auth: { collection: c, record, sessionId: '' } }, ...(ctx.dialect === undefined ? {} : { dialect: ctx.dialect }) };
    const w = ruleSql(rule, c, ruleCtx);
    return (await store.get(`SELECT 1 AS ok FROM ${ident(c.name)} AS r WHERE r."id" = ? AND (${w.sql})`, [record.id, ...w.params])) !== undefined;
  }

  /**
   * The end of every sign-in method (PocketBase's RecordAuthResponse): with MFA on for this record
   * (mfa.rule), a first method stores an `_mfas` row and throws MfaRequired (the 401 `{mfaId}`); a second,
   * different method presents that mfaId (query or body) and spends it in the transaction that starts
   * the session. `work` runs in that transaction too (a password rehash).
   */
  async function finish(c: Collection, record: Row, ctx: RequestContext, userAgent: string, method: string, work?: (tx: WriteTx) => Promise<void>): Promise<SignIn> {
    const { mfa } = authOptionsOf(c);
    let spend: MfaRow | null = null;
    if (mfa.enabled && (await ruleHolds(c, record, mfa.rule, ctx, method))) {
      const given = ctx.request.query.mfaId || (typeof ctx.request.body.mfaId === 'string' ? ctx.request.body.mfaId : '');
      if (given === '') {
        const mfaId = newId();
        await store.write(async (tx) => {
          await work?.(tx);
          const t = now();
          await tx.run('DELETE FROM "_mfas" WHERE "created" <= ?', [t - 86400 * 1000]); // past any duration
          await tx.run('INSERT INTO "_mfas" ("id","collectionId","recordId","method","created") VALUES (?,?,?,?,?)', [mfaId, c.id, String(record.id), method, t]);
        });
        throw new MfaRequired(mfaId);
      }
      const row = given.length > 255 ? undefined : await store.get<MfaRow>('SELECT * FROM "_mfas" WHERE "id" = ?', [given]);
      if (!row || Number(row.created) + mfa.duration * 1000 <= now()) {
        if (row) await store.write(async (tx) => tx.run('DELETE FROM "_mfas" WHERE "id" = ?', [row.id]));
        throw badRequest('Invalid or expired MFA session.');
      }
      if (row.recordId !== String(record.id) || row.collectionId !== c.id) throw badRequest('Invalid MFA session.');
      if (row.method === method) throw badRequest('A different authentication method is required.');
      spend = row;
    }
    const start = async (): Promise<SignIn> => {
      const started = await store.write(async (tx) => {
        // single use: of two sign-ins with one mfaId only the one that deletes it goes on
        if (spend && (await tx.run('DELETE FROM "_mfas" WHERE "id" = ?', [spend.id])).changes !== 1) throw badRequest('Invalid or expired MFA session.');
        await work?.(tx);
        return sessions.start(tx, c.id, String(record.id), userAgent);
      });
      await afterSignIn(c, record, ctx.request.client ?? '', userAgent);
      return { token: started.token, record: await presentSelf({ collection: c, record, sessionId: started.session.id }, ctx) };
    };
    if (!events.has('onRecordAuthRequest', c)) return start();
    // hooks (core/events.ts): before e.next() no session exists yet (a throw refuses the sign-in); after it, e.token
    let answer: SignIn | null = null;
    const r = await events.trigger('onRecordAuthRequest', { collection: c, record: wireOf(c, record), authMethod: method, auth: authWire(ctx), requestInfo: requestInfoOf(ctx) }, {}, async (p) => {
      answer = await start();
      return { ...p, token: answer.token };
    }, c);
    if (!r.ran || answer === null) throw badRequest('The sign-in was ended by an onRecordAuthRequest hook without e.next().');
    return answer;
  }

  /** The record as the session it now holds sees it; a large expand leaves it unexpanded (the session exists). */
  async function presentSelf(auth: AuthInfo, ctx: RequestContext): Promise<unknown> {
    return (await presentRecords(store, auth.collection, [auth.record], asCaller(ctx, auth), true, responseBytes, events))[0];
  }

  /** A password sign-in (`signInWithPassword` without its hooks). */
  async function withPassword(c: Collection, body: unknown, ctx: RequestContext, userAgent: string): Promise<SignIn> {
    const b = isRecord(body) ? body : {};
    const errors: ErrorData = {};
    for (const key of ['identity', 'password'] as const) {
      const v = b[key];
      if (typeof v !== 'string' || v === '') errors[key] = fieldError('validation_required', 'Cannot be blank.');
      else if (v.length > 255) errors[key] = fieldError('validation_length_out_of_range', 'The length must be between 1 and 255.');
    }
    // identityField, when given, must be one of the collection's identityFields (PocketBase's validation.In)
    const only = b.identityField;
    if (only !== undefined && only !== '' && (typeof only !== 'string' || !(c.identityFields ?? ['email']).includes(only))) {
      errors.identityField = fieldError('validation_in_invalid', 'Must be a valid value.');
    }
    if (Object.keys(errors).length > 0) throw badRequest('An error occurred while validating the submitted data.', errors);
    const identity = String(b.identity);
    const password = String(b.password);
    const record = await findByIdentity(c, identity, typeof only === 'string' && only !== '' ? only : undefined);
    // a blocked or unknown account costs what a wrong password does, and answers the same
    const burn = async () => passwords.burn(password, ctx.request.client);
    const ok = await limiter.attempt(
      accountKey(c, record ? String(record.id) : identity.toLowerCase()),
      record ? async () => (await passwords.verify(password, String(record.password ?? ''), ctx.request.client)) && (await passesAuthRule(c, record, ctx)) : async () => (await burn(), false),
      burn,
    );
    if (!ok || !record) throw failed();
    // a PocketBase bcrypt hash becomes scrypt with the first sign-in that proves the password
    const stored = String(record.password ?? '');
    const rehash = needsRehash(stored) ? await passwords.hash(password, ctx.request.client) : null;
    const work = rehash === null ? undefined : async (tx: WriteTx) => {
      await tx.run(`UPDATE ${ident(c.name)} SET "password" = ? WHERE "id" = ? AND "password" = ?`, [rehash, record.id, stored]);
    };
    return finish(c, record, ctx, userAgent, 'password', work);
  }

  return {
    authCollection,
    passesAuthRule,
    presentSelf,

    /**
     * A sign-in proven by another method than the password (core/account-mail.ts's OTP): the authRule
     * (PocketBase's 403 in RecordAuthResponse), then a session as auth-with-password starts one.
     */
    async complete(c: Collection, record: Row, ctx: RequestContext, userAgent: string, method: string): Promise<SignIn> {
      if (!(await passesAuthRule(c, record, { ...ctx, request: { ...ctx.request, context: method } }))) {
        throw new ApiError(403, "The request doesn't satisfy the collection requirements to authenticate.");
      }
      return finish(c, record, ctx, userAgent, method);
    },

    /** The new-device alert of a sign-in made elsewhere (oauth2.ts), as `finish` sends it. */
    alert: afterSignIn,

    /**
     * `ctx` carries the sign-in body (an authRule may read `@request.body`). onRecordAuthWithPasswordRequest
     * hooks see the record the identity names (or none), the identity and the password before the check,
     * as PocketBase's; the identity and password they leave are what is checked.
     */
    async signInWithPassword(name: string, body: unknown, ctx: RequestContext, userAgent: string): Promise<SignIn> {
      const c = authCollection(name);
      if (!events.has('onRecordAuthWithPasswordRequest', c)) return withPassword(c, body, ctx, userAgent);
      const b = isRecord(body) ? body : {};
      const identity = typeof b.identity === 'string' ? b.identity : '';
      const field = typeof b.identityField === 'string' && (c.identityFields ?? ['email']).includes(b.identityField) ? b.identityField : undefined;
      const found = identity === '' || identity.length > 255 ? undefined : await findByIdentity(c, identity, field);
      let answer: SignIn | null = null;
      const payload = { collection: c, record: found ? wireOf(c, found) : undefined, identity, identityField: field ?? '', password: typeof b.password === 'string' ? b.password : '', auth: authWire(ctx), requestInfo: requestInfoOf(ctx) };
      const r = await events.trigger('onRecordAuthWithPasswordRequest', payload, {}, async (p) => {
        answer = await withPassword(c, { ...b, identity: p.identity ?? b.identity, password: p.password ?? b.password }, ctx, userAgent);
        return p;
      }, c);
      if (!r.ran || answer === null) throw badRequest('The sign-in was ended by an onRecordAuthWithPasswordRequest hook without e.next().');
      return answer;
    },

    /**
     * Extends the caller's session to its full lifetime after re-checking authRule; answers the record
     * and the session's current token (session-store.ts `extend`: the same one until its claims move).
     */
    async refresh(name: string, ctx: RequestContext, presented: string): Promise<{ record: unknown; token: string; expires: string }> {
      // as PocketBase's RequireSameCollectionContextAuth: signed out is 401, and any collection but the
      // token's (a missing one included) is 403 naming the token's collection
      const auth = ctx.request.auth;
      if (!auth) throw unauthorized();
      const c = registry.get(name);
      if (!c || c.id !== auth.collection.id) throw forbidden(`The request requires auth record from ${auth.collection.name} collection.`);
      // an impersonation's session is not refreshable (PocketBase's static token), checked first as there
      const held = await sessions.get(store, auth.sessionId);
      if (held && Number(held.refreshable) === 0) throw forbidden('The current auth token is not refreshable.');
      if (!(await passesAuthRule(c, auth.record, ctx))) {
        throw new ApiError(403, "The request doesn't satisfy the collection requirements to authenticate.");
      }
      const { token, expires } = await store.write(async (tx) => sessions.extend(tx, auth.sessionId, presented));
      return { record: await presentSelf(auth, ctx), token, expires };
    },

    /**
     * PocketBase's impersonate (the route checks the caller is a superuser): a session of the record
     * lasting `duration` seconds (0: the collection's auth token duration) that auth-refresh refuses.
     */
    async impersonate(name: string, recordId: string, body: Record<string, unknown>, ctx: RequestContext, userAgent: string): Promise<SignIn> {
      const c = authCollection(name);
      const record = await store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE "id" = ?`, [recordId]);
      if (!record) throw notFound();
      const d = body.duration ?? 0;
      if (typeof d !== 'number' || !Number.isInteger(d)) {
        throw badRequest('An error occurred while loading the submitted data.', { duration: fieldError('validation_invalid_value', 'Must be a whole number of seconds.') });
      }
      if (d < 0) throw badRequest('An error occurred while validating the submitted data.', { duration: fieldError('validation_min_greater_equal_than_required', 'Must be no less than 0.', { threshold: 0 }) });
      // PocketBase has no upper bound; a date past year 9999 cannot be kept, so the longest token duration its options allow
      if (d > MAX_IMPERSONATE_SECONDS) {
        throw badRequest('An error occurred while validating the submitted data.', { duration: fieldError('validation_max_less_equal_than_required', `Must be no greater than ${MAX_IMPERSONATE_SECONDS}.`, { threshold: MAX_IMPERSONATE_SECONDS }) });
      }
      const started = await store.write(async (tx) => sessions.start(tx, c.id, recordId, userAgent, Date.now(), { seconds: d === 0 ? SESSION_SECONDS : d }));
      return { token: started.token, record: await presentSelf({ collection: c, record, sessionId: started.session.id }, ctx) };
    },

    async endSession(auth: AuthInfo | null): Promise<void> {
      if (!auth) return;
      await store.write(async (tx) => sessions.end(tx, auth.sessionId));
    },

    listSessions(auth: AuthInfo): Promise<SessionRow[]> {
      return sessions.listFor(auth.collection.id, String(auth.record.id));
    },

    getSession(auth: AuthInfo): Promise<SessionRow | undefined> {
      return sessions.get(store, auth.sessionId);
    },

    /**
     * A superuser's view of any auth record's live sessions (the admin UI's record panel). The caller is
     * checked by the route; an unknown collection or record answers 404, as a record view does.
     */
    async sessionsOf(collection: string, recordId: string): Promise<SessionRow[]> {
      const c = authCollection(collection);
      if (!(await store.get(`SELECT 1 AS ok FROM ${ident(c.name)} WHERE "id" = ?`, [recordId]))) throw notFound();
      return sessions.listFor(c.id, recordId);
    },

    /** A superuser ends a session of that record; a session of any other record answers 404. */
    async revokeOf(collection: string, recordId: string, id: string): Promise<void> {
      const c = authCollection(collection);
      const s = await sessions.get(store, id);
      if (!s || s.collectionId !== c.id || s.recordId !== recordId) throw notFound();
      await store.write(async (tx) => sessions.end(tx, id));
    },

    /** Ends one of the caller's own sessions; another record's session answers 404. */
    async revoke(auth: AuthInfo, id: string): Promise<void> {
      const s = await sessions.get(store, id);
      if (!s || s.collectionId !== auth.collection.id || s.recordId !== String(auth.record.id)) throw notFound();
      await store.write(async (tx) => sessions.end(tx, id));
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;
