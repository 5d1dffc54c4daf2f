// Turns a submitted collection (create, or update merged onto the stored one) into a complete,
// validated Collection, or a 400 with per-key codes as PocketBase reports them.
import { ApiError, fieldError } from '../errors.js';
import type { ErrorData } from '../errors.js';
import { checkRule, SQLITE, type Dialect } from '../rules/compile.js';
import { defineField } from './fields/index.js';
import { isRecord } from '../json-object.js';
import { NAME_PATTERN, normalizeIndexes } from './collections-input-indexes.js';
import { authOptionsOf, readAuthOptions, refuseAuthOptions, storeAuthOptions } from './auth-options.js';
import type { Collection, Field, Lookup, RuleKey } from '../model/types.js';
import { RULE_KEYS } from '../model/types.js';
import { ID_PATTERN } from './ids.js';
import { ViewQueryError } from './view-query.js';

export interface InputContext {
  lookup: Lookup;
  /** The engine rules will run on (a rule PostgreSQL cannot run is refused when saved); SQLite when absent. */
  dialect?: Dialect;
  /** The stored collection when updating. */
  previous?: Collection;
  /** Every collection (index names are unique across them). */
  allCollections(): Collection[];
  /**
   * A view collection's fields, inferred from its `viewQuery` by creating its SQLite view in the
   * caller's transaction (views.ts `realizeView`); throws ViewQueryError. Absent: views are refused.
   */
  viewFields?(candidate: Collection): Promise<Field[]>;
  /**
   * The stored collection was made moments ago with its system fields only (the schema import's first
   * pass): system fields the submitted list lacks are added first, as PocketBase adds them, instead of
   * being refused.
   */
  newInThisImport?: boolean;
}

function setError(errors: ErrorData, key: string, code: string, message: string): void {
  errors[key] = fieldError(code, message);
}

/**
 * A name the engine keeps for itself (dialect.reserves): SQLite's always, as the desktop has them and a
 * team server's data can go back to a desktop, and the team server's PostgreSQL's beside them.
 */
function reservedName(kind: 'table' | 'column', name: string, ctx: InputContext): boolean {
  return SQLITE.reserves(kind, name) || (ctx.dialect?.reserves(kind, name) ?? false);
}

function reservedMessage(kind: 'table' | 'column', name: string, ctx: InputContext): string {
  const engine = SQLITE.reserves(kind, name) ? 'SQLite' : ctx.dialect?.name === 'postgres' ? 'the team server\'s PostgreSQL' : 'the database';
  return `The name "${name}" is reserved by ${engine} (${kind === 'table' ? 'one of its own tables' : 'one of its system columns'}).`;
}

export function validateName(name: unknown, ctx: InputContext, id: string, errors: ErrorData): string {
  if (typeof name !== 'string' || name.trim() === '') {
    setError(errors, 'name', 'validation_required', 'Cannot be blank.');
    return '';
  }
  if (name.length > 255) setError(errors, 'name', 'validation_length_out_of_range', 'The length must be between 1 and 255.');
  else if (!NAME_PATTERN.test(name)) {
    setError(errors, 'name', 'validation_match_invalid', 'Must start with a letter and contain only letters, digits and underscores.');
  } else if (reservedName('table', name, ctx)) {
    setError(errors, 'name', 'validation_reserved_name', reservedMessage('table', name, ctx));
  } else if (name.toLowerCase().includes('_via_')) {
    // `x_via_y` names a back-relation in expand and filters: a collection so named would be ambiguous
    setError(errors, 'name', 'validation_found_via', 'The value cannot contain "_via_".');
  } else {
    const clash = ctx.lookup(name);
    if (clash && clash.id !== id) setError(errors, 'name', 'validation_not_unique', 'Collection name must be unique (case insensitive).');
  }
  return name;
}

function normalizeFields(input: unknown[], ctx: InputContext, type: Collection['type'], errors: ErrorData): Field[] {
  const fieldErrors: ErrorData = {};
  const fields: Field[] = [];
  const seenIds = new Set<string>();
  const seenNames = new Set<string>();
  input.forEach((raw, i) => {
    const key = String(i);
    if (!isRecord(raw)) {
      fieldErrors[key] = fieldError('validation_invalid_value', 'Invalid field definition.');
      return;
    }
    const { field, errors: defErrors } = defineField(raw, i, { collectionType: type, lookup: ctx.lookup, usedIds: seenIds }, (id) => ctx.previous?.fields.find((f) => f.id === id));
    const errs: ErrorData = { ...defErrors };
    const previous = ctx.previous?.fields.find((f) => f.id === field.id);
    if (previous) {
      if (previous.type !== field.type) errs.type = fieldError('validation_field_type_change', 'Field type cannot be changed.');
      if (previous.system && previous.name !== field.name) {
        errs.name = fieldError('validation_system_field_change', 'System fields cannot be deleted or renamed.');
      }
      field.system = previous.system;
    } else {
      field.system = false;
    }
    if (errs.name === undefined && field.name !== '' && reservedName('column', field.name, ctx)) {
      errs.name = fieldError('validation_reserved_field_name', reservedMessage('column', field.name, ctx));
    }
    if (seenIds.has(field.id)) errs.id = fieldError('validation_duplicated_field_id', 'Duplicated or invalid field id.');
    if (seenNames.has(field.name.toLowerCase())) errs.name = fieldError('validation_duplicated_field_name', 'Duplicated or invalid field name.');
    seenIds.add(field.id);
    seenNames.add(field.name.toLowerCase());
    fields.push(field);
    if (Object.keys(errs).length > 0) fieldErrors[key] = errs;
  });
  if (Object.keys(fieldErrors).length > 0) errors.fields = fieldErrors;
  return fields;
}

