// The write funnel for records: create, update and delete (HTTP, setup and tests all come here), so
// defaults, validation, hashing, rules, cascades and journaling happen once.
import { ApiError, badRequest, fieldError, notFound, onlySuperusers, type ErrorData } from '../errors.js';
import type { Store, WriteTx } from '../store/db.js';
import { ruleSql, ruleWhere } from './access.js';
import { autogenerate } from './fields/index.js';
import { isRecord } from './fields/common.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { isoNow, newId } from './ids.js';
import { readSubmitted, zeroValue } from './records-values.js';
import { getRow, viewRecord } from './records-read.js';
import { notUniqueErrors, uniqueViolationFields, validateFields, validationContext } from './records-validate.js';
import { fromStored } from './serialize.js';
import { validatePassword } from './fields/password.js';
import { toStoredValue, deleteWithReferences } from './records-cascade.js';
import type { Registry } from './registry.js';
import type { Sessions } from './sessions.js';
import { ident } from '../filter/sql.js';
import type { Collection, RequestInfo, Row, SqlValue } from './types.js';
import { isSuperuser, SUPERUSERS_ID } from './types.js';


function apiValues(c: Collection, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of c.fields) out[f.name] = fromStored(f, row[f.name]);
  return out;
}

/** Does the caller satisfy `manageRule` for the record in `source` (a table or a one-row subselect)? */
function isManager(tx: Pick<WriteTx, 'get'>, c: Collection, req: RequestInfo, lookup: Registry['lookup'], source: { sql: string; params: SqlValue[] }): boolean {
  if (c.type !== 'auth') return false;
  if (isSuperuser(req.auth)) return true;
  if (!req.auth || !c.manageRule) return false;
  const w = ruleSql(c.manageRule, c, req, lookup);
  return tx.get(`SELECT 1 AS ok FROM ${source.sql} AS r WHERE ${w.sql} LIMIT 1`, [...source.params, ...w.params]) !== undefined;
}

/** A one-row subselect holding `values` under the collection's column names (createRule, manageRule). */
function rowSource(c: Collection, values: Record<string, unknown>): { sql: string; params: SqlValue[] } {
  const cols = c.fields.map((f) => `? AS ${ident(f.name)}`).join(', ');
  return { sql: `(SELECT ${cols})`, params: c.fields.map((f) => toStoredValue(f, values[f.name])) };
}

