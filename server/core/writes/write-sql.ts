// SQL pieces the write steps share: a record as a one-row subselect (for rules checked before the row
// exists), and SQLite's constraint errors turned into the API's validation errors.
import { ApiError, badRequest, fieldError, type ErrorData } from '../../errors.js';
import { ident } from '../../filter/sql.js';
import { toStoredValue } from '../field-values.js';
import type { Collection, SqlValue } from '../../model/types.js';
import { notUniqueErrors, uniqueViolationFields } from './validate.js';
import type { Dialect } from '../../rules/compile.js';

export interface RowSource {
  sql: string;
  params: SqlValue[];
}

/**
 * A one-row subselect holding `values` under the collection's column names (createRule, manageRule),
 * for the compiled condition `where` over it as `alias`. Only the columns the condition names
 * (`r."title"`: the compiler writes every column it reads so) are bound, with `id`: binding costs the
 * event loop time in proportion to the text, and a rule that reads no large field should not pay for it. A
 * column the condition reads but this missed would be an SQL error, never a wrong answer.
 */
export function rowSource(dialect: Dialect, c: Collection, values: Record<string, unknown>, where: { sql: string }, alias = 'r'): RowSource {
  const fields = c.fields.filter((f) => f.name === 'id' || where.sql.includes(`${alias}.${ident(f.name)}`));
  const cols = fields.map((f) => `${dialect.typedParam(f.type)} AS ${ident(f.name)}`).join(', ');
  return { sql: `(SELECT ${cols})`, params: fields.map((f) => toStoredValue(f, values[f.name])) };
}

/**
 * Whether a compiled condition reads a table: any read of one is a subquery (`SELECT ... FROM`), and
 * the compiler binds every value, so the word appears in the SQL text only as a keyword or inside a
 * quoted name (counted too: a false "yes" costs a query, never a wrong answer). A condition that reads
 * none depends only on its bound values and the row it is checked against.
 */
export function readsTables(where: { sql: string }): boolean {
  return SELECT_WORD.test(where.sql);
}

const SELECT_WORD = /select/i;

/** An escaped U+0000 in JSON text: `\u0000` whose backslash is not itself escaped. */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

/**
 * The fields whose stored value holds U+0000, on an engine that cannot store one (PostgreSQL): their
 * 400, rather than the engine's error (a 500). A JSON value holds it escaped, which PostgreSQL's json
 * keeps but cannot read out as text (every json-path filter on the field would fail): refused too.
 */
export function unstorableErrors(dialect: Dialect, c: Collection, values: Record<string, unknown>, only?: { has(name: string): boolean }): ErrorData {
  const errors: ErrorData = {};
  if (dialect.storesNul) return errors;
  for (const f of c.fields) {
    if (only !== undefined && !only.has(f.name)) continue;
    if (!Object.hasOwn(values, f.name) || f.type === 'password') continue;
    const stored = toStoredValue(f, values[f.name]);
    if (typeof stored === 'string' && (stored.includes('\u0000') || (f.type === 'json' && ESCAPED_NUL.test(stored)))) {
      errors[f.name] = fieldError('validation_invalid_value', 'Cannot hold the character U+0000 (NUL) on the team server: PostgreSQL cannot store it.');
    }
  }
  return errors;
}

export function throwIfErrors(errors: ErrorData, message: string): void {
  if (Object.keys(errors).length > 0) throw badRequest(message, errors);
}

/** A UNIQUE failure is the field's `validation_not_unique` (the id's `validation_pk_invalid`). */
export function mapWriteError(err: unknown, c: Collection, message: string, dialect: Dialect): never {
  if (err instanceof ApiError) throw err;
  const fields = uniqueViolationFields(c, err, dialect.storedName);
  if (fields) {
    if (fields.includes('id')) throw badRequest(message, { id: fieldError('validation_pk_invalid', 'The record primary key is invalid or already exists.') });
    throw badRequest(message, notUniqueErrors(fields));
  }
  throw err;
}
