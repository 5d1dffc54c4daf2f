// Shared pieces of the field specs: PocketBase's (ozzo-validation's) error codes and messages, and the
// readers that pull typed options out of a submitted field definition while collecting errors.
import { fieldError, type ErrorData, type FieldError } from '../../errors.js';
import { patternError } from './pattern.js';

/** Go's maxSafeJSONInt: PocketBase caps numeric options at 2^53 - 1. */
export const MAX_SAFE_JSON_INT = Number.MAX_SAFE_INTEGER;

/** Replaces `{name}` placeholders with params, as ozzo renders its `{{.name}}` templates. */
function render(template: string, params: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in params ? String(params[key]) : whole));
}

/** A FieldError whose message has its params rendered in (and still carries them under `params`). */
export function err(code: string, template: string, params?: Record<string, unknown>): FieldError {
  return params === undefined ? fieldError(code, template) : fieldError(code, render(template, params), params);
}

export const required = (): FieldError => err('validation_required', 'Cannot be blank.');
export const unsupportedType = (): FieldError => err('validation_unsupported_value_type', 'Invalid or unsupported value type.');
export const mustBeBlank = (): FieldError => err('validation_empty', 'Must be blank.');
export const minThreshold = (threshold: unknown): FieldError =>
  err('validation_min_greater_equal_than_required', 'Must be no less than {threshold}.', { threshold });
export const maxThreshold = (threshold: unknown): FieldError =>
  err('validation_max_less_equal_than_required', 'Must be no greater than {threshold}.', { threshold });

/** ozzo's Length(min, max) errors, params included. */
export function lengthError(min: number, max: number): FieldError {
  if (min === 0) return err('validation_length_too_long', 'The length must be no more than {max}.', { min, max });
  return err('validation_length_out_of_range', 'The length must be between {min} and {max}.', { min, max });
}

/** Sorts an object's keys: PocketBase serialises fields through a Go map, so their JSON keys are alphabetical. */
export function sortKeys<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj).sort()) out[key] = (obj as Record<string, unknown>)[key];
  return out as T;
}

/**
 * Reads the options of one submitted field definition. Missing or null options take their default;
 * an option of the wrong JSON type is reported (PocketBase would reject the whole body) and defaulted.
 */
export class OptionReader {
  readonly errors: ErrorData = {};
  constructor(private readonly input: Record<string, unknown>) {}

  private raw(key: string): unknown {
    const v = this.input[key];
    return v === null ? undefined : v;
  }

  private bad<T>(key: string, fallback: T): T {
    this.errors[key] = unsupportedType();
    return fallback;
  }

  bool(key: string, fallback = false): boolean {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    return typeof v === 'boolean' ? v : this.bad(key, fallback);
  }

  int(key: string, fallback = 0): number {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    return typeof v === 'number' && Number.isInteger(v) ? v : this.bad(key, fallback);
  }

  numberOrNull(key: string): number | null {
    const v = this.raw(key);
    if (v === undefined) return null;
    return typeof v === 'number' && Number.isFinite(v) ? v : this.bad(key, null);
  }

  string(key: string, fallback = ''): string {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    return typeof v === 'string' ? v : this.bad(key, fallback);
  }

  stringList(key: string): string[] {
    const v = this.raw(key);
    if (v === undefined) return [];
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? [...v] : this.bad(key, []);
  }

  /** Records an error unless the key already has one (ozzo reports the first failing rule per key). */
  fail(key: string, error: FieldError | ErrorData | null): void {
    if (error !== null && this.errors[key] === undefined) this.errors[key] = error;
  }

  has(key: string): boolean {
    return this.errors[key] !== undefined;
  }
}

/** ozzo's Min(min)/Max(max) on an integer option; like ozzo, a zero value is not checked. */
export function checkIntRange(r: OptionReader, key: string, value: number, min: number, max = MAX_SAFE_JSON_INT): void {
  if (value === 0) return;
  if (value < min) r.fail(key, minThreshold(min));
  else if (value > max) r.fail(key, maxThreshold(max));
}

/** PocketBase's `validators.IsRegex`: RE2 decides, and the message is Go's own parser error. */
export function checkRegex(r: OptionReader, key: string, pattern: string): boolean {
  if (pattern === '') return true;
  const message = patternError(pattern);
  if (message === null) return true;
  r.fail(key, err('validation_invalid_regex', message));
  return false;
}

/**
 * Number of characters as PocketBase counts them (runes, not UTF-16 units). Counting stops once it
 * passes `stopAfter` (the result is then `stopAfter + 1`), so checking a huge value against a small
 * maximum costs the maximum, not the value's length.
 */
export function runeLength(value: string, stopAfter = Infinity): number {
  let n = 0;
  for (const _ of value) if (++n > stopAfter) break;
  return n;
}
