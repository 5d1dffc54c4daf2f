// File tokens (`POST /api/files/token`, `?token=` on a protected file): short-lived (3 minutes, as
// PocketBase's fileToken), shaped like a JWT so the SDK and apps that read `exp` work, and naming the
// caller's session, which must still be live when the token is used (signing out ends its file
// tokens too). Signed with HMAC-SHA256 under a secret no API answers (fileTokenSecret): on the desktop
// one of this process's own (a restart ends every file token, which a 3-minute token can afford; the
// data folder and its backups never hold it); on a team server one kept in the database's `_params`,
// so that a token issued by one node is accepted by every other.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Registry } from './collection-registry.js';
import { isoNow } from './ids.js';
import type { Sessions } from './session-store.js';
import type { ReadDb, Store } from '../store/db.js';
import { ident } from '../filter/sql.js';
import type { AuthInfo, Row } from '../model/types.js';

export const FILE_TOKEN_SECONDS = 180;
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** The `_params` key of a team server's file-token secret. */
const SECRET_PARAM = 'fileTokenSecret';

/**
 * The secret file tokens are signed with: a new one of this process's on the desktop; on a team server
 * the database's, created once by whichever node asks first (an insert that does nothing when another
 * node's is there, then a read of the one that is, in one transaction: concurrent starts agree).
 */
export async function fileTokenSecret(store: Store): Promise<Buffer> {
  if (store.dialect !== 'postgres') return randomBytes(32);
  const row = await store.write(async (tx) => {
    await tx.run('INSERT INTO "_params" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING', [SECRET_PARAM, randomBytes(32).toString('base64url')]);
    return tx.get<{ value: string }>('SELECT "value" FROM "_params" WHERE "key" = ?', [SECRET_PARAM]);
  });
  const secret = Buffer.from(String(row?.value ?? ''), 'base64url');
  if (secret.length < 32) throw new Error(`The database's ${SECRET_PARAM} (in _params) is not a 32-byte secret: delete that row and start again.`);
  return secret;
}

export function createFileTokens(db: ReadDb, registry: Registry, sessions: Sessions, secret: Buffer, now: () => number = Date.now) {
  const sign = (text: string) => createHmac('sha256', secret).update(text).digest();

  return {
    issue(auth: AuthInfo): string {
      const payload = { type: 'file', collectionId: auth.collection.id, id: String(auth.record.id), sid: auth.sessionId, exp: Math.floor(now() / 1000) + FILE_TOKEN_SECONDS };
      const body = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
      return `${body}.${sign(body).toString('base64url')}`;
    },

    /** The caller a valid, unexpired token names whose session is still live; null otherwise. */
    /** `reader`: the reads of the operation asking (its budget); the store's by default. */
    async resolve(token: string, reader: ReadDb = db): Promise<AuthInfo | null> {
      if (token.length === 0 || token.length > 1000) return null;
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const given = Buffer.from(parts[2], 'base64url');
      const expected = sign(`${parts[0]}.${parts[1]}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let claims: { sid?: unknown; exp?: unknown };
      try {
        claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as typeof claims;
      } catch {
        return null;
      }
      if (typeof claims.sid !== 'string' || typeof claims.exp !== 'number' || claims.exp * 1000 <= now()) return null;
      const session = await sessions.get(reader, claims.sid);
      if (!session || session.expires <= isoNow(now())) return null;
      const collection = registry.get(session.collectionId);
      if (!collection) return null;
      const record = await reader.get<Row>(`SELECT * FROM ${ident(collection.name)} WHERE "id" = ?`, [session.recordId]);
      return record ? { collection, record, sessionId: session.id } : null;
    },
  };
}

export type FileTokens = ReturnType<typeof createFileTokens>;
