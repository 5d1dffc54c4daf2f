// The system tables every data folder has. Record tables are made per collection by core/collections.
import type { WriteTx } from './db.js';

export async function ensureSystemSchema(tx: WriteTx): Promise<void> {
  await tx.run(`CREATE TABLE IF NOT EXISTS "_collections" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "name" TEXT NOT NULL UNIQUE COLLATE NOCASE,
    "data" JSON NOT NULL
  )`);
  await tx.run(`CREATE TABLE IF NOT EXISTS "_sessions" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "tokenHash" TEXT NOT NULL UNIQUE,
    "collectionId" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "created" TEXT NOT NULL,
    "expires" TEXT NOT NULL,
    "userAgent" TEXT NOT NULL DEFAULT '',
    "issued" TEXT NOT NULL DEFAULT '[]',
    "refreshable" INTEGER NOT NULL DEFAULT 1
  )`);
  // folders (and backups) from before a session kept the expiries its earlier tokens claim
  if (!(await tx.get(`SELECT 1 AS ok FROM pragma_table_info('_sessions') WHERE "name" = 'issued'`))) {
    await tx.run(`ALTER TABLE "_sessions" ADD COLUMN "issued" TEXT NOT NULL DEFAULT '[]'`);
  }
  // folders (and backups) from before impersonation's sessions, which cannot be refreshed
  if (!(await tx.get(`SELECT 1 AS ok FROM pragma_table_info('_sessions') WHERE "name" = 'refreshable'`))) {
    await tx.run(`ALTER TABLE "_sessions" ADD COLUMN "refreshable" INTEGER NOT NULL DEFAULT 1`);
  }
  await tx.run('CREATE INDEX IF NOT EXISTS "_sessions_record" ON "_sessions" ("collectionId", "recordId")');
  // the expired sessions a sign-in deletes (core/session-store.ts start), found without a scan; made here
  // at every open, so folders (and backups) from before it get it too
  await tx.run('CREATE INDEX IF NOT EXISTS "_sessions_expires" ON "_sessions" ("expires")');
  await tx.run(`CREATE TABLE IF NOT EXISTS "_params" ("key" TEXT PRIMARY KEY NOT NULL, "value" JSON)`);
  // e-mail (core/mail/mailer.ts, core/account-mail.ts): the outbox, the mailed tokens' hashes, the request counts
  await tx.run(`CREATE TABLE IF NOT EXISTS "_mails" (
    "id" TEXT PRIMARY KEY NOT NULL, "created" TEXT NOT NULL, "status" TEXT NOT NULL,
    "from" TEXT NOT NULL, "to" TEXT NOT NULL, "subject" TEXT NOT NULL, "html" TEXT NOT NULL, "error" TEXT NOT NULL DEFAULT ''
  )`);
  await tx.run('CREATE INDEX IF NOT EXISTS "_mails_created" ON "_mails" ("created")');
  await tx.run(`CREATE TABLE IF NOT EXISTS "_authTokens" (
    "id" TEXT PRIMARY KEY NOT NULL, "tokenHash" TEXT NOT NULL UNIQUE, "kind" TEXT NOT NULL,
    "collectionId" TEXT NOT NULL, "recordId" TEXT NOT NULL, "email" TEXT NOT NULL, "newEmail" TEXT NOT NULL DEFAULT '',
    "passwordMark" TEXT NOT NULL, "created" INTEGER NOT NULL, "expires" INTEGER NOT NULL
  )`);
  await tx.run('CREATE INDEX IF NOT EXISTS "_authTokens_record" ON "_authTokens" ("collectionId", "recordId", "kind")');
  await tx.run('CREATE TABLE IF NOT EXISTS "_mailRequests" ("key" TEXT NOT NULL, "at" INTEGER NOT NULL)');
  await tx.run('CREATE INDEX IF NOT EXISTS "_mailRequests_key" ON "_mailRequests" ("key", "at")');
  // one-time passwords (core/account-mail.ts): the code's scrypt hash, never the code
  await tx.run(`CREATE TABLE IF NOT EXISTS "_otps" (
    "id" TEXT PRIMARY KEY NOT NULL, "collectionId" TEXT NOT NULL, "recordId" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL, "sentTo" TEXT NOT NULL DEFAULT '', "created" INTEGER NOT NULL
  )`);
  await tx.run('CREATE INDEX IF NOT EXISTS "_otps_record" ON "_otps" ("collectionId", "recordId")');
  // the devices each auth record signed in from (core/account-mail.ts `authAlert`): a fingerprint's SHA-256
  await tx.run(`CREATE TABLE IF NOT EXISTS "_authOrigins" (
    "id" TEXT PRIMARY KEY NOT NULL, "collectionId" TEXT NOT NULL, "recordId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL, "created" INTEGER NOT NULL, "updated" INTEGER NOT NULL
  )`);
  await tx.run('CREATE INDEX IF NOT EXISTS "_authOrigins_record" ON "_authOrigins" ("collectionId", "recordId")');
  // the JS migrations applied (server/hooks/migrations.ts), as PocketBase's: file name, when (Unix microseconds)
  await tx.run('CREATE TABLE IF NOT EXISTS "_migrations" ("file" TEXT PRIMARY KEY NOT NULL, "applied" INTEGER NOT NULL)');
  // MFA sessions between a first and a second sign-in method (core/sign-in.ts `finish`)
  await tx.run(`CREATE TABLE IF NOT EXISTS "_mfas" (
    "id" TEXT PRIMARY KEY NOT NULL, "collectionId" TEXT NOT NULL, "recordId" TEXT NOT NULL,
    "method" TEXT NOT NULL, "created" INTEGER NOT NULL
  )`);
  // a record's rows found when it is deleted (core/account-rows.ts)
  await tx.run('CREATE INDEX IF NOT EXISTS "_mfas_record" ON "_mfas" ("collectionId", "recordId")');
  // cron runs claimed (server/hooks/cron-claims.ts): one row per job and tick, so a tick runs once across nodes
  await tx.run(`CREATE TABLE IF NOT EXISTS "_cronRuns" (
    "job" TEXT NOT NULL, "tick" INTEGER NOT NULL, "node" TEXT NOT NULL, "started" INTEGER NOT NULL, "finished" INTEGER,
    PRIMARY KEY ("job", "tick")
  )`);
}
