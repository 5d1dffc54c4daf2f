// Server-side sessions (Deskbase differs from PocketBase here: no signed JWTs): a token's random
// secret names a row of `_sessions`; only the secret's SHA-256 is stored. The token is shaped so the
// PocketBase SDKs read its expiry (session-token.ts); nothing in it but the secret is trusted.
// Lifetime 7 days, sliding on refresh.
import type { ReadDb, Store, WriteTx } from '../store/db.js';
import { hashToken, isoNow, newId } from './ids.js';
import { isUnshaped, newSecret, secretOf, shapeToken } from './session-token.js';
import type { Registry } from './collection-registry.js';
import { ident } from '../filter/sql.js';
import type { AuthInfo, Row } from './types.js';

export const SESSION_SECONDS = 604800;

export interface SessionRow {
  id: string;
  tokenHash: string;
  collectionId: string;
  recordId: string;
  created: string;
  expires: string;
  userAgent: string;
}

export function createSessions(store: Store, registry: Registry) {
  return {
    /** Inside a write transaction: starts a session and returns its token (shown once). */
    start(tx: WriteTx, collectionId: string, recordId: string, userAgent: string, now = Date.now()): { token: string; session: SessionRow } {
      const secret = newSecret();
      const expires = isoNow(now + SESSION_SECONDS * 1000);
      const session: SessionRow = {
        id: newId(), tokenHash: hashToken(secret), collectionId, recordId,
        created: isoNow(now), expires, userAgent: userAgent.slice(0, 500),
      };
      tx.run('DELETE FROM "_sessions" WHERE "expires" < ?', [isoNow(now)]);
      tx.run(
        'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
        [session.id, session.tokenHash, collectionId, recordId, session.created, session.expires, session.userAgent],
      );
      return { token: shapeToken(secret, expires), session };
    },

    /** The live session a token names, with its auth record; null when unknown or expired. */
    resolve(token: string, now = Date.now()): AuthInfo | null {
      if (token.length < 20 || token.length > 100) return null;
      const s = store.get<SessionRow>('SELECT * FROM "_sessions" WHERE "tokenHash" = ?', [hashToken(secretOf(token))]);
      if (!s || s.expires <= isoNow(now)) return null;
      const collection = registry.get(s.collectionId);
      if (!collection) return null;
      const record = store.get<Row>(`SELECT * FROM ${ident(collection.name)} WHERE "id" = ?`, [s.recordId]);
      if (!record) return null;
      return { collection, record, sessionId: s.id };
    },

    get(db: ReadDb, id: string): SessionRow | undefined {
      return db.get<SessionRow>('SELECT * FROM "_sessions" WHERE "id" = ?', [id]);
    },

    listFor(collectionId: string, recordId: string, now = Date.now()): SessionRow[] {
      return store.all<SessionRow>(
        'SELECT * FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ? AND "expires" > ? ORDER BY "created" DESC, "id" DESC',
        [collectionId, recordId, isoNow(now)],
      );
    },

    /**
     * Extends a session to its full lifetime; answers the token presented, re-shaped with the new
     * expiry (the same secret: other copies keep naming the session, as the session decides). A token
     * of the older unshaped kind gets a new secret in its place, so the client can read its expiry.
     */
    extend(tx: WriteTx, id: string, presented: string, now = Date.now()): { token: string; expires: string } {
      const expires = isoNow(now + SESSION_SECONDS * 1000);
      let secret = secretOf(presented);
      if (isUnshaped(presented)) {
        secret = newSecret();
        tx.run('UPDATE "_sessions" SET "expires" = ?, "tokenHash" = ? WHERE "id" = ?', [expires, hashToken(secret), id]);
      } else {
        tx.run('UPDATE "_sessions" SET "expires" = ? WHERE "id" = ?', [expires, id]);
      }
      return { token: shapeToken(secret, expires), expires };
    },

    end(tx: WriteTx, id: string): void {
      tx.run('DELETE FROM "_sessions" WHERE "id" = ?', [id]);
    },

    /** A password change signs the record's other sessions out; the caller's stays live. */
    endOthers(tx: WriteTx, collectionId: string, recordId: string, keepId: string | null): void {
      tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ? AND "id" IS NOT ?', [collectionId, recordId, keepId]);
    },

    endAllFor(tx: WriteTx, collectionId: string, recordId: string): void {
      tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ? AND "recordId" = ?', [collectionId, recordId]);
    },

    /** Every session of a collection (its authRule changed, or it is deleted). */
    endCollection(tx: WriteTx, collectionId: string): void {
      tx.run('DELETE FROM "_sessions" WHERE "collectionId" = ?', [collectionId]);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
