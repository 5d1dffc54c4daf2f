// `text`: any string. max 0 means 5000 characters; the primary key `id` is a text field too.
import type { FieldError } from '../../errors.js';
import type { FieldBase, TextField } from '../../model/types.js';
import { TEXT_STORAGE } from './casts.js';
import {
  checkIntRange, checkRegex, err, mustBeBlank, OptionReader, required, runeLength, sortKeys,
  unsupportedType,
} from './common.js';
import { matchesPattern } from './pattern.js';
import { generateFromPattern } from './pattern-generate.js';
import { newId } from '../ids.js';
import type { FieldSpec } from './spec.js';

export const DEFAULT_TEXT_MAX = 5000;
/** The default id pattern; PocketBase skips the extra primary key checks when it is in use. */
export const DEFAULT_ID_PATTERN = '^[a-z0-9]+$';

// Characters and names that break file paths on some systems (the id names the record's file folder).
const FORBIDDEN_PK_CHARS = ['.', '/', '\\', '|', '"', "'", '`', '<', '>', ':', '?', '*', '%', '$', '\0', '\t', '\n', '\r', ' '];
const RESERVED_PKS = ['CON', 'PRN', 'AUX', 'NUL', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`COM${n}`, `LPT${n}`])];

/** PocketBase's ValidatePlainValue: required (always for the primary key), length, pattern, id safety. */
export function validateText(value: string, field: TextField): FieldError | null {
  if (value === '') return field.required || field.primaryKey ? required() : null;
  const max = field.max === 0 ? DEFAULT_TEXT_MAX : field.max;
  const length = runeLength(value, Math.max(max, field.min));
  if (field.min > 0 && length < field.min) {
    return err('validation_min_text_constraint', 'Must be at least {min} character(s).', { min: field.min });
  }
  if (max > 0 && length > max) return tooLong(max);
  if (field.pattern !== '' && !matchesPattern(field.pattern, value)) return err('validation_invalid_format', 'Invalid value format.');
  if (field.primaryKey && field.pattern !== DEFAULT_ID_PATTERN) return checkPrimaryKey(value);
  return null;
}

const tooLong = (max: number): FieldError => err('validation_max_text_constraint', 'Must be no more than {max} character(s).', { max });

/** A text longer than the field's max (5000 characters by default), told before anything else reads it. */
function oversize(value: unknown, field: TextField): FieldError | null {
  if (typeof value !== 'string') return null; // numbers and booleans are short; other types are refused by validate
  const max = field.max === 0 ? DEFAULT_TEXT_MAX : field.max;
  // a string has at most as many characters as UTF-16 units: only a longer one needs counting
  return value.length > max && runeLength(value, max) > max ? tooLong(max) : null;
}

function checkPrimaryKey(value: string): FieldError | null {
  const ch = FORBIDDEN_PK_CHARS.find((c) => value.includes(c));
  if (ch !== undefined) {
    return err('validation_forbidden_pk_character', "'{ch}' is not a valid primary key character.", { ch });
  }
  const reserved = RESERVED_PKS.find((name) => name === value.toUpperCase());
  if (reserved !== undefined) {
    return err('validation_reserved_pk', "The primary key '{reserved}' is reserved and cannot be used.", { reserved });
  }
  return null;
}

/** The value a new record gets when it leaves the field empty (or `prefix` + generated for `:autogenerate`). */
export function autogenerate(field: TextField, prefix = ''): string {
  if (field.autogeneratePattern === '') return prefix;
  // the ids' own pattern (every record's id): newId draws the same uniform characters, 5x quicker
  if (field.autogeneratePattern === ID_AUTOGENERATE) return prefix + newId();
  return prefix + generateFromPattern(field.autogeneratePattern);
}

/** The `id` field's autogeneratePattern (system-fields.ts): what newId makes. */
export const ID_AUTOGENERATE = '[a-z0-9]{15}';

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: TextField = sortKeys({
    ...base,
    type: 'text',
    min: r.int('min'),
    max: r.int('max'),
    pattern: r.string('pattern'),
    autogeneratePattern: r.string('autogeneratePattern'),
    primaryKey: r.bool('primaryKey'),
  });
  checkIntRange(r, 'min', field.min, 0);
  checkIntRange(r, 'max', field.max, field.min);
  if (field.primaryKey) {
    if (field.name !== 'id') r.fail('name', err('validation_in_invalid', 'The primary key must be named "id".'));
    if (field.pattern === '') r.fail('pattern', required());
    if (field.hidden) r.fail('hidden', mustBeBlank());
    if (!field.required) r.fail('required', required());
  }
  checkRegex(r, 'pattern', field.pattern);
  if (checkRegex(r, 'autogeneratePattern', field.autogeneratePattern) && !r.has('pattern')) {
    r.fail('autogeneratePattern', checkAutogenerate(field));
  }
  return { field, errors: r.errors };
}

/** Like PocketBase, generates 10 samples and checks them against the field's own rules. */
function checkAutogenerate(field: TextField): FieldError | null {
  if (field.autogeneratePattern === '') return null;
  for (let i = 0; i < 10; i++) {
    let sample: string;
    try {
      sample = generateFromPattern(field.autogeneratePattern);
    } catch (e) {
      return err('validation_invalid_autogenerate_pattern', e instanceof Error ? e.message : 'Invalid pattern.');
    }
    if (validateText(sample, field) !== null) {
      return err(
        'validation_invalid_autogenerate_pattern_value',
        `The provided autogenerate pattern could produce invalid field values, ex.: ${JSON.stringify(sample)}`,
      );
    }
  }
  return null;
}

export const textSpec: FieldSpec<'text'> = {
  type: 'text',
  ...TEXT_STORAGE,
  define,
  column: (field) => (field.primaryKey ? 'TEXT PRIMARY KEY NOT NULL' : TEXT_STORAGE.column()),
  oversize,
  validate: (value, field) => (typeof value === 'string' ? validateText(value, field) : unsupportedType()),
};
