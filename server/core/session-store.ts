// Server-side sessions (Deskbase differs from PocketBase here: no signed JWTs): a token's random
// secret names a row of `_sessions`; only the secret's SHA-256 is stored. The token is shaped so the
// PocketBase SDKs read it (session-token.ts), and it is accepted only exactly as issued: its claims
// segment must be one this session issued (a superuser's `type`; another record's current `exp`, or
// the `exp` of an earlier copy still in `issued`). Lifetime 7 days, sliding on refresh.
import type { ReadDb, Store, WriteTx } from '../store/db.js';
import { rowBytes } from '../store/deadline.js';
import { hashToken, isoNow, newId } from './ids.js';
import { expClaims, expSeconds, newSecret, partsOf, shapeToken, SUPERUSER_CLAIMS, type TokenKind, type TokenParts } from './session-token.js';
import type { Registry } from './collection-registry.js';
import { getRow } from './records-read.js';
import { dialectOf } from '../rules/compile.js';
import { forbidden, unauthorized } from '../errors.js';
import { SUPERUSERS_ID, type AuthInfo, type Collection, type Row } from '../model/types.js';

export const SESSION_SECONDS = 604800;
/** Earlier copies of a session's token (before its last refreshes) accepted until their own exp. */
export const EARLIER_TOKENS = 16;

export interface SessionRow {
  id: string;
  tokenHash: string;
  collectionId: string;
  recordId: string;
  created: string;
  expires: string;
  userAgent: string;
  /** JSON: the exp claims (seconds) of the session's earlier tokens, oldest first. */
  issued: string;
  /** 0 for an impersonation's session (PocketBase's static token): auth-refresh answers 403. */
  refreshable: number;
}

function kindFor(collectionId: string): TokenKind {
  return collectionId === SUPERUSERS_ID ? 'superuser' : 'expiring';
}

function earlierExps(s: SessionRow): number[] {
  try {
    const list: unknown = JSON.parse(s.issued);
    return Array.isArray(list) ? list.filter((n): n is number => Number.isInteger(n)) : [];
  } catch {
    return [];
  }
}

/**
 * Until when (ms) this token, as presented, is accepted for session `s` (its secret already named the
 * session), or 0 if it was not issued for it: the session's end, or, for an earlier copy of its token,
 * that copy's own exp (if still ahead of `now`).
 */
function issuedUntil(s: SessionRow, collection: Collection, parts: TokenParts, now: number): number {
  const ends = Date.parse(s.expires);
  if (!Number.isFinite(ends)) return 0;
  if (parts.kind === 'unshaped') return ends; // before claims: the whole token is the secret
  const current = expSeconds(s.expires);
  if (kindFor(collection.id) === 'superuser') {
    // a superuser token issued before superuser tokens claimed `type` carries the session's last exp
    return (parts.kind === 'superuser' ? parts.claims === SUPERUSER_CLAIMS : parts.claims === expClaims(current)) ? ends : 0;
  }
  if (parts.kind !== 'expiring') return 0;
  if (parts.claims === expClaims(current)) return ends;
  const earlier = earlierExps(s).find((exp) => exp > now / 1000 && parts.claims === expClaims(exp));
  return earlier === undefined ? 0 : Math.min(ends, earlier * 1000);
}

/** Sessions whose last use is remembered in memory (the most recently used are kept). */
const SEEN_MAX = 10_000;
/**
 * Bytes of the resolved sessions kept (each its own copy of the record as read: every token used
 * makes one, and sign-ins or a refresh a second keep making new tokens): past it they are dropped, as
 * past SEEN_MAX entries, the oldest kept first. A record over KEPT_ENTRY_MAX_BYTES is read again at each request instead.
 */
const KEPT_MAX_BYTES = 32 * 1024 * 1024;
const KEPT_ENTRY_MAX_BYTES = 256 * 1024;
/**
 * Expired sessions are deleted by a sign-in at most this often (ms; a resolve refuses them anyway): a
 * DELETE at every sign-in had each one make every kept session check its row again.
 */
