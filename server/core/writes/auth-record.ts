// What a write to an auth collection checks besides its fields: managers (manageRule), the password
// keys, and ids unique across every auth collection.
import { fieldError, type ErrorData } from '../../errors.js';
import { ident, type CompiledSql } from '../../filter/sql.js';
import type { WriteTx } from '../../store/db.js';
import { ruleSql } from '../access.js';
import { validatePassword } from '../fields/password.js';
import type { Credentials } from './prepared.js';
import { accountKey } from '../sign-in-limiter.js';
import type { Registry } from '../collection-registry.js';
import type { RuleInput } from '../request-context.js';
import type { Collection, Row } from '../../model/types.js';
import { isSuperuser } from '../../model/types.js';
import type { Submitted } from './submitted.js';
import type { RowSource } from './write-sql.js';

/**
 * Does the caller satisfy `manageRule` for the record `source` gives for the compiled rule (a table, or a
 * one-row subselect of the columns the rule reads)?
 */
export async function isManager(db: Pick<WriteTx, 'get'>, c: Collection, ctx: RuleInput, source: (where: CompiledSql) => RowSource): Promise<boolean> {
  if (c.type !== 'auth') return false;
  if (isSuperuser(ctx.request.auth)) return true;
  if (!ctx.request.auth || !c.manageRule) return false;
  const w = ruleSql(c.manageRule, c, ctx);
  const src = source(w);
  return (await db.get(`SELECT 1 AS ok FROM ${src.sql} AS r WHERE ${w.sql} LIMIT 1`, [...src.params, ...w.params])) !== undefined;
}

/** The auth keys `password` and `passwordConfirm`; the password itself is checked by its field's spec. */
export function passwordErrors(sub: Submitted, c: Collection): ErrorData {
  const errors: ErrorData = {};
  const pw = typeof sub.password === 'string' ? sub.password : '';
  const field = c.fields.find((f) => f.type === 'password');
  if (pw === '') errors.password = fieldError('validation_required', 'Cannot be blank.');
  else if (field && field.type === 'password') {
    const problem = validatePassword(pw, field);
    if (problem) errors.password = problem;
  }
  if (typeof sub.passwordConfirm !== 'string' || sub.passwordConfirm === '') errors.passwordConfirm = fieldError('validation_required', 'Cannot be blank.');
  else if (sub.passwordConfirm !== pw) errors.passwordConfirm = fieldError('validation_values_mismatch', "Values don't match.");
  return errors;
}

/** Is the body changing the password (any of its keys given)? */
export function changesPassword(sub: Submitted): boolean {
  return sub.password !== undefined || sub.passwordConfirm !== undefined || sub.oldPassword !== undefined;
}

/**
 * Whether `guess` is the record's current password (one hash, whatever the answer), charged to `client`
 * (the request's, see passwords.ts). Each check counts against the account's sign-in block
 * (sign-in-limiter.ts), as a sign-in does: guesses stop after the same ten failures, and a blocked
 * account answers exactly as a wrong password does, after the same work. The one check of a password
 * given as a proof: `oldPassword` here, confirm-email-change's password (account-mail.ts).
 */
export async function provesPassword({ limiter, passwords }: Credentials, c: Collection, stored: Row, guess: unknown, client?: string): Promise<boolean> {
  return typeof guess === 'string' && guess !== '' && limiter.attempt(
    accountKey(c, String(stored.id)),
    () => passwords.verify(guess, String(stored.password ?? ''), client),
    () => passwords.burn(guess, client),
  );
}

/**
 * Non-managers prove the current password with `oldPassword` (provesPassword): where an updateRule lets
 * users edit each other, guessing another's stops after ten failures.
 */
export async function oldPasswordError(credentials: Credentials, c: Collection, sub: Submitted, stored: Row, client?: string): Promise<ErrorData> {
  const ok = await provesPassword(credentials, c, stored, sub.oldPassword, client);
  return ok ? {} : { oldPassword: fieldError('validation_invalid_old_password', 'Missing or invalid old password.') };
}

export const invalidAuthId = () => fieldError('validation_invalid_auth_id', 'Invalid or duplicated auth record id.');

/** Does a record of another auth collection have this id? (PocketBase cross-checks every auth collection.) */
export async function authIdTaken(db: Pick<WriteTx, 'get'>, registry: Registry, c: Collection, id: string): Promise<boolean> {
  if (c.type !== 'auth') return false;
  const others = registry.all().filter((o) => o.type === 'auth' && o.id !== c.id);
  if (others.length === 0) return false;
  const sql = others.map((o) => `SELECT 1 AS x FROM ${ident(o.name)} WHERE "id" = ?`).join(' UNION ALL ');
  return (await db.get(`${sql} LIMIT 1`, others.map(() => id))) !== undefined;
}

/** An id two auth collections of `db` share (a restore's candidate is checked with it), or null. */
export async function sharedAuthId(db: Pick<WriteTx, 'get'>, collections: readonly Collection[]): Promise<{ id: string; a: string; b: string } | null> {
  const auth = collections.filter((c) => c.type === 'auth');
  for (let i = 0; i < auth.length; i++) {
    for (let j = i + 1; j < auth.length; j++) {
      const row = await db.get<{ id: string }>(`SELECT "id" AS id FROM ${ident(auth[i].name)} INTERSECT SELECT "id" FROM ${ident(auth[j].name)} LIMIT 1`);
      if (row !== undefined) return { id: String(row.id), a: auth[i].name, b: auth[j].name };
    }
  }
  return null;
}
