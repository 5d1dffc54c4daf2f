// Answers of record reads kept between requests (fast-reads.ts), as their JSON in UTF-8, ready to write: a view or list asked
// again with nothing changed is answered from memory instead of being read, checked and serialised
// again.
//
// An answer is kept only under a key holding everything it depends on, and only while nothing it
// depends on can have changed:
//   - the data, the collections and their rules: all in the store, whose `version` moves at the end of
//     every write transaction and whenever the database is replaced (store/contract.ts); of it, what
//     the cache follows leaves out writes that changed only an account's system tables (`versionExcept`:
//     a sign-in's new session and known device), which no answer reads (they are no collection, so
//     rules, views, expand and lists cannot name them; the caller, resolved from its token at every
//     request, is in the key). An answer is kept under the version read before its
//     request began, only if the version is the same once it is made; all entries go at once when the
//     version moves. A store without a version (the team server's PostgreSQL, written by other nodes
//     too) keeps nothing;
//   - who asks: the caller's collection and record (resolved from its token for every request, so an
//     ended session is a guest at once), and everything rules read of the request: the query (the whole
//     request target is in the key), and the headers (all of them but `authorization` and `cookie`,
//     which rules never see); the method is always GET;
//   - the clock and chance: while any collection's rule or view query can read the time or a random
//     value (a datetime macro such as `@now`, `strftime`, SQL's date/time/random functions), nothing is
//     kept, and no request whose query names one is kept either (`@now` in a filter, `@random` in a sort);
//   - server-side hooks that see or change reads (onRecordViewRequest, onRecordsListRequest,
//     onRecordEnrich): while any is registered, nothing is kept.
// Only 200 answers are kept, each at most MAX_ENTRY_BYTES, all of them (keys too) at most MAX_BYTES (the
// oldest leave first), and only answers asked for before: a key is kept the second time it is asked
// (`seen`, 16,384 key hashes in sets of four, the least recently asked of a set forgotten first; the hash is made from the request's parts, the
// key itself only once it was seen), so requests that never repeat (a header of their own, a new query
// each time) cost no key, no lookup, no copy, no entry and no eviction (measured: 17-23 µs of CPU per
// such request when every answer was kept, most of it the memory churn of entries nobody asks again). Every request is still logged, rate limits still apply (fast-reads.ts leaves a request to
// the app when they are on), and the session's last activity is still noted.
import type { Core } from '../core/index.js';
import type { AuthInfo, Collection } from '../model/types.js';

export const MAX_BYTES = 16 * 1024 * 1024;
export const MAX_ENTRY_BYTES = 256 * 1024;
/** Slots of the table of keys asked for once (a power of two), in sets of SEEN_WAYS. */
const SEEN_SLOTS = 1 << 14;
/**
 * Hashes a set of the table holds, most recently asked first: keys whose hashes share a set are all
 * remembered while at most SEEN_WAYS of them are asked in turn (with one per set, two such keys asked
 * alternately forgot each other and were never kept: about 60 of 1,000 ids asked in turn).
 */
const SEEN_WAYS = 4;
const SEEN_SETS = SEEN_SLOTS / SEEN_WAYS;

/** What reads the clock or chance in a filter, sort or rule: a macro other than @request/@collection/@rowid, strftime. */
const CHANCE_OR_CLOCK = /@(?!request\.|collection\.|rowid\b)|strftime/i;
/** SQL functions of a view's query that read the clock or chance, or the connection's state. */
const VIEW_VOLATILE = /\b(?:random|randomblob|date|time|datetime|julianday|unixepoch|strftime|timediff|current_date|current_time|current_timestamp|changes|total_changes|last_insert_rowid|now|clock_timestamp|statement_timestamp|transaction_timestamp|localtime|localtimestamp)\b/i;
const RULES = ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule', 'authRule', 'manageRule'] as const;
const READ_HOOKS = ['onRecordViewRequest', 'onRecordsListRequest', 'onRecordEnrich'];
/**
 * System tables of accounts (store/schema.ts), which no answer reads while none is a collection: a write
 * to them alone (a sign-in's session and known device, an MFA step, a mailed token) keeps every answer.
 */
const ACCOUNT_TABLES: readonly string[] = ['_sessions', '_authOrigins', '_mfas', '_otps', '_authTokens', '_mailRequests', '_mails'];

/** Whether a collection's rules and view query give the same answer whenever they are read. */
function steady(c: Collection): boolean {
  for (const key of RULES) {
    const rule = c[key];
    if (typeof rule === 'string' && CHANCE_OR_CLOCK.test(rule)) return false;
  }
  return c.viewQuery === undefined || !VIEW_VOLATILE.test(c.viewQuery);
}

export class ReadCache {
  private entries = new Map<string, Buffer>();
  private bytes = 0;
  /** The store version the entries belong to, and whether answers may be kept at it. */
  private version = -1;
  private keeping = false;
  /** ACCOUNT_TABLES that are no collection now (read with `keeping`; none until first read). */
  private unread: readonly string[] = [];
  /** Hashes of keys asked for once, SEEN_WAYS per set, each set most recent first (0: empty). */
  private readonly seen = new Int32Array(SEEN_SLOTS);
  /** The hashes of the kept answers' keys, each with how many keys have it. */
  private readonly keptHashes = new Map<number, number>();

