// Password sign-in, refresh and the session endpoints' logic. Every sign-in failure (unknown
// identity, wrong password, failing authRule, blocked account) is the same 400, and costs one hash.
import { ApiError, badRequest, fieldError, forbidden, notFound, unauthorized, type ErrorData } from '../errors.js';
import type { Store } from '../store/db.js';
import { isRecord } from './fields/common.js';
import { ruleSql } from './access.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';
import type { Registry } from './registry.js';
import type { SessionRow, Sessions } from './sessions.js';
import { ident } from '../filter/sql.js';
import type { AuthInfo, Collection, RequestInfo, Row } from './types.js';
import { isSuperuser } from './types.js';

export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

const failed = () => badRequest('Failed to authenticate.');

interface Window {
  start: number;
  /** Failed attempts counted in this window. */
  failures: number;
  /** Attempts whose password check is under way: they count as failures until they succeed. */
  pending: number;
}

/** An attempt reserved before its password is checked. */
export interface Attempt {
  key: string;
  window: Window;
}

/**
 * Ten failures for one account within 15 minutes block it for the rest of that window. An attempt is
 * reserved before its (asynchronous) password check and counts as a failure until it succeeds, so at
 * most ten checks run per account per window however many attempts arrive at once; the next one is
 * refused without checking. A success starts the count again.
 */
export class FailureLimiter {
  private windows = new Map<string, Window>();
  constructor(private now: () => number = Date.now) {}

  /** Reserves one attempt, or null when the account is blocked. */
  reserve(key: string): Attempt | null {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= FAILURE_WINDOW_MS) {
      w = { start: t, failures: 0, pending: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.prune(t);
    }
    if (w.failures + w.pending >= MAX_FAILURES) return null;
    w.pending++;
    return { key, window: w };
  }

  /**
   * Settles a reserved attempt; `null` when its password was never checked (refused before its hash,
   * a 429 under load), which only frees the reservation. Attempts of a window that has since closed
   * change nothing.
   */
  settle(attempt: Attempt, ok: boolean | null): void {
    const w = attempt.window;
    w.pending--;
    if (this.windows.get(attempt.key) !== w || ok === null) return;
    if (ok) w.failures = 0;
    else w.failures++;
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= FAILURE_WINDOW_MS && w.pending === 0) this.windows.delete(k);
  }
}

export interface SignIn {
  token: string;
  collection: Collection;
  record: Row;
  session: SessionRow;
}

export function createAuth(store: Store, registry: Registry, sessions: Sessions, limiter: FailureLimiter) {
  function authCollection(name: string): Collection {
    const c = registry.get(name);
    if (!c) throw notFound('Missing or invalid collection context.');
    if (c.type !== 'auth') throw notFound('Missing or invalid auth collection context.');
    return c;
  }

  function findByIdentity(c: Collection, identity: string): Row | undefined {
    const fields = [...(c.identityFields ?? ['email'])].sort((a, b) => (a === 'email' ? -1 : b === 'email' ? 1 : 0));
    for (const name of fields) {
      if (!c.fields.some((f) => f.name === name)) continue;
      if (name === 'email' && !identity.includes('@')) continue;
      const collate = name === 'email' ? ' COLLATE NOCASE' : '';
      const row = store.get<Row>(`SELECT * FROM ${ident(c.name)} WHERE ${ident(name)}${collate} = ? LIMIT 1`, [identity]);
      if (row) return row;
    }
    return undefined;
  }

  function passesAuthRule(c: Collection, record: Row, req: RequestInfo): boolean {
    if (c.authRule === null || c.authRule === undefined) return false;
    if (c.authRule.trim() === '') return true;
    const authReq: RequestInfo = { ...req, context: 'password', auth: { collection: c, record, sessionId: '' } };
    const w = ruleSql(c.authRule, c, authReq, registry.lookup);
    return store.get(`SELECT 1 AS ok FROM ${ident(c.name)} AS r WHERE r."id" = ? AND (${w.sql})`, [record.id, ...w.params]) !== undefined;
  }

  return {
    authCollection,

    async signInWithPassword(name: string, body: unknown, req: RequestInfo, userAgent: string): Promise<SignIn> {
      const c = authCollection(name);
      const b = isRecord(body) ? body : {};
      const errors: ErrorData = {};
      for (const key of ['identity', 'password'] as const) {
        const v = b[key];
        if (typeof v !== 'string' || v === '') errors[key] = fieldError('validation_required', 'Cannot be blank.');
        else if (v.length > 255) errors[key] = fieldError('validation_length_out_of_range', 'The length must be between 1 and 255.');
      }
      if (Object.keys(errors).length > 0) throw badRequest('An error occurred while validating the submitted data.', errors);
      const identity = String(b.identity);
      const password = String(b.password);
      const record = findByIdentity(c, identity);
      const key = `${c.id}/${record ? String(record.id) : identity.toLowerCase()}`;
      // reserved before any await: concurrent attempts cannot all read the count before one is recorded
      const attempt = limiter.reserve(key);
      if (!record || !attempt) {
        try {
          await burnPasswordCheck(password, req.client); // a blocked or unknown account costs what a wrong password does
        } catch (err) {
          if (attempt) limiter.settle(attempt, null);
          throw err;
        }
        if (attempt) limiter.settle(attempt, false);
        throw failed();
      }
      let ok: boolean | null = null;
      try {
        ok = (await verifyPassword(password, String(record.password ?? ''), req.client)) && passesAuthRule(c, record, req);
      } finally {
        limiter.settle(attempt, ok); // null: never checked (a 429), which counts as no failure
      }
      if (!ok) throw failed();
      const started = await store.write((tx) => sessions.start(tx, c.id, String(record.id), userAgent));
      return { token: started.token, collection: c, record, session: started.session };
    },

    /** Extends the caller's session to its full lifetime after re-checking authRule. */
    async refresh(name: string, req: RequestInfo): Promise<{ auth: AuthInfo; expires: string }> {
      const c = authCollection(name);
      const auth = req.auth;
      if (!auth) throw unauthorized();
      if (auth.collection.id !== c.id) throw forbidden(`The request requires auth record from ${c.name} collection.`);
      if (!passesAuthRule(c, auth.record, req)) {
        throw new ApiError(403, "The request doesn't satisfy the collection requirements to authenticate.");
      }
      const expires = await store.write((tx) => sessions.extend(tx, auth.sessionId));
      return { auth, expires };
    },

    async endSession(auth: AuthInfo | null): Promise<void> {
      if (!auth) return;
      await store.write((tx) => sessions.end(tx, auth.sessionId));
    },

    listSessions(auth: AuthInfo): SessionRow[] {
      return sessions.listFor(auth.collection.id, String(auth.record.id));
    },

    getSession(auth: AuthInfo): SessionRow | undefined {
      return sessions.get(store, auth.sessionId);
    },

    /** Ends one of the caller's own sessions; another record's session answers 404. */
    async revoke(auth: AuthInfo, id: string): Promise<void> {
      const s = sessions.get(store, id);
      if (!s || s.collectionId !== auth.collection.id || s.recordId !== String(auth.record.id)) throw notFound();
      await store.write((tx) => sessions.end(tx, id));
    },

    isSuperuser,
  };
}

export type Auth = ReturnType<typeof createAuth>;
