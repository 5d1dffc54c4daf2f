// Updating a record: the updateRule first (a 404 before any validation error, so errors never reveal a
// record the caller cannot change), the body resolved against the stored values (modifiers such as
// `views+` start from them), auth checks and the new password's hash, validation. Inside the
// transaction the record is read again: if another write changed it since, the body is resolved and
// checked again against the record as it is now (synchronously), so concurrent `views+` add up
// exactly; then the updateRule again and the UPDATE.
import { badRequest, fieldError, notFound, type ErrorData } from '../../errors.js';
import { refuseIfLocked } from '../access.js';
import { ident } from '../../filter/sql.js';
import type { ReadDb } from '../../store/db.js';
import { apiValues, toStoredValue } from '../field-values.js';
import { isRecord } from '../../json-object.js';
import { isoNow } from '../ids.js';
import { getRow, viewRecord } from '../records-read.js';
import { withBody, type RequestContext, type RuleInput } from '../request-context.js';
import type { Collection, Row, SqlValue } from '../../model/types.js';
import { isSuperuser, SUPERUSERS_ID } from '../../model/types.js';
import { changesPassword, isManager, oldPasswordError, passwordErrors } from './auth-record.js';
import type { PreparedWrite, WriteDeps } from './prepared.js';
import { readSubmitted, refuseOversized, sizeBody, type Submitted } from './submitted.js';
import { withPlacedUploads } from './file-uploads.js';
import { validateFields, validationContext } from './validate.js';
import { mapWriteError, throwIfErrors, unstorableErrors } from './write-sql.js';

const FAILED = 'Failed to update record.';

/** The body resolved against one stored state of the record. */
interface Resolved {
  stored: Row;
  current: Record<string, unknown>;
  sub: Submitted;
  ruleCtx: RuleInput;
  next: Record<string, unknown>;
  errors: ErrorData;
  /** Auth collections: the caller satisfies manageRule for this state (or is a superuser). */
  manager: boolean;
}

/** Everything an update decides from the record as `stored` holds it. */
async function resolve(db: ReadDb, c: Collection, id: string, stored: Row, rawBody: Record<string, unknown>, ctx: RequestContext, su: boolean): Promise<Resolved> {
  const current = apiValues(c, stored);
  const sub = readSubmitted(c, rawBody, current, su);
  const ruleCtx = withBody(ctx, sub.body);
  const errors: ErrorData = {};
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of sub.values) next[k] = v;
  if (sub.values.has('id') && next.id !== stored.id) errors.id = fieldError('validation_pk_change', 'The record primary key cannot be changed.');
  let manager = su;
  if (c.type === 'auth') {
    // only managers change `verified` and `email`
    manager = su || (await isManager(db, c, ruleCtx, () => ({ sql: `(SELECT * FROM ${ident(c.name)} WHERE "id" = ?)`, params: [id] })));
    if (!manager && sub.values.has('verified') && next.verified !== current.verified) errors.verified = fieldError('validation_values_mismatch', "Values don't match.");
    if (!manager && sub.values.has('email') && next.email !== current.email) errors.email = fieldError('validation_values_mismatch', "Values don't match.");
    if (c.id === SUPERUSERS_ID) next.verified = true;
  }
  return { stored, current, sub, ruleCtx, next, errors, manager };
}

/** `SET` assignments for what the body changed, the autodates that move on update and a new hash. */
function assignments(c: Collection, r: Resolved, newHash: string | null): { sets: string[]; params: SqlValue[] } {
  const now = isoNow();
  const sets: string[] = [];
  const params: SqlValue[] = [];
  for (const f of c.fields) {
    if (f.name === 'id') continue;
    if (f.type === 'autodate') {
      if (f.onUpdate) { sets.push(`${ident(f.name)} = ?`); params.push(now); }
    } else if (f.type === 'password') {
      if (newHash) { sets.push(`${ident(f.name)} = ?`); params.push(newHash); }
    } else if (r.sub.values.has(f.name) || (c.id === SUPERUSERS_ID && f.name === 'verified')) {
      sets.push(`${ident(f.name)} = ?`);
      params.push(toStoredValue(f, r.next[f.name]));
    }
  }
  return { sets, params };
}