  constructor(
    private readonly core: Core,
    private readonly maxBytes = MAX_BYTES,
    private readonly maxEntryBytes = MAX_ENTRY_BYTES,
  ) {}

  /** The store's version now (read before a request's work begins), or null: nothing is kept. */
  now(): number | null {
    const store = this.core.store;
    if (store.version === undefined) return null;
    const v = store.versionExcept ? store.versionExcept(this.unread) : store.version;
    if (v !== this.version) {
      this.entries.clear();
      this.keptHashes.clear();
      this.bytes = 0;
      this.version = v;
      this.keeping = this.core.registry.all().every(steady);
      // a collection made since by one of these names (a schema write: `v` moved) is read by answers
      const unread = ACCOUNT_TABLES.filter((t) => this.core.registry.get(t) === undefined);
      if (unread.length !== this.unread.length) this.unread = unread;
    }
    return v;
  }

  /**
   * The key of a request's answer, or null when it may not be kept. `target`: path and query as
   * received; `headers` as the web Headers lists them (raw-headers.ts): lower-case names in order, each
   * once with its repeats joined, so the case and order they came in make no difference, their values do.
   */
  keyOf(target: string, query: Readonly<Record<string, string>>, auth: AuthInfo | null, headers: Iterable<[string, string]>): string | null {
    return this.admissible(query) ? keyText(target, auth, headers) : null;
  }

  /**
   * keyOf's key, only for a request asked for before; null when it may not be kept, or the first time it
   * is asked (it is only noted: a hash of what the key holds, made without making the key, so a request
   * that never repeats costs no key, no lookup and no copy of its answer). A key returned may have its
   * answer kept (get, set).
   */
  asked(target: string, query: Readonly<Record<string, string>>, auth: AuthInfo | null, headers: Iterable<[string, string]>): string | null {
    if (!this.admissible(query)) return null;
    // the FNV-1a of keyOf's key, piece by piece
    let h = FNV_START;
    if (auth !== null) h = hashOn(hashOn(hashOn(h, auth.collection.id), '/'), String(auth.record.id));
    h = hashOn(hashOn(h, '\n'), target);
    for (const [name, value] of headers) if (name !== 'authorization' && name !== 'cookie') h = hashOn(hashOn(hashOn(hashOn(h, '\n'), name), ':'), value);
    h |= 1;
    if (!this.noted(h) && !this.keptHashes.has(h)) return null;
    // a kept answer is found whatever became of its slot since (other keys' hashes may have taken it)
    return keyText(target, auth, headers);
  }

  /**
   * Whether hash `h` was noted before; either way it is noted now, first of its set (the least recently
   * asked of a full set leaves).
   */
  private noted(h: number): boolean {
    const seen = this.seen;
    const first = (h & (SEEN_SETS - 1)) * SEEN_WAYS;
    let at = first;
    const end = first + SEEN_WAYS - 1;
    while (at < end && seen[at] !== h) at++;
    const found = seen[at] === h;
    for (; at > first; at--) seen[at] = seen[at - 1];
    seen[first] = h;
    return found;
  }

  /** Whether answers may be kept now, and for a request with this query. */
  private admissible(query: Readonly<Record<string, string>>): boolean {
    if (this.now() === null || !this.keeping) return false;
    const events = this.core.events;
    for (const hook of READ_HOOKS) if (events.has(hook)) return false;
    for (const name in query) if (CHANCE_OR_CLOCK.test(query[name])) return false;
    return true;
  }

  /** The answer (its JSON as UTF-8) kept under `key` at the store's current version. */
  get(key: string): Buffer | undefined {
    return this.now() === null ? undefined : this.entries.get(key);
  }

  /** Keeps `json` (UTF-8), made from what the store held at `version`, if the store still holds it. */
  set(key: string, version: number, json: Buffer): void {
    if (this.now() !== version || json.length > this.maxEntryBytes || this.entries.has(key)) return;
    this.entries.set(key, json);
    const hash = hashOf(key);
    this.keptHashes.set(hash, (this.keptHashes.get(hash) ?? 0) + 1);
    this.bytes += key.length + json.length;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      const old = hashOf(oldest);
      const left = (this.keptHashes.get(old) ?? 1) - 1;
      if (left === 0) this.keptHashes.delete(old);
      else this.keptHashes.set(old, left);
      this.bytes -= oldest.length + kept.length;
    }
  }
}

/** What keeps one request's answer from another's: the caller, the target, the headers rules may read. */
function keyText(target: string, auth: AuthInfo | null, headers: Iterable<[string, string]>): string {
  let key = `${auth === null ? '' : `${auth.collection.id}/${auth.record.id}`}\n${target}`;
  for (const [name, value] of headers) if (name !== 'authorization' && name !== 'cookie') key += `\n${name}:${value}`;
  return key;
}

const FNV_START = 0x811c9dc5;

/** The hash asked() makes of a key from its parts. */
function hashOf(key: string): number {
  return hashOn(FNV_START, key) | 1;
}

/** FNV-1a of `text`'s UTF-16 units, continued from `h` (0 is never a finished hash: `| 1`, an empty slot). */
function hashOn(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}
