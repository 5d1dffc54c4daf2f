// Which tables a committed write changed, from the statements the journal records (codec.ts): so that
// what is kept in memory about a few tables (the sessions of tokens: core/session-store.ts) outlives
// writes to the others. Only what is certain counts: an INSERT, UPDATE or DELETE naming one quoted
// table changes that table alone (foreign keys are off: recovery.ts; no trigger exists, checked at
// open and whenever the database is replaced); known schema statements (CREATE/DROP TABLE, INDEX,
// VIEW, ALTER TABLE) may change any table; anything else (a trigger created, a pragma, a statement of
// another shape) may change any table, then and at every write after it, until the store reopens.

/**
 * `INSERT [OR x] INTO t`, `REPLACE INTO t`, `UPDATE [OR x] t`, `DELETE FROM t`, `t` quoted or plain: the
 * one table it writes. Not a schema's name: SQLite reads `main . t` (spaces or comments around the dot)
 * as main.t.
 */
const WRITES_ONE = /^\s*(?:INSERT\s+(?:OR\s+[A-Za-z]+\s+)?INTO|REPLACE\s+INTO|UPDATE\s+(?:OR\s+[A-Za-z]+\s+)?|DELETE\s+FROM)\s*(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_]*))(?=[\s(]|$)(?!(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*\.)/i;
/** Schema statements of the shapes Deskbase writes: they may change any table, and nothing after them. */
const SCHEMA = /^\s*(?:CREATE\s+(?:UNIQUE\s+)?INDEX|CREATE\s+TABLE|CREATE\s+VIEW|DROP\s+(?:TABLE|INDEX|VIEW)|ALTER\s+TABLE)\s/i;
/**
 * A plain INSERT (or one that ignores a conflict): it adds rows and changes none that existed. REPLACE
 * and an upsert (`ON CONFLICT ... DO UPDATE`) may change existing rows: an INSERT naming UPDATE anywhere
 * counts as one (its DO and UPDATE may be parted by a comment; a false "yes" costs a row read).
 */
const INSERTS_ONLY = /^\s*INSERT\s+(?:OR\s+(?:IGNORE|ABORT|FAIL|ROLLBACK)\s+)?INTO\b/i;
const UPSERT = /\bUPDATE\b/i;
/** Statements that change no table themselves (a SELECT is recorded only when it changed rows: of unknown effect). */
const NOTHING = /^\s*(?:BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

export class TableVersions {
  /** Per table (lower case, as SQLite matches names), the version at which a write last changed it. */
  private readonly changedAt = new Map<string, number>();
  /** Per table, the version at which a write last may have changed or removed a row it held (an insert alone does not). */
  private readonly rowsChangedAt = new Map<string, number>();
  /** The last version at which any table may have changed. */
  private everythingAt = 0;
  /** The version of the last committed write or replacement seen, and `except`'s answer as of it. */
  private latest = 0;
  private exceptMemo: { at: number; tables: readonly string[]; value: number } | null = null;
  /** False once something that may change tables unseen exists (a trigger, a statement of unknown effect). */
  private tracking = true;

  /**
   * A write transaction committed at `version` with these statements (each distinct SQL text that
   * changed something); null: not known (an in-memory store records none).
   */
  committed(version: number, statements: Iterable<string> | null): void {
    this.latest = version;
    if (statements === null || !this.tracking) {
      this.everythingAt = version;
      return;
    }
    for (const sql of statements) {
      const one = WRITES_ONE.exec(sql);
      if (one !== null) {
        const table = (one[1] === undefined ? one[2] : one[1].replaceAll('""', '"')).toLowerCase();
        this.changedAt.set(table, version);
        if (!INSERTS_ONLY.test(sql) || UPSERT.test(sql)) this.rowsChangedAt.set(table, version);
      } else if (SCHEMA.test(sql)) {
        this.everythingAt = version;
      } else if (!NOTHING.test(sql)) {
        this.everythingAt = version;
        this.tracking = false;
      }
    }
  }

  /** The database was replaced (recovery, restore) at `version`; `triggers`: whether the new one has any. */
  replaced(version: number, triggers: boolean): void {
    this.latest = version;
    this.everythingAt = version;
    this.changedAt.clear();
    this.rowsChangedAt.clear();
    if (triggers) this.tracking = false;
  }

  /** A number that moves whenever one of `tables` may have changed. */
  of(tables: readonly string[]): number {
    let at = this.everythingAt;
    for (const t of tables) at = Math.max(at, this.changedAt.get(t.toLowerCase()) ?? 0);
    return at;
  }

  /**
   * A number that moves whenever a table other than `tables` may have changed (what reads none of them
   * outlives writes to them alone). Worked out once per commit (the same `tables` array each call).
   */
  except(tables: readonly string[]): number {
    const memo = this.exceptMemo;
    if (memo !== null && memo.at === this.latest && memo.tables === tables) return memo.value;
    let at = this.everythingAt;
    const skipped = tables.map((t) => t.toLowerCase());
    for (const [table, changed] of this.changedAt) if (changed > at && !skipped.includes(table)) at = changed;
    this.exceptMemo = { at: this.latest, tables, value: at };
    return at;
  }

  /** A number that moves whenever a row `tables` held may have changed or gone (rows only added leave it). */
  rowsOf(tables: readonly string[]): number {
    let at = this.everythingAt;
    for (const t of tables) at = Math.max(at, this.rowsChangedAt.get(t.toLowerCase()) ?? 0);
    return at;
  }
}
