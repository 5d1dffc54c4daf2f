// What an operand resolves to: the currency between the language and a resolver. Static values
// (literals, @request values, macros) are bound parameters whose emptiness is known at compile time,
// which the `=` / `!=` null normalisation needs (PocketBase's `=` treats NULL and '' alike); everything else is an SQL expression
// over the filtered row.
import { SQLITE, type Affinity, type Dialect, type SqlType } from './dialect.js';
import { sized } from './guard.js';
import type { JoinSet } from './joins.js';
import { EMPTY_TEXT, NULL, param, sql, type Frag, type SqlValue } from './sql.js';

/**
 * - empty:  a static value that is NULL or '' (also a missing @request value);
 * - static: a static value known to be non-empty;
 * - column: an expression that may be NULL or '' (compared with the null/empty normalisation);
 * - exact:  an expression compared as is (json paths, geoDistance, :changed): `IS` / `IS NOT`.
 */
export type ValueKind = 'empty' | 'static' | 'column' | 'exact';

export interface Value {
  readonly kind: ValueKind;
  /** Reads several rows per record (multiple relation, back-relation, @collection, :each). */
  readonly multi: boolean;
  /** A multi value that never gets the "all must match" check (geoDistance, as in PocketBase). */
  readonly anyOnly?: boolean;
  /** What the SQL gives (the dialect compares sides of one type); unknown is read as text. */
  readonly type?: SqlType;
  /** SQLite's affinity of the value (dialect.ts `Affinity`); none when absent. */
  readonly affinity?: Affinity;
  /** The bound value of a static/empty value (the `~` pattern is built from it). */
  readonly staticValue?: SqlValue;
  /** The SQL; a multi value takes (or creates) its joins in `joins`. */
  build(joins: JoinSet): Frag;
}

/** A JavaScript value (request body, placeholder...) as a bound SQL value, as PocketBase binds them. */
export function toSqlValue(value: unknown): SqlValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  // Arrays and objects compare as their JSON text, the way multiple and json columns are stored.
  return JSON.stringify(value) ?? null;
}

export function staticValue(value: SqlValue): Value {
  if (value === null || value === '') {
    const frag = value === null ? NULL : EMPTY_TEXT;
    return { kind: 'empty', multi: false, staticValue: value, build: () => frag };
  }
  const frag = param(value);
  return { kind: 'static', multi: false, type: typeof value === 'number' ? 'number' : 'text', staticValue: value, build: () => frag };
}

export function fromJs(value: unknown): Value {
  return staticValue(toSqlValue(value));
}

export function bool(value: boolean): Value {
  return staticValue(value ? 1 : 0);
}

/** How a value enters the dialect's comparisons (dialect.ts `Operand`). */
export function operandOf(value: Value, frag: Frag): { sql: Frag; type?: SqlType; affinity?: Affinity; static?: { value: SqlValue } } {
  const isStatic = value.kind === 'static' || value.kind === 'empty';
  return isStatic ? { sql: frag, type: value.type, static: { value: value.staticValue ?? null } } : { sql: frag, type: value.type, affinity: value.affinity };
}

/** `:lower` of any value; a static value stays static (its emptiness does not change). */
export function lower(value: Value, dialect: Dialect = SQLITE): Value {
  // ASCII only, like SQLite's LOWER() without ICU.
  const lowered = typeof value.staticValue === 'string' ? value.staticValue.replace(/[A-Z]/g, (c) => c.toLowerCase()) : value.staticValue;
  if (dialect !== SQLITE && (value.kind === 'static' || value.kind === 'empty')) return staticValue(lowered ?? null);
  return {
    kind: value.kind,
    multi: value.multi,
    anyOnly: value.anyOnly,
    type: 'text',
    staticValue: lowered,
    build: (joins) => {
      if (joins.guarded) return sql`LOWER(${sized(value.build(joins))})`;
      return dialect.lower(operandOf(value, value.build(joins)));
    },
  };
}