function checkSystemFieldsKept(fields: Field[], previous: Collection, errors: ErrorData): void {
  const missing = previous.fields.filter((f) => f.system && !fields.some((n) => n.id === f.id));
  if (missing.length > 0 && errors.fields === undefined) {
    errors.fields = fieldError('validation_system_field_change', `System fields cannot be deleted or renamed (${missing.map((f) => f.name).join(', ')}).`);
  }
}

function normalizeRules(input: Record<string, unknown>, base: Collection, errors: ErrorData, ctx: InputContext): void {
  const keys: RuleKey[] = base.type === 'auth' ? [...RULE_KEYS] : RULE_KEYS.filter((k) => k !== 'authRule' && k !== 'manageRule');
  for (const key of keys) {
    if (!(key in input)) continue;
    const value = input[key];
    if (value !== null && typeof value !== 'string') {
      errors[key] = fieldError('validation_invalid_rule', 'Invalid rule. Raw error: must be a string or null.');
      continue;
    }
    base[key] = value;
  }
  for (const key of keys) {
    const rule = base[key];
    if (typeof rule !== 'string' || rule.trim() === '' || errors[key]) continue;
    const problem = checkRule(rule, base, (idOrName: string) => (idOrName === base.id || idOrName.toLowerCase() === base.name.toLowerCase() ? base : ctx.lookup(idOrName)), ctx.dialect);
    if (problem !== null) errors[key] = fieldError('validation_invalid_rule', `Invalid rule. Raw error: ${problem}`);
  }
  if (base.type === 'auth' && base.manageRule === '') {
    errors.manageRule = fieldError('validation_invalid_rule', 'Invalid rule. Raw error: the manage rule must be null or an expression.');
  }
}

/**
 * A view's query and the fields it infers (PocketBase regenerates a view's fields on every save, so
 * submitted fields, as in an exported schema, are replaced); no indexes, and no create, update or
 * delete rule (`validation_nil`), as PocketBase's collection validation has it.
 */
async function normalizeView(input: Record<string, unknown>, base: Collection, ctx: InputContext, errors: ErrorData): Promise<void> {
  if (input.viewQuery !== undefined) {
    if (typeof input.viewQuery !== 'string') errors.viewQuery = fieldError('validation_invalid_view_query', 'Invalid query - must be a string.');
    else base.viewQuery = input.viewQuery;
  }
  if (Array.isArray(input.indexes) && input.indexes.length > 0) errors.indexes = fieldError('validation_indexes_not_supported', 'The view collections don\'t support indexes.');
  for (const key of ['createRule', 'updateRule', 'deleteRule'] as const) {
    if (key in input && input[key] !== null) errors[key] = fieldError('validation_nil', 'Must be null.');
  }
  if (errors.viewQuery) return;
  if (typeof base.viewQuery !== 'string' || base.viewQuery.trim() === '') {
    errors.viewQuery = fieldError('validation_required', 'Cannot be blank.');
    return;
  }
  if (!ctx.viewFields) {
    errors.viewQuery = fieldError('validation_invalid_view_query', 'Invalid query - view collections cannot be saved here.');
    return;
  }
  try {
    base.fields = await ctx.viewFields(base);
  } catch (err) {
    if (!(err instanceof ViewQueryError)) throw err;
    errors.viewQuery = fieldError('validation_invalid_view_query', `Invalid query - ${err.message}`);
  }
}

function normalizeIdentityFields(input: unknown, c: Collection, errors: ErrorData): void {
  if (c.type !== 'auth' || input === undefined) return;
  if (!Array.isArray(input) || input.length === 0 || !input.every((v) => typeof v === 'string')) {
    errors.identityFields = fieldError('validation_required', 'List at least one field name.');
    return;
  }
  for (const name of input as string[]) {
    const field = c.fields.find((f) => f.name === name);
    if (!field) {
      errors.identityFields = fieldError('validation_missing_field', `Unknown field "${name}".`);
      return;
    }
    const unique = name === 'email' || c.indexes.some((i) => i.unique && i.fields.length === 1 && i.fields[0] === field.id);
    if (!unique) {
      errors.identityFields = fieldError('validation_missing_unique_constraint', `The identity field "${name}" needs a unique index.`);
      return;
    }
  }
  c.identityFields = [...(input as string[])];
}

