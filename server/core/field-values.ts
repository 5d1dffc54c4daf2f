// A field's value in each of its forms, converted through the field's spec (fields/<type>.ts) and
// nowhere else:
//   submitted (what a body sends) → normalised (`normalizeValue`, `zeroValue`, `modifyValue`: what
//   validation, rules' `@request.body` and the write see) → stored (`toStoredValue`: what SQLite binds) → API
//   (`fromStoredValue`: what a response shows, and what modifiers such as `views+` start from).
import { specFor } from './fields/index.js';
import type { ModifierOp } from './fields/spec.js';
import type { Collection, Field, Row, SqlValue } from '../model/types.js';

/** A submitted value → the normalised value (PocketBase's casts: "12" → 12 for a number field...). */
export function normalizeValue(field: Field, value: unknown): unknown {
  return specFor(field).normalize(value, field);
}

/** The value a field has when nothing was submitted (`""`, `0`, `false`, `[]`, `null`...), normalised. */
export function zeroValue(field: Field): unknown {
  return specFor(field).zero(field);
}

/** A modifier key (`views+`, `tags-`...) applied to the current normalised value; types without modifiers keep it. */
export function modifyValue(field: Field, current: unknown, op: ModifierOp, operand: unknown): unknown {
  const spec = specFor(field);
  return spec.modify ? spec.modify(current, op, operand, field) : current;
}

/** A normalised value → the value bound in SQL. */
export function toStoredValue(field: Field, value: unknown): SqlValue {
  return specFor(field).toStored(value, field);
}

/** A stored value → the value the API shows (a column the row lacks reads as NULL). */
export function fromStoredValue(field: Field, value: SqlValue | undefined): unknown {
  return specFor(field).fromStored(value ?? null, field);
}

/** fromStoredValue for one field, its spec looked up once (a serializer's plan: record-serializer.ts). */
export function storedReader(field: Field): (value: SqlValue | undefined) => unknown {
  const spec = specFor(field);
  return (value) => spec.fromStored(value ?? null, field);
}

/** Every field of a stored row in API form, hidden ones included (the current values an update starts from). */
export function apiValues(c: Collection, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of c.fields) out[f.name] = fromStoredValue(f, row[f.name]);
  return out;
}
