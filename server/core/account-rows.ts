// What an auth record has beside its own row, kept in system tables, and deleted with it (a record's
// delete, its cascade and a truncate: writes/cascade.ts; a collection's: collections.ts and a schema
// import's deleteMissing): its sessions are the session store's (session-store.ts `endAllFor`,
// `endCollection`); here its OAuth2 links (`_externalAuths`), mailed tokens' hashes (`_authTokens`),
// one-time passwords (`_otps`), MFA steps (`_mfas`), known devices (`_authOrigins`) and OTP attempt
// counts (`_mailRequests`, account-mail.ts). A record made later with the same id inherits none of them.
import type { WriteTx } from '../store/db.js';

/** The `_mailRequests` key counting a record's OTP attempts (account-mail.ts). */
export const otpAttemptKey = (collectionId: string, recordId: string): string => `otpAttempt:${collectionId}:${recordId}`;

/**
 * The `_mailRequests` key counting the OTP attempts at an e-mail no record had (its decoy codes,
 * account-mail.ts requestOTP): under the collection's prefix (deleted with it), `@` and the address.
 */
export const otpDecoyAttemptKey = (collectionId: string, email: string): string => otpAttemptKey(collectionId, `@${email}`);

const BY_RECORD: readonly [table: string, collection: string, record: string][] = [
  ['_externalAuths', 'collectionRef', 'recordRef'],
  ['_authTokens', 'collectionId', 'recordId'],
  ['_otps', 'collectionId', 'recordId'],
  ['_mfas', 'collectionId', 'recordId'],
  ['_authOrigins', 'collectionId', 'recordId'],
];

/** Deletes the rows of one record (`recordId`), or of every record of the collection. */
export async function deleteAccountRows(tx: WriteTx, collectionId: string, recordId?: string): Promise<void> {
  for (const [table, collection, record] of BY_RECORD) {
    if (recordId === undefined) await tx.run(`DELETE FROM "${table}" WHERE "${collection}" = ?`, [collectionId]);
    else await tx.run(`DELETE FROM "${table}" WHERE "${collection}" = ? AND "${record}" = ?`, [collectionId, recordId]);
  }
  const prefix = otpAttemptKey(collectionId, '').replace(/[\\%_]/g, (ch) => `\\${ch}`);
  if (recordId === undefined) await tx.run(`DELETE FROM "_mailRequests" WHERE "key" LIKE ? ESCAPE '\\'`, [`${prefix}%`]);
  else await tx.run('DELETE FROM "_mailRequests" WHERE "key" = ?', [otpAttemptKey(collectionId, recordId)]);
}