export const EXPIRED_SWEEP_MS = 60_000;
/** The most expired sessions one sign-in deletes (the sweep's work is bounded, not the backlog's). */
export const EXPIRED_SWEEP_BATCH = 1_000;
const SESSION_KEYS = ['id', 'tokenHash', 'collectionId', 'recordId', 'created', 'expires', 'userAgent', 'issued', 'refreshable'] as const;

/** Whether a session row read again is the one kept (so what it decides is as decided). */
function sameSession(a: SessionRow, b: SessionRow): boolean {
  for (const key of SESSION_KEYS) if (a[key] !== b[key]) return false;
  return true;
}

export function createSessions(store: Store, registry: Registry) {
  const dialect = dialectOf(store.dialect);
  /** Statements written once: the record's other sessions (`IS NOT`: the caller may hold none). */
  const endOthersSql = `DELETE FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ? AND ${dialect.same({ text: '"id"', params: [] }, { text: '?', params: [] }, true).text}`;
  // When each session was last used, in memory only (a write per request would cost a journal entry):
  // after a restart a session's last activity is its last sign-in or refresh until it is used again.
  const seen = new Map<string, number>();
  const touch = (id: string, now: number) => {
    seen.delete(id);
    seen.set(id, now);
    if (seen.size > SEEN_MAX) seen.delete(seen.keys().next().value as string);
  };
  // Sessions resolved: a token's row, collection and record, so that a caller's next request reads
  // neither again. Each is kept as of the version of the tables it was read from (the collections and
  // the record's table: store.tablesVersion), so writes to other tables (a post created) keep it, and
  // any write to those (a record changed or removed, a collection changed) or a database replaced drops
  // it. Of `_sessions` only writes that may change or remove a row that existed count
  // (store.rowsVersion): a sign-in's new session leaves every kept one as it is; after a session was
  // refreshed or ended (by anyone: a sign-out, a password change, the expired sweep, a hook's SQL), each
  // kept session reads its own row again once (by id) and stays kept only if the row is as it was, so
  // an ended session is refused at once and the others cost one row read instead of a session and a
  // record. On a store without versions (PostgreSQL), nothing is kept.
  // An entry is keyed by the exact token string, so what its claims decide is decided once: `until`, the
  // time (ms) up to which the token is accepted (issuedUntil), is all a request checks against its clock.
  const resolved = new Map<string, { session: SessionRow; collection: Collection; record: Row; tables: readonly string[]; at: number; sessionsAt: number; until: number; bytes: number }>();
  /** How resolves were answered (tests and benches read them): from memory, after the session's row was read again, by reading the session and record. */
  const counts = { kept: 0, rechecked: 0, read: 0 };
  /** When start() may next delete expired sessions. */
  let sweepAt = 0;
  /** The bytes of what `resolved` holds (its entries' `bytes`). */
  let keptBytes = 0;
  const drop = (token: string) => {
    const entry = resolved.get(token);
    if (entry === undefined) return;
    keptBytes -= entry.bytes;
    resolved.delete(token);
  };
  const tablesOf = (c: Collection): readonly string[] => ['_collections', c.name];
  const tablesVersion = (tables: readonly string[]): number | undefined => (store.tablesVersion ? store.tablesVersion(tables) : store.version);
  const SESSIONS = ['_sessions'];
  const sessionsVersion = (): number | undefined => (store.rowsVersion ? store.rowsVersion(SESSIONS) : tablesVersion(SESSIONS));
  return {
    counts: counts as Readonly<typeof counts>,

    /** When the session was last used: a request it authorised, else its last sign-in or refresh. */
    lastActive(s: SessionRow): string {
      const renewed = Date.parse(s.expires) - SESSION_SECONDS * 1000;
      return isoNow(Math.max(seen.get(s.id) ?? 0, Number.isFinite(renewed) ? renewed : 0));
    },

    /**
     * Inside a write transaction: starts a session and returns its token (shown once). `fixed`: an
     * impersonation's session, lasting `fixed.seconds` and never extended (PocketBase's static token).
     */
    async start(tx: WriteTx, collectionId: string, recordId: string, userAgent: string, now = Date.now(), fixed?: { seconds: number }): Promise<{ token: string; session: SessionRow }> {
      const kind = kindFor(collectionId);
      const secret = newSecret(kind);
      const expires = isoNow(now + (fixed?.seconds ?? SESSION_SECONDS) * 1000);
      const session: SessionRow = {
        id: newId(), tokenHash: hashToken(secret), collectionId, recordId,
        created: isoNow(now), expires, userAgent: userAgent.slice(0, 500), issued: '[]', refreshable: fixed ? 0 : 1,
      };
      // expired sessions go now and then (through the index on expires), and only when there are any:
      // a DELETE, even of nothing, makes every kept session read its row again. At most
      // EXPIRED_SWEEP_BATCH a sign-in (a week's backlog of 100k cost 311 ms in one stretch); a full batch
      // leaves the next sign-in to go on (an expired session is refused whether deleted or not)
      if (now >= sweepAt) {
        sweepAt = now + EXPIRED_SWEEP_MS;
        if (await tx.get('SELECT 1 AS "one" FROM "_sessions" WHERE "expires" < ? LIMIT 1', [isoNow(now)])) {
          const { changes } = await tx.run(
            'DELETE FROM "_sessions" WHERE "id" IN (SELECT "id" FROM "_sessions" WHERE "expires" < ? LIMIT ?)',
            [isoNow(now), EXPIRED_SWEEP_BATCH],
          );
          if (changes >= EXPIRED_SWEEP_BATCH) sweepAt = now;
        }
      }
      await tx.run(
        'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent","issued","refreshable") VALUES (?,?,?,?,?,?,?,?,?)',
        [session.id, session.tokenHash, collectionId, recordId, session.created, session.expires, session.userAgent, session.issued, session.refreshable],
      );
      return { token: shapeToken(kind, secret, expSeconds(expires)), session };
    },

    /** The live session a token names, exactly as it was issued, with its auth record; null otherwise. */
    async resolve(token: string, now = Date.now()): Promise<AuthInfo | null> {
      const version = store.version;
      let known = version === undefined ? undefined : resolved.get(token);
      if (known !== undefined && tablesVersion(known.tables) !== known.at) {
        drop(token);
        known = undefined;
      }
      if (known !== undefined && sessionsVersion() !== known.sessionsAt) {
        // a session was refreshed or ended since: is this one's row as it was?
        const entry = known;
        const sessionsAt = sessionsVersion();
        const before = store.version;
        const row = await store.get<SessionRow>('SELECT * FROM "_sessions" WHERE "id" = ?', [entry.session.id]);
        counts.rechecked++;
        if (row !== undefined && sameSession(row, entry.session) && tablesVersion(entry.tables) === entry.at) {
          if (store.version === before && sessionsAt !== undefined) entry.sessionsAt = sessionsAt;
        } else {
          if (resolved.get(token) === entry) drop(token);
          known = undefined;
        }
      }
      if (known !== undefined) {
        // what the store holds is as it was; what time decides is decided again
        if (now >= known.until) return null;
        counts.kept++;
        touch(known.session.id, now);
        return { collection: known.collection, record: { ...known.record }, sessionId: known.session.id };
      }
      if (token.length < 20 || token.length > 100) return null;
      const parts = partsOf(token);
      if (!parts) return null;
      counts.read++;
      const s = await store.get<SessionRow>('SELECT * FROM "_sessions" WHERE "tokenHash" = ?', [hashToken(parts.secret)]);
      if (!s || s.expires <= isoNow(now)) return null;
      const collection = registry.get(s.collectionId);
      const until = collection ? issuedUntil(s, collection, parts, now) : 0;
      if (!collection || now >= until) return null;
      const record = await getRow(store, collection, s.recordId);
      if (!record) return null;
      touch(s.id, now);
      // kept only if no write ended while it was read (then it is what the tables hold at their version)
      const tables = tablesOf(collection);
      const at = tablesVersion(tables);
      const sessionsAt = sessionsVersion();
      const bytes = token.length + rowBytes(s) + rowBytes(record);
      if (version !== undefined && store.version === version && at !== undefined && sessionsAt !== undefined && bytes <= KEPT_ENTRY_MAX_BYTES) {
        drop(token);
        // past either bound the oldest kept go first, as many as it takes (not every kept one at once)
        while (resolved.size > 0 && (resolved.size >= SEEN_MAX || keptBytes + bytes > KEPT_MAX_BYTES)) drop(resolved.keys().next().value as string);
        resolved.set(token, { session: s, collection, record: { ...record }, tables, at, sessionsAt, until, bytes });
        keptBytes += bytes;
      }
      return { collection, record, sessionId: s.id };
    },

    get(db: ReadDb, id: string): Promise<SessionRow | undefined> {
      return db.get<SessionRow>('SELECT * FROM "_sessions" WHERE "id" = ?', [id]);
    },

    listFor(collectionId: string, recordId: string, now = Date.now()): Promise<SessionRow[]> {
      return store.all<SessionRow>(
        'SELECT * FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ? AND "expires" > ? ORDER BY "created" DESC, "id" DESC',
        [collectionId, recordId, isoNow(now)],
      );
    },

    /**
     * Extends a session to its full lifetime and answers its current token, made from the presented
     * token's secret (any copy the session accepts refreshes to the same answer): a superuser's token
     * never changes (it claims no expiry); another record's claims the new exp when that moved to a
     * later second, and the copy it replaces stays accepted until its own exp (the last
     * EARLIER_TOKENS of them). A token of an older kind gets a new secret, and stops working.
     */
    async extend(tx: WriteTx, id: string, presented: string, now = Date.now()): Promise<{ token: string; expires: string }> {
      const s = await tx.get<SessionRow>('SELECT * FROM "_sessions" WHERE "id" = ?', [id]);
      if (!s) throw unauthorized(); // signed out meanwhile
      if (Number(s.refreshable) === 0) throw forbidden('The current auth token is not refreshable.');
      const kind = kindFor(s.collectionId);
      const expires = isoNow(now + SESSION_SECONDS * 1000);
      const parts = partsOf(presented);
      let secret = parts?.secret ?? '';
      let issued = earlierExps(s).filter((exp) => exp > now / 1000);
      if (parts?.kind !== kind) {
        secret = newSecret(kind);
        issued = [];
      } else if (kind === 'expiring' && expSeconds(expires) !== expSeconds(s.expires)) {
        issued = [...issued, expSeconds(s.expires)].slice(-EARLIER_TOKENS);
      }
      await tx.run('UPDATE "_sessions" SET "expires" = ?, "tokenHash" = ?, "issued" = ? WHERE "id" = ?', [expires, hashToken(secret), JSON.stringify(issued), id]);
      return { token: shapeToken(kind, secret, expSeconds(expires)), expires };
    },

    async end(tx: WriteTx, id: string): Promise<void> {
      await tx.run('DELETE FROM "_sessions" WHERE "id" = ?', [id]);
    },

    /** A password change signs the record's other sessions out; the caller's stays live. */
    async endOthers(tx: WriteTx, collectionId: string, recordId: string, keepId: string | null): Promise<void> {
      await tx.run(endOthersSql, [collectionId, recordId, keepId]);
    },

    async endAllFor(tx: WriteTx, collectionId: string, recordId: string): Promise<void> {
      await tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ?', [collectionId, recordId]);
    },

    /** Every session of a collection (its authRule changed, or it is deleted). */
    async endCollection(tx: WriteTx, collectionId: string): Promise<void> {
      await tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ?', [collectionId]);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
