// First-time setup: while no superuser exists, a one-time setup token (printed in the server log,
// valid one hour, issued at most once a minute) lets POST /setup create the first superuser.
//
// What several nodes of a team server share through the database (the desktop runs the same code):
// - each node's token is kept as its SHA-256 hash in `_params` (`setupToken.<hash>`, valued with the
//   time it was issued), so any node accepts a token any node printed, and the database never holds a
//   token that works (each node prints its own link; a node started later needs nothing of the first's);
// - the superuser is created in a transaction that first takes the `setupClaim` row of `_params` (an
//   upsert: on PostgreSQL it waits for a concurrent setup's transaction to end) and then checks that no
//   superuser exists: of concurrent setups on several nodes, one creates the superuser, the others
//   answer what a second setup answers (404). The same transaction deletes every stored token.
import type { CoreEnv } from './env.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, badRequest, fieldError, notFound, type ErrorData, type FieldError } from '../errors.js';
import { isRecord } from '../json-object.js';
import { validateEmail } from './fields/email.js';
import { PASSWORD_MAX, validatePassword } from './fields/password.js';
import { newToken } from './ids.js';
import { presentRecords } from './record-response.js';
import type { RecordWrites } from './writes/funnel.js';
import type { WriteTx } from '../store/contract.js';
import { asCaller, internalContext } from './request-context.js';
import { ident } from '../filter/sql.js';
import type { Collection } from '../model/types.js';
import { SUPERUSERS_ID } from '../model/types.js';

export const SETUP_TOKEN_MS = 60 * 60 * 1000;
export const SETUP_REISSUE_MS = 60 * 1000;
/** How long a closing node waits to delete its token's stored hash (setup.withdraw). */
const WITHDRAW_MS = 2000;
/**
 * The superusers' email field decides (one owner for e-mail checks: the linear check of
 * fields/email.ts, with its length cap and the field's domain lists).
 */
function emailProblem(su: Collection, email: string): FieldError | null {
  const field = su.fields.find((f) => f.type === 'email');
  if (!field || field.type !== 'email') return null;
  return validateEmail(email, field);
}

/**
 * The superusers' password field decides (one owner for password rules); the spec reports its length
 * bounds on POST /setup as `validation_length_out_of_range`.
 */
function passwordProblem(su: Collection, password: string): FieldError | null {
  const field = su.fields.find((f) => f.type === 'password');
  if (!field || field.type !== 'password') return null;
  const problem = validatePassword(password, field);
  if (problem?.code === 'validation_min_text_constraint' || problem?.code === 'validation_max_text_constraint') {
    const max = field.max > 0 ? field.max : PASSWORD_MAX;
    return fieldError('validation_length_out_of_range', `The length must be between ${field.min} and ${max}.`);
  }
  return problem;
}

/** `_params` keys: one per live token (`setupToken.` + its SHA-256 in hex), and the creation's claim. */
const TOKEN_PREFIX = 'setupToken.';
const CLAIM = 'setupClaim';
const tokenKey = (token: string): string => TOKEN_PREFIX + createHash('sha256').update(token).digest('hex');
const STORED_TOKENS = `substr("key", 1, ${TOKEN_PREFIX.length}) = '${TOKEN_PREFIX}'`;

