// PostgreSQL's errors as core knows them from the desktop engine, by SQLSTATE (never by wording): a
// unique violation carries `storeFailure` (store/contract.ts: the index, or the columns of a key) and
// reads as SQLite's "UNIQUE constraint failed: ..."; a statement cancelled under a budget is
// QueryTimeoutError; a full disk is the disk's ENOSPC (which the HTTP layer answers with a 503,
// nothing changed); a text with U+0000 in it, which PostgreSQL cannot take, is a 400; a database that
// cannot be reached (down, failing over, restarting, a connection lost mid-way, a standby after a
// switchover) is DatabaseUnavailable, a 503. Anything else keeps PostgreSQL's message, with its
// SQLSTATE as `code`.
import { ApiError } from '../errors.js';
import type { StoreFailure } from '../store/contract.js';
import { QueryTimeoutError } from '../store/deadline.js';
import type { QueryBudget } from '../store/deadline.js';
import { backstopReached } from './budget.js';

/** The fields of postgres.js's PostgresError that the mapping reads. */
interface PgErrorShape {
  code?: unknown;
  routine?: unknown;
  message: string;
  constraint_name?: string;
  table_name?: string;
  detail?: string;
}

const UNIQUE_VIOLATION = '23505';
const QUERY_CANCELED = '57014';
/** character_not_in_repertoire: a text bound with U+0000 (PostgreSQL's text cannot hold it). */
const NUL_IN_TEXT = '22021';
const DISK_FULL = '53100';
const OUT_OF_MEMORY = '53200';

/**
 * The database is not there to answer: postgres.js's own connection errors, the socket's, and the
 * SQLSTATEs of a server going away or not taking work yet. Class 08 (connection exception) too.
 */
const UNREACHABLE = new Set([
  // postgres.js (src/errors.js): the connection closed, destroyed, ended, or never opened in time
  'CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT',
  // the socket
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  // admin_shutdown (a fast stop, a demotion), crash_shutdown, cannot_connect_now (starting, recovering)
  '57P01', '57P02', '57P03',
  // too_many_connections
  '53300',
]);
/** read_only_sql_transaction: a write reached a server that is (now) a standby, after a switchover. */
const READ_ONLY_TRANSACTION = '25006';

/**
 * The 503 of a team server whose PostgreSQL cannot be reached (http/app.ts answers ApiErrors as they
 * are, in every layer: batch, realtime...). `inDoubt`: the connection was lost while a COMMIT was on
 * its way, so whether it was saved cannot be known; otherwise nothing was changed.
 */
export class DatabaseUnavailable extends ApiError {
  readonly code: string = 'EDESKBASE_DATABASE_UNAVAILABLE';
  constructor(inDoubt: boolean, options?: { cause?: unknown; message?: string }) {
    super(503, options?.message ?? (inDoubt
      ? 'The connection to the database was lost while this change was being saved: it may or may not have been saved. Check before trying again'
      : 'The database cannot be reached right now (it may be failing over to another server). Nothing was changed; try again in a moment'));
    this.name = 'DatabaseUnavailable';
    if (options?.cause !== undefined) Object.defineProperty(this, 'cause', { value: options.cause, enumerable: false });
  }
}

/**
 * What an operation waited for when it ran out of its wait while the database answered: a pooled
 * connection (connections.ts), or the node's write turn (store.ts `turn`).
 */
export type BusyWait = 'connection' | 'write turn';

/**
 * No pooled connection came free within the wait while every one was busy with other operations, or
 * the node's write turn did not come to a write within it (other writes held it): the database
 * answers, this node's connections or its write turn are all taken (a 503 as an outage is, and
 * retried as one, but not called one, and it does not shorten the next operations' wait as an outage
 * does). Nothing of the operation was sent.
 */
export class DatabaseBusy extends DatabaseUnavailable {
  override readonly code = 'EDESKBASE_DATABASE_BUSY';
  constructor(waitMs: number, waited: BusyWait = 'connection') {
    const s = Math.round(waitMs / 100) / 10;
    const what = waited === 'connection' ? `no connection came free within ${s} s` : `other writes held the write turn for ${s} s`;
    super(false, { message: `The database is busy: ${what}. Nothing was changed; try again in a moment` });
    this.name = 'DatabaseBusy';
  }
}