/** The auth keys `password` and `passwordConfirm`; the password itself is checked by its field's spec. */
function passwordErrors(sub: { password?: unknown; passwordConfirm?: unknown }, required: boolean, c: Collection): ErrorData {
  const errors: ErrorData = {};
  const given = sub.password !== undefined || sub.passwordConfirm !== undefined;
  if (!given && !required) return errors;
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

const invalidAuthId = () => fieldError('validation_invalid_auth_id', 'Invalid or duplicated auth record id.');

/** Does a record of another auth collection have this id? (PocketBase cross-checks every auth collection.) */
function authIdTaken(db: Pick<WriteTx, 'get'>, registry: Registry, c: Collection, id: string): boolean {
  if (c.type !== 'auth') return false;
  const others = registry.all().filter((o) => o.type === 'auth' && o.id !== c.id);
  if (others.length === 0) return false;
  const sql = others.map((o) => `SELECT 1 AS x FROM ${ident(o.name)} WHERE "id" = ?`).join(' UNION ALL ');
  return db.get(`${sql} LIMIT 1`, others.map(() => id)) !== undefined;
}

function throwIfErrors(errors: ErrorData, message: string): void {
  if (Object.keys(errors).length > 0) throw badRequest(message, errors);
}

function mapWriteError(err: unknown, c: Collection, message: string): never {
  if (err instanceof ApiError) throw err;
  const text = err instanceof Error ? err.message : String(err);
  const fields = uniqueViolationFields(c, text);
  if (fields) {
    if (fields.includes('id')) throw badRequest(message, { id: fieldError('validation_pk_invalid', 'The record primary key is invalid or already exists.') });
    throw badRequest(message, notUniqueErrors(fields));
  }
  throw err;
}

export interface WriteOptions {
  /** Internal callers (setup) act with superuser rights without a signed-in superuser. */
  system?: boolean;
}

export function createRecordWrites(store: Store, registry: Registry, sessions: Sessions) {
  const lookup = registry.lookup;

  async function create(c: Collection, rawBody: unknown, req: RequestInfo, opts: WriteOptions = {}): Promise<Row> {
    const su = opts.system === true || isSuperuser(req.auth);
    if (!su && c.createRule === null) throw onlySuperusers();
    if (!isRecord(rawBody)) throw badRequest('Failed to create record.');
    const sub = readSubmitted(c, rawBody, null, su);
    const record: Record<string, unknown> = {};
    for (const f of c.fields) record[f.name] = sub.values.has(f.name) ? sub.values.get(f.name) : zeroValue(f);
    const errors: ErrorData = {};
    if (sub.values.has('id') && record.id !== '') {
      if (typeof record.id !== 'string' || !/^[a-z0-9]{15}$/.test(record.id)) errors.id = fieldError('validation_invalid_format', 'Invalid value format.');
    }
    for (const f of c.fields) {
      if (f.type === 'text' && f.autogeneratePattern && record[f.name] === '') record[f.name] = autogenerate(f);
    }
    const generatedId = record.id === '' || record.id === undefined;
    if (generatedId) record.id = newId();
    else if (errors.id === undefined && authIdTaken(store, registry, c, String(record.id))) errors.id = invalidAuthId();
    const now = isoNow();
    for (const f of c.fields) if (f.type === 'autodate') record[f.name] = now;
    const ruleReq: RequestInfo = { ...req, body: sub.body };
    if (c.type === 'auth') {
      if (c.id === SUPERUSERS_ID) record.verified = true; // superusers are always verified
      // createRule and manageRule see `verified` as false, as in PocketBase
      const manager = su || isManager(store, c, ruleReq, lookup, rowSource(c, { ...record, verified: false }));
      if (!manager && sub.values.has('verified') && record.verified !== false) {
        errors.verified = fieldError('validation_values_mismatch', "Values don't match.");
      }
      Object.assign(errors, passwordErrors(sub, true, c));
    }
    let ruleQuery: { sql: string; params: SqlValue[] } | null = null;
    const checkRule = (tx: Pick<WriteTx, 'get'>) => {
      if (su || c.createRule === '' ) return;
      // compiled once for both checks: the record and the request are the same
      if (ruleQuery === null) {
        const w = ruleWhere(c, 'createRule', ruleReq, lookup);
        const src = rowSource(c, { ...record, verified: c.type === 'auth' ? false : record.verified });
        ruleQuery = { sql: `SELECT 1 AS ok FROM ${src.sql} AS r WHERE ${w.sql} LIMIT 1`, params: [...src.params, ...w.params] };
      }
      if (!tx.get(ruleQuery.sql, ruleQuery.params)) throw badRequest('Failed to create record.');
    };
    checkRule(store);
    Object.assign(errors, validateFields(c, record, null, validationContext(store, lookup, true)));
    throwIfErrors(errors, 'Failed to create record.');
    const hash = c.type === 'auth' ? await hashPassword(String(sub.password), req.client) : null;
    await store.write((tx) => {
      // auth ids are unique across every auth collection (an id names who `@request.auth.id` is): the
      // check and the insert are one transaction, so no concurrent create can slip in between
      while (authIdTaken(tx, registry, c, String(record.id))) {
        if (!generatedId) throw badRequest('Failed to create record.', { id: invalidAuthId() });
        record.id = newId();
        ruleQuery = null;
      }
      checkRule(tx); // the check and the insert are one transaction
      const cols = c.fields.map((f) => ident(f.name));
      const params = c.fields.map((f) => (f.type === 'password' ? hash : toStoredValue(f, record[f.name])));
      try {
        tx.run(`INSERT INTO ${ident(c.name)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, params);
      } catch (err) {
        mapWriteError(err, c, 'Failed to create record.');
      }
    });
    return getRow(store, c, String(record.id)) as Row;
  }

  async function update(c: Collection, id: string, rawBody: unknown, req: RequestInfo): Promise<Row> {
    const su = isSuperuser(req.auth);
    if (!su && c.updateRule === null) throw onlySuperusers();
    const stored = getRow(store, c, id);
    if (!stored) throw notFound();
    if (!isRecord(rawBody)) throw badRequest('Failed to update record.');
    const current = apiValues(c, stored);
    const sub = readSubmitted(c, rawBody, current, su);
    const ruleReq: RequestInfo = { ...req, body: sub.body };
    // the rule is checked before validation, so errors never reveal a record the caller cannot change
    viewRecord(store, c, id, ruleReq, lookup, 'updateRule');
    const errors: ErrorData = {};
    const next: Record<string, unknown> = { ...current };
    for (const [k, v] of sub.values) next[k] = v;
    if (sub.values.has('id') && next.id !== stored.id) errors.id = fieldError('validation_pk_change', 'The record primary key cannot be changed.');
    let newHash: string | null = null;
    if (c.type === 'auth') {
      const manager = su || isManager(store, c, ruleReq, lookup, { sql: `(SELECT * FROM ${ident(c.name)} WHERE "id" = ?)`, params: [id] });
      if (!manager && sub.values.has('verified') && next.verified !== current.verified) errors.verified = fieldError('validation_values_mismatch', "Values don't match.");
      if (!manager && sub.values.has('email') && next.email !== current.email) errors.email = fieldError('validation_values_mismatch', "Values don't match.");
      if (c.id === SUPERUSERS_ID) next.verified = true;
      const changing = sub.password !== undefined || sub.passwordConfirm !== undefined || sub.oldPassword !== undefined;
      if (changing) {
        Object.assign(errors, passwordErrors(sub, true, c));
        if (!manager) {
          const ok = typeof sub.oldPassword === 'string' && sub.oldPassword !== '' && (await verifyPassword(sub.oldPassword, String(stored.password ?? ''), req.client));
          if (!ok) errors.oldPassword = fieldError('validation_invalid_old_password', 'Missing or invalid old password.');
        }
      }
      if (changing && Object.keys(errors).length === 0) newHash = await hashPassword(String(sub.password), req.client);
    }
    Object.assign(errors, validateFields(c, next, null, validationContext(store, lookup, false)));
    throwIfErrors(errors, 'Failed to update record.');
    const now = isoNow();
    const sets: string[] = [];
    const params: SqlValue[] = [];
    for (const f of c.fields) {
      if (f.name === 'id') continue;
      if (f.type === 'autodate') {
        if (f.onUpdate) { sets.push(`${ident(f.name)} = ?`); params.push(now); }
      } else if (f.type === 'password') {
        if (newHash) { sets.push(`${ident(f.name)} = ?`); params.push(newHash); }
      } else if (sub.values.has(f.name) || (c.id === SUPERUSERS_ID && f.name === 'verified')) {
        sets.push(`${ident(f.name)} = ?`);
        params.push(toStoredValue(f, next[f.name]));
      }
    }
    await store.write((tx) => {
      viewRecord(tx, c, id, ruleReq, lookup, 'updateRule'); // still allowed, atomically with the write
      if (sets.length > 0) {
        try {
          tx.run(`UPDATE ${ident(c.name)} SET ${sets.join(', ')} WHERE "id" = ?`, [...params, id]);
        } catch (err) {
          mapWriteError(err, c, 'Failed to update record.');
        }
      }
      if (newHash) {
        const keep = req.auth && req.auth.collection.id === c.id && req.auth.record.id === id ? req.auth.sessionId : null;
        sessions.endOthers(tx, c.id, id, keep);
      }
    });
    return getRow(store, c, id) as Row;
  }

  async function remove(c: Collection, id: string, req: RequestInfo): Promise<void> {
    if (!isSuperuser(req.auth) && c.deleteRule === null) throw onlySuperusers();
    viewRecord(store, c, id, req, lookup, 'deleteRule');
    await store.write((tx) => {
      viewRecord(tx, c, id, req, lookup, 'deleteRule');
      if (c.id === SUPERUSERS_ID) {
        const n = tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ident(c.name)}`)?.n ?? 0;
        if (Number(n) <= 1) throw badRequest("You can't delete the only existing superuser.");
      }
      deleteWithReferences(tx, registry, c, id, new Set());
      if (c.type === 'auth') sessions.endAllFor(tx, c.id, id);
    });
  }

  return { create, update, remove };
}

export type RecordWrites = ReturnType<typeof createRecordWrites>;
