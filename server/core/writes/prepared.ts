// The shape of one record write in the funnel (funnel.ts), in three steps:
//   prepare (async, before the transaction): normalise the body, pre-check the rules, validate, hash;
//   apply(tx) (inside the store transaction, its reads and writes through tx): re-check what may have
//     changed since, run the SQL and the cascades, report every record change;
//   after the write is durable (or rolled back): effects that must wait for the outcome.
// Several prepared writes can be applied in one transaction (one journal entry, one sync, all or
// nothing): the seam batch requests build on; realtime listens to the changes (changes.ts); file
// fields stage files in prepare and delete replaced ones after the commit.
import type { FileStorage } from '../../files/storage.js';
import type { ReadDb, WriteTx } from '../../store/db.js';
import type { Registry } from '../collection-registry.js';
import type { Sessions } from '../session-store.js';
import type { SignInBlock } from '../sign-in-limiter.js';
import type { Passwords } from '../passwords.js';
import type { Dialect } from '../../rules/compile.js';
import type { RecordChange } from './changes.js';

export interface PreparedWrite<T> {
  /**
   * Runs inside the transaction: re-checks the rules against the rows as they are now, writes, and
   * pushes each record it creates, changes or deletes to `changes`. Throwing rolls the whole
   * transaction back (every write applied with it included).
   */
  apply(tx: WriteTx, changes: RecordChange[]): Promise<T>;
  /** After the transaction is committed and its journal entry synced. */
  afterCommit?(): void | Promise<void>;
  /** After the transaction rolled back or its journal append failed: undoes what prepare staged. */
  afterRollback?(): void | Promise<void>;
}

/** What the prepare steps read and write through. */
export interface WriteDeps {
  /** The operation's reads, under its query budget. */
  db: ReadDb;
  registry: Registry;
  sessions: Sessions;
  /** Where file fields' uploads are placed. */
  files: FileStorage;
  /** The write's transaction when the prepare step runs inside it (a write with hooks): uploads are placed through it. */
  tx?: WriteTx;
  /** The sign-in block, which `oldPassword` checks count against (sign-in-limiter.ts). */
  limiter: SignInBlock;
  /** The server's password hashing (passwords.ts). */
  passwords: Passwords;
  /** The SQL the store takes (env.ts). */
  dialect: Dialect;
}

/** What checks and hashes passwords: the sign-in block and the hashing pool, one of each per server. */
export type Credentials = Pick<WriteDeps, 'limiter' | 'passwords'>;

export interface WriteOptions {
  /** Internal callers (setup) act with superuser rights without a signed-in superuser. */
  system?: boolean;
  /**
   * A records import: ids a relation may name without a query, per target collection: records the
   * same import creates (before they exist) and those it found stored in one query per target.
   */
  knownIds?: (collectionId: string) => ReadonlySet<string> | undefined;
  /** A records import: submitted autodate values are kept (a record that moves keeps its times). */
  keepAutodates?: boolean;
}
