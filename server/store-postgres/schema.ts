// The system tables of store/schema.ts on PostgreSQL, created when the store opens (idempotent, and
// safe when several nodes open the same database at once: one transaction-scoped advisory lock). Same
// names, columns and meaning as on the desktop; texts in byte order (COLLATE "C", SQLite's BINARY);
// SQLite's `COLLATE NOCASE` on a collection's name (ASCII letters only) as a unique index over the
// name folded the same way; JSON kept as the stored text. Record tables are made per collection by
// core (filter/dialect.ts `postgresTableSql`).
import type { WriteTx } from '../store/contract.js';

/** The advisory lock key taken while the schema is checked (any fixed number: "dskb" in ASCII). */
export const SCHEMA_LOCK_KEY = 0x64736b62;

const TEXT = 'text COLLATE "C"';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export const POSTGRES_SYSTEM_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "_collections" (
    "id" ${TEXT} PRIMARY KEY NOT NULL,
    "name" ${TEXT} NOT NULL,
    "data" ${TEXT} NOT NULL CHECK (CAST("data" AS json) IS NOT NULL)
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS "_collections_name_nocase" ON "_collections" (translate("name", '${UPPER}', '${UPPER.toLowerCase()}'))`,
  `CREATE TABLE IF NOT EXISTS "_sessions" (
    "id" ${TEXT} PRIMARY KEY NOT NULL,
    "tokenHash" ${TEXT} NOT NULL UNIQUE,
    "collectionId" ${TEXT} NOT NULL,
    "recordId" ${TEXT} NOT NULL,
    "created" ${TEXT} NOT NULL,
    "expires" ${TEXT} NOT NULL,
    "userAgent" ${TEXT} NOT NULL DEFAULT '',
    "issued" ${TEXT} NOT NULL DEFAULT '[]',
    "refreshable" integer NOT NULL DEFAULT 1
  )`,
  // databases from before impersonation's sessions, which cannot be refreshed
  'ALTER TABLE "_sessions" ADD COLUMN IF NOT EXISTS "refreshable" integer NOT NULL DEFAULT 1',
  'CREATE INDEX IF NOT EXISTS "_sessions_record" ON "_sessions" ("collectionId", "recordId")',
  // the expired sessions a sign-in deletes (core/session-store.ts start); databases from before it get it at open
  'CREATE INDEX IF NOT EXISTS "_sessions_expires" ON "_sessions" ("expires")',
  `CREATE TABLE IF NOT EXISTS "_params" ("key" ${TEXT} PRIMARY KEY NOT NULL, "value" ${TEXT})`,
  // The files of records (files/db-storage.ts): one row per stored file (`thumb`: '' for an original, a
  // thumbnail's size), its bytes in chunks kept out of line, uncompressed (EXTERNAL: most uploads are
  // compressed already, and a range reads only the chunks it covers). `staged`: placed by a write not
  // committed yet; `stagedAt`, `created`: the database's clock in ms.
  `CREATE TABLE IF NOT EXISTS "_files" (
    "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    "collectionId" ${TEXT} NOT NULL,
    "recordId" ${TEXT} NOT NULL,
    "name" ${TEXT} NOT NULL,
    "thumb" ${TEXT} NOT NULL DEFAULT '',
    "size" bigint NOT NULL,
    "created" bigint NOT NULL DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint,
    "staged" ${TEXT},
    "stagedAt" bigint
  )`,
  'CREATE UNIQUE INDEX IF NOT EXISTS "_files_name" ON "_files" ("collectionId", "recordId", "name", "thumb")',
  'CREATE INDEX IF NOT EXISTS "_files_staged" ON "_files" ("stagedAt") WHERE "staged" IS NOT NULL',
  `CREATE TABLE IF NOT EXISTS "_file_chunks" (
    "file" bigint NOT NULL REFERENCES "_files" ("id") ON DELETE CASCADE,
    "seq" integer NOT NULL,
    "data" bytea NOT NULL,
    PRIMARY KEY ("file", "seq")
  )`,
  'ALTER TABLE "_file_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL',
  // e-mail (core/mail/mailer.ts, core/account-mail.ts): the outbox, the mailed tokens' hashes, the request counts
  `CREATE TABLE IF NOT EXISTS "_mails" (
    "id" ${TEXT} PRIMARY KEY NOT NULL, "created" ${TEXT} NOT NULL, "status" ${TEXT} NOT NULL,
    "from" ${TEXT} NOT NULL, "to" ${TEXT} NOT NULL, "subject" ${TEXT} NOT NULL, "html" ${TEXT} NOT NULL, "error" ${TEXT} NOT NULL DEFAULT ''
  )`,
  'CREATE INDEX IF NOT EXISTS "_mails_created" ON "_mails" ("created")',
  `CREATE TABLE IF NOT EXISTS "_authTokens" (
    "id" ${TEXT} PRIMARY KEY NOT NULL, "tokenHash" ${TEXT} NOT NULL UNIQUE, "kind" ${TEXT} NOT NULL,
    "collectionId" ${TEXT} NOT NULL, "recordId" ${TEXT} NOT NULL, "email" ${TEXT} NOT NULL, "newEmail" ${TEXT} NOT NULL DEFAULT '',
    "passwordMark" ${TEXT} NOT NULL, "created" bigint NOT NULL, "expires" bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS "_authTokens_record" ON "_authTokens" ("collectionId", "recordId", "kind")',
  `CREATE TABLE IF NOT EXISTS "_mailRequests" ("key" ${TEXT} NOT NULL, "at" bigint NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS "_mailRequests_key" ON "_mailRequests" ("key", "at")',
  // one-time passwords (core/account-mail.ts): the code's scrypt hash, never the code
  `CREATE TABLE IF NOT EXISTS "_otps" (
    "id" ${TEXT} PRIMARY KEY NOT NULL, "collectionId" ${TEXT} NOT NULL, "recordId" ${TEXT} NOT NULL,
    "codeHash" ${TEXT} NOT NULL, "sentTo" ${TEXT} NOT NULL DEFAULT '', "created" bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS "_otps_record" ON "_otps" ("collectionId", "recordId")',
  // the devices each auth record signed in from (core/account-mail.ts `authAlert`): a fingerprint's SHA-256
  `CREATE TABLE IF NOT EXISTS "_authOrigins" (
    "id" ${TEXT} PRIMARY KEY NOT NULL, "collectionId" ${TEXT} NOT NULL, "recordId" ${TEXT} NOT NULL,
    "fingerprint" ${TEXT} NOT NULL, "created" bigint NOT NULL, "updated" bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS "_authOrigins_record" ON "_authOrigins" ("collectionId", "recordId")',
  // MFA sessions between a first and a second sign-in method (core/sign-in.ts `finish`)
  `CREATE TABLE IF NOT EXISTS "_mfas" (
    "id" ${TEXT} PRIMARY KEY NOT NULL, "collectionId" ${TEXT} NOT NULL, "recordId" ${TEXT} NOT NULL,
    "method" ${TEXT} NOT NULL, "created" bigint NOT NULL
  )`,
  // a record's rows found when it is deleted (core/account-rows.ts)
  'CREATE INDEX IF NOT EXISTS "_mfas_record" ON "_mfas" ("collectionId", "recordId")',
  // the JS migrations applied (server/hooks/migrations.ts), as PocketBase's: file name, when (Unix microseconds)
  `CREATE TABLE IF NOT EXISTS "_migrations" ("file" ${TEXT} PRIMARY KEY NOT NULL, "applied" bigint NOT NULL)`,
  // the sign-in block every node counts against (core/sign-in-limiter.ts StoreFailureLimiter)
  `CREATE TABLE IF NOT EXISTS "_signInFailures" (
    "key" ${TEXT} PRIMARY KEY NOT NULL,
    "start" bigint NOT NULL,
    "reserved" integer NOT NULL,
    "forgiven" integer NOT NULL
  )`,
  // cron runs claimed (server/hooks/cron-claims.ts): one row per job and tick, so a tick runs once across nodes
  `CREATE TABLE IF NOT EXISTS "_cronRuns" (
    "job" ${TEXT} NOT NULL, "tick" bigint NOT NULL, "node" ${TEXT} NOT NULL, "started" bigint NOT NULL, "finished" bigint,
    PRIMARY KEY ("job", "tick")
  )`,
];

/** Creates the system tables that are missing, one node at a time (the lock ends with the transaction). */
export async function ensurePostgresSchema(tx: WriteTx): Promise<void> {
  await tx.run(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`);
  for (const statement of POSTGRES_SYSTEM_SCHEMA) await tx.run(statement);
}