export function createSetup(env: Pick<CoreEnv, 'store' | 'registry' | 'now' | 'dialect' | 'report'>, writes: RecordWrites, onToken: (token: string) => void) {
  const { store, registry, now, dialect, report } = env;
  let current: { token: string; issued: number } | null = null;
  let completing = false;

  const required = async (): Promise<boolean> => {
    const su = registry.get(SUPERUSERS_ID);
    return !su || (await store.get(`SELECT 1 AS x FROM ${ident(su.name)} LIMIT 1`)) === undefined;
  };

  /**
   * Why setup is not offered although no superuser exists: writes kept aside from a damaged journal may
   * hold the first superuser's creation, and a setup token over the surviving data would hand the folder
   * to whoever reaches the port first. Holds until the owner deals with the kept files (restores what
   * they need, deletes them) and restarts.
   */
  const heldBack = async (): Promise<string | null> => {
    if (store.keptAside.length === 0 || !(await required())) return null;
    return `Setup is held back: the data folder keeps writes moved aside from a damaged journal (${store.keptAside.join(', ')}), ` +
      'which may include the first superuser. Look at them, then delete them and restart Deskbase to create a superuser.';
  };

  /**
   * Returns the live token, issuing a new one only when there is none or it expired (and never twice
   * within a minute): the printed link stays valid for its whole hour, whatever anyone sends meanwhile.
   */
  async function issue(): Promise<string | null> {
    if (!(await required()) || (await heldBack()) !== null) return null;
    const t = now();
    if (current && t - current.issued < Math.max(SETUP_TOKEN_MS, SETUP_REISSUE_MS)) {
      // its row may be gone (another node's setup deleted it, or a restore replaced _params): stored
      // again, so that every node accepts it for the rest of its hour
      const live = current;
      if ((await store.get('SELECT 1 AS x FROM "_params" WHERE "key" = ?', [tokenKey(live.token)])) === undefined) {
        await stored(() => store.write((tx) => tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), [tokenKey(live.token), String(live.issued)])));
      }
      return live.token;
    }
    const next = { token: newToken(), issued: t };
    await stored(() => store.write(async (tx) => {
      // expired tokens (this node's or another's) go with the new one's arrival
      for (const row of await tx.all<{ key: string; value: string }>(`SELECT "key", "value" FROM "_params" WHERE ${STORED_TOKENS}`)) {
        if (!(t - Number(row.value) < SETUP_TOKEN_MS)) await tx.run('DELETE FROM "_params" WHERE "key" = ?', [row.key]);
      }
      await tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), [tokenKey(next.token), String(t)]);
    }));
    current = next;
    onToken(current.token);
    return current.token;
  }

  /**
   * A token's hash written for the other nodes: when the write fails (a full disk, the database out of
   * reach), the token still works on this node (valid() knows it) and the failure is reported.
   */
  async function stored(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      report(err);
    }
  }

  /**
   * Is `token` one a node issued within the hour? This node's own, compared in constant time, or one
   * stored by any node, looked up by its hash (no comparison of secrets).
   */
  async function valid(token: unknown): Promise<boolean> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 1000) return false;
    if (current && now() - current.issued < SETUP_TOKEN_MS) {
      const a = Buffer.from(token);
      const b = Buffer.from(current.token);
      if (a.length === b.length && timingSafeEqual(a, b)) return true;
    }
    const row = await store.get<{ value: string }>('SELECT "value" FROM "_params" WHERE "key" = ?', [tokenKey(token)]);
    return row !== undefined && now() - Number(row.value) < SETUP_TOKEN_MS;
  }

  /**
   * Inside the creation's transaction, before the superuser is written: takes the claim (concurrent
   * setups on other nodes wait here for this transaction), then refuses as a second setup is refused
   * when a superuser exists by now; the stored tokens go with the creation.
   */
  async function claim(tx: WriteTx, su: Collection): Promise<void> {
    await tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), [CLAIM, String(now())]);
    if ((await tx.get(`SELECT 1 AS x FROM ${ident(su.name)} LIMIT 1`)) !== undefined) throw notFound();
    await tx.run(`DELETE FROM "_params" WHERE ${STORED_TOKENS}`);
  }

  return {
    required,
    heldBack,
    /** What GET /api/setup answers: whether setup is required, and why it is held back when it is. */
    async status(): Promise<{ required: boolean; heldBack?: string }> {
      const held = await heldBack();
      return held === null ? { required: await required() } : { required: true, heldBack: held };
    },
    issue,
    /**
     * Called as the node closes: its token's stored hash goes with it, so a link left in a stopped
     * node's log no longer works on the nodes still running (on the desktop a token dies with its
     * process anyway). Best effort: a failure is reported, never thrown, and it waits at most
     * WITHDRAW_MS for a database out of reach.
     */
    async withdraw(): Promise<void> {
      const live = current;
      current = null;
      if (live === null) return;
      let timer: NodeJS.Timeout | undefined;
      const gone = stored(() => store.write((tx) => tx.run('DELETE FROM "_params" WHERE "key" = ?', [tokenKey(live.token)])));
      await Promise.race([gone, new Promise<void>((r) => (timer = setTimeout(r, WITHDRAW_MS)))]);
      clearTimeout(timer);
    },
    /** The live token, if any (the desktop app hands it straight to its window). */
    token: async (): Promise<string | null> => (current && now() - current.issued < SETUP_TOKEN_MS && (await required()) ? current.token : null),

    /** Creates the first superuser and answers it as it sees itself. */
    async complete(body: unknown): Promise<unknown> {
      // checked and set before any await: two concurrent requests cannot both create a "first" superuser
      if (completing) throw notFound();
      completing = true;
      try {
        return await completeOnce(body);
      } finally {
        completing = false;
      }
    },
  };

  async function completeOnce(body: unknown): Promise<unknown> {
      if (!(await required())) throw notFound();
      const held = await heldBack();
      if (held !== null) throw new ApiError(403, held);
      const b = isRecord(body) ? body : {};
      if (!(await valid(b.token))) {
        // a setup that completed meanwhile (on any node) deleted the stored tokens: answered as after it
        if (!(await required())) throw notFound();
        await issue(); // only an expired token is replaced, so the log has a fresh one
        throw new ApiError(403, 'Invalid or expired setup token. Check the server logs for a new one.');
      }
      const errors: ErrorData = {};
      const email = typeof b.email === 'string' ? b.email.trim() : '';
      const password = typeof b.password === 'string' ? b.password : '';
      const su = registry.get(SUPERUSERS_ID);
      if (!su) throw notFound();
      if (email === '') errors.email = fieldError('validation_required', 'Cannot be blank.');
      else {
        const problem = emailProblem(su, email);
        if (problem) errors.email = problem;
      }
      if (password === '') errors.password = fieldError('validation_required', 'Cannot be blank.');
      else {
        const problem = passwordProblem(su, password);
        if (problem) errors.password = problem;
      }
      if (Object.keys(errors).length > 0) throw badRequest('Failed to create superuser.', errors);
      try {
        const ctx = internalContext(registry.lookup, dialect);
        const create = await writes.prepareCreate(su, { email, password, passwordConfirm: password }, ctx, { system: true });
        const [row] = await writes.commit([{
          apply: async (tx, changes) => {
            await claim(tx, su);
            return create.apply(tx, changes);
          },
          afterCommit: create.afterCommit && (() => create.afterCommit?.()),
          afterRollback: create.afterRollback && (() => create.afterRollback?.()),
          // no query budget: waiting for another node's setup (the claim's row lock) is no work of this
          // request's, and one insert holds no event loop
        }], null);
        current = null;
        return (await presentRecords(store, su, [row], asCaller(ctx, { collection: su, record: row, sessionId: '' }), true))[0];
      } catch (err) {
        if (err instanceof ApiError && err.status === 400) throw badRequest('Failed to create superuser.', err.data);
        throw err;
      }
  }
}

export type Setup = ReturnType<typeof createSetup>;
