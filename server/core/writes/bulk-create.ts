// Many prepared creates of one collection applied as one write (a records import): the same rows the
// creates' own applies would insert, in multi-row INSERTs of up to ROWS_PER_STATEMENT rows, handed to
// the change feed as the rows they are (no read back). A chunk SQLite refuses (a unique index, an id
// already stored) is applied again create by create, so the error is the one a single create gives. Only creates whose
// apply would do nothing but insert (`PreparedCreate.bulk`) take this path; the others apply as usual.
// The statements run inside the one transaction in slices (`LoopSlice`): other requests are answered
// between them, while readers of the store wait for the commit as for any write.
import { ident } from '../../filter/sql.js';
import type { WriteTx } from '../../store/db.js';
import { LONG_WRITE_ROWS, LoopSlice } from '../../loop-slice.js';
import type { Collection, Row, SqlValue } from '../../model/types.js';
import type { RecordChange } from './changes.js';
import type { PreparedCreate } from './prepare-create.js';
import type { PreparedWrite } from './prepared.js';

/** Rows per statement: SQLite binds at most 32,766 parameters, and longer statements gain little. */
const ROWS_PER_STATEMENT = 200;

async function insertChunk(tx: WriteTx, c: Collection, chunk: PreparedCreate[], changes: RecordChange[], at: (i: number) => void): Promise<void> {
  const cols = c.fields.map((f) => ident(f.name));
  const one = `(${cols.map(() => '?').join(', ')})`;
  const bulk = chunk.map((w) => w.bulk);
  let stored: SqlValue[][];
  try {
    if (bulk.some((b) => b === null)) throw new Error('not bulk');
    stored = bulk.map((b) => (b as NonNullable<typeof b>).values());
    await tx.run(`INSERT INTO ${ident(c.name)} (${cols.join(', ')}) VALUES ${chunk.map(() => one).join(', ')}`, stored.flat());
  } catch {
    // a failed statement changed nothing: each create again, for its own answer
    for (const [i, w] of chunk.entries()) {
      at(i);
      await w.apply(tx, changes);
    }
    return;
  }
  // The rows are the values just inserted, column for column: reading 200 whole rows back per statement
  // cost a fifth of a 100k-row import's one transaction. (SQLite's column affinity may store a
  // JSON column's numeric text as a number; the fields' readers take either form.)
  for (const values of stored) {
    const after: Row = {};
    c.fields.forEach((f, i) => (after[f.name] = values[i]));
    changes.push({ action: 'create', collection: c, before: null, after });
  }
}

/**
 * One write applying every create in `creates` (all of collection `c`). `onRow(i)` hears the index of
 * a create about to be applied alone, so a caller can name the row an error comes from.
 */
export function bulkCreate(c: Collection, creates: PreparedCreate[], onRow: (index: number) => void = () => {}): PreparedWrite<number> {
  return {
    async apply(tx, changes) {
      // reads from outside go on, on the data as committed, while many rows go in
      if (creates.length >= LONG_WRITE_ROWS) await tx.keepReadsGoing?.();
      const slice = new LoopSlice();
      for (let start = 0; start < creates.length; start += ROWS_PER_STATEMENT) {
        await insertChunk(tx, c, creates.slice(start, start + ROWS_PER_STATEMENT), changes, (i) => onRow(start + i));
        if (slice.due) await slice.pause();
      }
      return creates.length;
    },
    async afterCommit() {
      for (const w of creates) await w.afterCommit?.();
    },
    async afterRollback() {
      for (const w of creates) await w.afterRollback?.();
    },
  };
}
