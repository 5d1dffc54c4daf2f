// The contract every field type implements, one file per type (`fields/<type>.ts`), gathered in
// `fields/index.ts` as `FIELD_SPECS: { [K in FieldType]: FieldSpec<K> }` so a missing type fails to compile.
//
// Storage conventions (the filter compiler relies on them too):
// - table name = collection name, column name = field name, `id` TEXT PRIMARY KEY;
// - text, editor, email, url, date, autodate, password: TEXT NOT NULL DEFAULT '';
// - number: NUMERIC NOT NULL DEFAULT 0; bool: BOOLEAN NOT NULL DEFAULT FALSE (stored 0/1);
// - single select/relation: TEXT NOT NULL DEFAULT ''; multiple (maxSelect > 1): JSON NOT NULL DEFAULT '[]'
//   holding a JSON array of strings;
// - json: JSON DEFAULT NULL (JSON text); geoPoint: JSON NOT NULL DEFAULT '{"lon":0,"lat":0}';
// - datetimes are ISO 8601 text `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), so they sort as text.
import type { ErrorData, FieldError } from '../../errors.js';
import type { Collection, FieldBase, FieldOf, FieldType, Lookup, SqlValue } from '../../model/types.js';

export interface DefineContext {
  collectionType: Collection['type'];
  /** Looks a collection up by id or name (relation targets). */
  lookup: Lookup;
  /** The stored definition of this field (same id) when the collection is being updated. */
  previous?: FieldOf<FieldType>;
}

export interface ValidateContext {
  isNew: boolean;
  /** The record's stored values in API form (update), null on create: file names already stored. */
  current?: Record<string, unknown> | null;
  /** The ids among `ids` that do not exist in the collection `collectionId` (a query: asynchronous). */
  missingRelationIds(collectionId: string, ids: string[]): Promise<string[]>;
}

export type ModifierOp = 'add' | 'subtract' | 'append' | 'prepend' | 'remove';

export interface FieldSpec<T extends FieldType> {
  type: T;
  /**
   * Fills the type's option defaults into a submitted definition and validates the options.
   * `base` has the common props already checked (id, name, system, hidden, presentable, required, help).
   * Errors are keyed by option name (`values`, `max`, `collectionId`...).
   */
  define(input: Record<string, unknown>, base: FieldBase, ctx: DefineContext): { field: FieldOf<T>; errors: ErrorData };
  /** Column type, default and constraints, without the column name: `TEXT DEFAULT '' NOT NULL`. */
  column(field: FieldOf<T>): string;
  /** A submitted value → the normalised value that validation, rules (`@request.body`) and storage see. */
  normalize(value: unknown, field: FieldOf<T>): unknown;
  /** The zero value, normalised (`""`, `0`, `false`, `[]`, `null`...). */
  zero(field: FieldOf<T>): unknown;
  /**
   * A submitted value whose size alone already fails `validate` → that same error, decided cheaply on the
   * value as submitted (before `normalize`, any rule check or SQL binds it); null when its size passes or
   * cannot be told this way. Types whose values can be large (text, editor, json) have one.
   */
  oversize?(value: unknown, field: FieldOf<T>): FieldError | null;
  /** Validates a normalised value (required, bounds, format...); null when valid. */
  validate(value: unknown, field: FieldOf<T>, ctx: ValidateContext): FieldError | null | Promise<FieldError | null>;
  /** Normalised value → value bound in SQL. */
  toStored(value: unknown, field: FieldOf<T>): SqlValue;
  /** Stored value → JSON value returned by the API (and the current value modifiers start from). */
  fromStored(value: SqlValue, field: FieldOf<T>): unknown;
  /** Modifier keys (`field+`, `+field`, `field-`); absent for types that take none. */
  modify?(current: unknown, op: ModifierOp, operand: unknown, field: FieldOf<T>): unknown;
}