/** Whether `err` says the database is not there to answer (UNREACHABLE, class 08; 25006 when writing). */
export function isUnreachable(err: unknown, writing = false): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return UNREACHABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code) || (writing && code === READ_ONLY_TRANSACTION);
}

/**
 * A failed statement's error as core expects it. `budget`: the budget the statement ran under (a
 * cancellation under one is that budget's doing: statement_timeout is how it is enforced). `writing`:
 * it ran in a write transaction (a read-only refusal then means the server became a standby);
 * `committing`: it was the COMMIT (a lost connection leaves its outcome in doubt).
 */
export function mapPgError(err: unknown, budget: QueryBudget | null | undefined, at: { writing?: boolean; committing?: boolean } = {}): unknown {
  if (typeof err !== 'object' || err === null || !(err instanceof Error)) return err;
  if (err instanceof ApiError) return err;
  if (isUnreachable(err, at.writing === true)) return new DatabaseUnavailable(at.committing === true, { cause: err });
  const pg = err as Error & PgErrorShape;
  switch (pg.code) {
    case UNIQUE_VIOLATION: {
      const failure = uniqueFailure(pg);
      const target = failure.index !== undefined ? `index '${failure.index}'` : (failure.columns ?? []).map((c) => `${pg.table_name ?? ''}.${c}`).join(', ');
      return Object.assign(new Error(`UNIQUE constraint failed: ${target}`, { cause: err }), { code: 'SQLITE_CONSTRAINT_UNIQUE', storeFailure: failure });
    }
    case NUL_IN_TEXT:
      // a value that reached a statement with it (a filter's, an id in the URL): writes refuse theirs
      // earlier, naming the field (core/writes/write-sql.ts, unstorableErrors)
      return new ApiError(400, 'The request holds the character U+0000 (NUL), which the team server\'s PostgreSQL cannot take.');
    case QUERY_CANCELED:
      if (budget != null) {
        // PostgreSQL stopped the statement at what was left of the budget's backstop: it is reached,
        // whatever our clock measured around the round trip (so the operation's next call is refused at once)
        backstopReached(budget);
        return new QueryTimeoutError(budget.limit, { cause: err });
      }
      // a statement_timeout core set itself for a stretch of a write (a view's creation, view-postgres.ts)
      return /statement timeout/.test(pg.message) ? new QueryTimeoutError(Number.NaN, { cause: err }) : err;
    case DISK_FULL:
      return withCode(new Error(`PostgreSQL's disk is full: ${pg.message}`, { cause: err }), 'ENOSPC');
    case OUT_OF_MEMORY:
      return withCode(new Error(`PostgreSQL is out of memory: ${pg.message}`, { cause: err }), 'ENOMEM');
    default:
      return err;
  }
}

/**
 * A prepared statement whose result's columns changed since it was prepared on that connection
 * (`SELECT *` after a schema change, by this node or another): 0A000 "cached plan must not change
 * result type". postgres.js forgets the statement and runs it again, which works outside a
 * transaction; inside one the transaction is aborted by then, so the store runs it again itself.
 */
export function isStalePlan(err: unknown): boolean {
  const pg = err as Partial<PgErrorShape> | null;
  return typeof pg === 'object' && pg !== null && pg.code === '0A000' && pg.routine === 'RevalidateCachedQuery';
}

/**
 * What a unique violation refused: the columns of a table's own key or UNIQUE column (PostgreSQL names
 * those constraints <table>_pkey and <table>_<columns>_key), else the unique index by its name.
 */
function uniqueFailure(pg: PgErrorShape): Extract<StoreFailure, { kind: 'unique' }> {
  const name = pg.constraint_name ?? '';
  const key = /^Key \((.+?)\)=/.exec(pg.detail ?? '');
  if (key && (name.endsWith('_pkey') || name.endsWith('_key'))) {
    return { kind: 'unique', columns: key[1].split(',').map((c) => c.trim().replace(/^"|"$/g, '')) };
  }
  return { kind: 'unique', index: name };
}

function withCode(error: Error, code: string): Error {
  return Object.assign(error, { code });
}