export interface Defaults {
  newCollection(type: Collection['type'], name: string, id: string, withTimestamps: boolean): Collection;
  /** Ensures the primary key and (auth) system fields are present on create. */
  withSystemFields(type: Collection['type'], fields: Field[]): Field[];
}

/**
 * Validates `input` into a complete collection. For create, `ctx.previous` is absent and defaults
 * fill every setting; for update, settings left out keep the stored value.
 */
export async function buildCollection(input: unknown, ctx: InputContext, defaults: Defaults, now: string): Promise<Collection> {
  if (!isRecord(input)) throw new ApiError(400, 'Failed to load the submitted data due to invalid formatting.');
  const prev = ctx.previous;
  const errors: ErrorData = {};
  let type: Collection['type'] = prev?.type ?? 'base';
  if (input.type !== undefined) {
    if (input.type !== 'base' && input.type !== 'auth' && input.type !== 'view') errors.type = fieldError('validation_in_invalid', 'Must be "base", "auth" or "view".');
    else if (prev && prev.type !== input.type) errors.type = fieldError('validation_collection_type_change', 'Collection type cannot be changed.');
    else type = input.type;
  }
  let id = prev?.id ?? '';
  if (!prev) {
    if (input.id === undefined || input.id === '') id = '';
    else if (typeof input.id !== 'string' || !ID_PATTERN.test(input.id)) errors.id = fieldError('validation_match_invalid', 'Must be 15 characters from a-z0-9.');
    else if (ctx.lookup(input.id)) errors.id = fieldError('validation_not_unique', 'The id is already in use.');
    else id = input.id;
  } else if (input.id !== undefined && input.id !== prev.id) {
    errors.id = fieldError('validation_pk_change', 'The collection id cannot be changed.');
  }
  // PocketBase's ensureNoSystemFlagChange: an existing collection's `system` flag stays as it is
  if (prev && 'system' in input && input.system !== prev.system) {
    errors.system = fieldError('validation_collection_system_flag_change', 'System collection state cannot be changed.');
  }
  const name = input.name === undefined && prev ? prev.name : validateName(input.name, ctx, id, errors);
  if (prev?.system && name !== prev.name) errors.name = fieldError('validation_collection_system_name_change', 'System collection name cannot be changed.');
  const base: Collection = prev ? { ...prev, name } : defaults.newCollection(type, name, id, input.fields === undefined);
  if (type === 'view') await normalizeView(input, base, ctx, errors);
  else if (input.fields !== undefined) {
    if (!Array.isArray(input.fields)) errors.fields = fieldError('validation_invalid_value', 'Must be an array of field definitions.');
    else {
      let fields = normalizeFields(input.fields, ctx, type, errors);
      // new in this import: the system fields it was given without come first (those given keep their
      // options, and the errors above name the submitted positions)
      if (prev && ctx.newInThisImport) fields = [...prev.fields.filter((f) => f.system && !fields.some((n) => n.name === f.name)), ...fields];
      if (prev) checkSystemFieldsKept(fields, prev, errors);
      else fields = defaults.withSystemFields(type, fields);
      base.fields = fields;
    }
  }
  if (type === 'view') base.indexes = [];
  else if (input.indexes !== undefined || !prev) base.indexes = normalizeIndexes(input.indexes, base.fields, ctx.allCollections(), base.id, errors, base.type);
  else base.indexes = base.indexes.filter((i) => i.fields.every((fid) => base.fields.some((f) => f.id === fid)));
  if (prev?.system) {
    for (const key of RULE_KEYS) {
      if (key in input && input[key] !== prev[key]) errors[key] = fieldError('validation_collection_system_rule_change', 'System collection rules cannot be changed.');
    }
  } else normalizeRules(input, base, errors, ctx);
  if (base.type === 'auth') {
    // PocketBase's auth options (auth-options.ts); passwordAuth.identityFields is the spec's identityFields
    const { options, identityFields } = readAuthOptions(input, authOptionsOf(base), errors);
    normalizeIdentityFields(input.identityFields ?? identityFields, base, errors);
    // PocketBase checks the MFA rule only while MFA is on (core/collection_model_auth_options.go)
    if (options.mfa.enabled && options.mfa.rule.trim() !== '' && (errors.mfa as ErrorData | undefined)?.rule === undefined) {
      const problem = checkRule(options.mfa.rule, base, (idOrName: string) => (idOrName === base.id || idOrName.toLowerCase() === base.name.toLowerCase() ? base : ctx.lookup(idOrName)), ctx.dialect);
      if (problem !== null) errors.mfa = { ...(errors.mfa as ErrorData | undefined), rule: fieldError('validation_invalid_rule', `Invalid rule. Raw error: ${problem}`) };
    }
    storeAuthOptions(base, options);
  } else refuseAuthOptions(input, errors);
  if (Object.keys(errors).length > 0) {
    throw new ApiError(400, prev ? 'Failed to update collection.' : 'Failed to create collection.', errors);
  }
  base.updated = now;
  return base;
}