/** Two reads of one row hold the same values. */
function sameRow(a: Row, b: Row): boolean {
  for (const key of Object.keys(a)) if (a[key] !== b[key]) return false;
  return true;
}

export async function prepareUpdate(deps: WriteDeps, c: Collection, id: string, rawBody: unknown, ctx: RequestContext): Promise<PreparedWrite<Row>> {
  const { db, sessions } = deps;
  const su = isSuperuser(ctx.request.auth);
  refuseIfLocked(c, 'updateRule', su);
  const stored = await getRow(db, c, id);
  if (!stored) throw notFound();
  if (!isRecord(rawBody)) throw badRequest(FAILED);
  // oversized values are left out of what is read and shown to the rule, and answered once it passed
  const sized = sizeBody(c, rawBody, su);
  const body = sized.body;
  let r = await resolve(db, c, id, stored, body, ctx, su);
  await viewRecord(db, c, id, r.ruleCtx, 'updateRule');
  refuseOversized(sized, FAILED);
  const errors = { ...r.errors };
  // a password change needs its confirmation and, from anyone but a manager, the old password
  const changing = c.type === 'auth' && changesPassword(r.sub);
  let oldPasswordChecked = false;
  if (changing) {
    Object.assign(errors, passwordErrors(r.sub, c));
    if (!r.manager) {
      Object.assign(errors, await oldPasswordError(deps, c, r.sub, stored, ctx.request.client));
      oldPasswordChecked = true;
    }
  }
  const newHash = changing && Object.keys(errors).length === 0 ? await deps.passwords.hash(String(r.sub.password), ctx.request.client) : null;
  Object.assign(errors, await validateFields(c, r.next, null, validationContext(db, ctx.lookup, false, r.current)));
  // the submitted fields only: a stored value is storable
  Object.assign(errors, unstorableErrors(deps.dialect, c, r.next, r.sub.values));
  throwIfErrors(errors, FAILED);

  return withPlacedUploads(deps.files, c, id, r.next, {
    async apply(tx, changes) {
      const before = await getRow(tx, c, id);
      if (!before) throw notFound();
      if (!sameRow(before, stored)) {
        // changed by another write since: decide again from the record as it is now
        r = await resolve(tx, c, id, before, body, ctx, su);
        const again = { ...r.errors };
        if (changing && !r.manager && (!oldPasswordChecked || before.password !== stored.password)) {
          again.oldPassword = fieldError('validation_invalid_old_password', 'Missing or invalid old password.');
        }
        Object.assign(again, await validateFields(c, r.next, null, validationContext(tx, ctx.lookup, false, r.current)));
        throwIfErrors(again, FAILED);
      }
      await viewRecord(tx, c, id, r.ruleCtx, 'updateRule'); // still allowed, atomically with the write
      const { sets, params } = assignments(c, r, newHash);
      if (sets.length > 0) {
        try {
          await tx.run(`UPDATE ${ident(c.name)} SET ${sets.join(', ')} WHERE "id" = ?`, [...params, id]);
        } catch (err) {
          mapWriteError(err, c, FAILED, deps.dialect);
        }
      }
      const after = (await getRow(tx, c, id)) as Row;
      // a password or e-mail change signs the record's other sessions out (PocketBase refreshes its
      // tokenKey on either); the caller's own stays, so a superuser's change ends them all
      if (newHash || (c.type === 'auth' && before.email !== after.email)) {
        const auth = ctx.request.auth;
        const keep = auth && auth.collection.id === c.id && auth.record.id === id ? auth.sessionId : null;
        await sessions.endOthers(tx, c.id, id, keep);
      }
      changes.push({ action: 'update', collection: c, before, after });
      return after;
    },
  }, deps.tx);
}
