// A submitted body → normalised field values, with the modifier keys (`field+`, `+field`, `field-`)
// resolved against the current values, as PocketBase does. The result is both what is validated
// and stored and what rules see as `@request.body`.
import { badRequest, type ErrorData } from '../../errors.js';
import { modifyValue, normalizeValue, zeroValue } from '../field-values.js';
import { specFor } from '../fields/index.js';
import { setOwn } from '../own-keys.js';
import { MAX_WRITE_BYTES, writeTooLarge } from '../query-budget.js';
import { jsonWeight } from '../value-weight.js';
import type { ModifierOp } from '../fields/spec.js';
import { isListField, type Collection, type Field } from '../../model/types.js';

/** Keys the API never takes from a body. */
const IGNORED = new Set(['expand', 'collectionId', 'collectionName']);

export interface Submitted {
  /** Normalised values of the collection's settable fields that the body set (after modifiers). */
  values: Map<string, unknown>;
  /** The body as rules see it: every submitted key, field values normalised, modifiers resolved. */
  body: Record<string, unknown>;
  /** Auth-only keys. */
  password?: unknown;
  passwordConfirm?: unknown;
  oldPassword?: unknown;
}

function parseModifierKey(key: string): { name: string; op: 'plus' | 'prepend' | 'minus' } | null {
  if (key.startsWith('+')) return { name: key.slice(1), op: 'prepend' };
  if (key.endsWith('+')) return { name: key.slice(0, -1), op: 'plus' };
  if (key.endsWith('-')) return { name: key.slice(0, -1), op: 'minus' };
  return null;
}

function opFor(field: Field, op: 'plus' | 'prepend' | 'minus'): ModifierOp | null {
  if (field.type === 'number') return op === 'plus' ? 'add' : op === 'minus' ? 'subtract' : null;
  if (isListField(field)) return op === 'plus' ? 'append' : op === 'minus' ? 'remove' : 'prepend';
  return null;
}

/** Can the caller set this field from a body? Hidden fields only for superusers; autodates and the password never directly. */
function isSettable(f: Field | undefined, superuser: boolean): f is Field {
  return f !== undefined && f.type !== 'autodate' && f.type !== 'password' && (superuser || !f.hidden);
}

/** A write's body, sized before anything reads its values. */
export interface SizedBody {
  /** The body without its oversized values: what is read, normalised and shown to rules. */
  body: Record<string, unknown>;
  /** The values whose size alone fails their field, keyed by field as validation keys them. */
  oversized: ErrorData;
  /** What the body would store (`valuesWeight`), counted no further than past MAX_WRITE_BYTES. */
  weight: number;
}

/**
 * The first step of a write: each settable field's value sized as submitted (fields/<type>.ts
 * `oversize`: text max, editor and json maxSize) and the body weighed, without normalising anything.
 * Oversized values are left out of what the write reads next, so no rule check binds them and nothing
 * normalises them; `refuseOversized` answers them once the caller has passed the rule.
 */
export function sizeBody(c: Collection, raw: Record<string, unknown>, superuser: boolean): SizedBody {
  const oversized: ErrorData = {};
  for (const f of c.fields) {
    const oversize = specFor(f).oversize;
    if (oversize === undefined || !Object.hasOwn(raw, f.name) || !isSettable(f, superuser)) continue;
    const problem = oversize(raw[f.name], f);
    if (problem) oversized[f.name] = problem;
  }
  let body = raw;
  if (Object.keys(oversized).length > 0) {
    body = {};
    for (const key of Object.keys(raw)) if (!Object.hasOwn(oversized, key)) setOwn(body, key, raw[key]);
  }
  return { body, oversized, weight: valuesWeight(c, raw, MAX_WRITE_BYTES) };
}

/**
 * After the rule check, so that only a caller the rule lets write learns what the body's fields are:
 * the oversized values with their fields' errors, then the body's weight against what one write may
 * store (MAX_WRITE_BYTES).
 */
export function refuseOversized(sized: SizedBody, failed: string): void {
  if (Object.keys(sized.oversized).length > 0) throw badRequest(failed, sized.oversized);
  if (sized.weight > MAX_WRITE_BYTES) throw writeTooLarge();
}

/**
 * What a body would store: the weight (value-weight.ts) of its keys that name a field of `c`, plainly
 * or as a modifier (`tags+`, `+tags`, `tags-`); other keys are not stored (rules may read them, bound
 * natively when long). Counting stops past `stopAfter`.
 */
export function valuesWeight(c: Collection, raw: Record<string, unknown>, stopAfter = Infinity): number {
  const names = new Set(c.fields.map((f) => f.name));
  let total = 0;
  for (const key of Object.keys(raw)) {
    const mod = parseModifierKey(key);
    if (!names.has(key) && !(mod && names.has(mod.name))) continue;
    total += key.length + jsonWeight(raw[key], stopAfter - total);
    if (total > stopAfter) break;
  }
  return total;
}

/**
 * `current` holds the stored values in API form (update) or nothing (create: zero values).
 * `superuser` keeps hidden fields settable; for others they are dropped, except the auth password.
 */
export function readSubmitted(c: Collection, raw: Record<string, unknown>, current: Record<string, unknown> | null, superuser: boolean): Submitted {
  const byName = new Map(c.fields.map((f) => [f.name, f]));
  const values = new Map<string, unknown>();
  const body: Record<string, unknown> = {};
  const out: Submitted = { values, body };
  const settable = (f: Field | undefined): f is Field => isSettable(f, superuser);

  // plain keys first, then modifiers, shortest key first (PocketBase applies them in that order)
  const keys = Object.keys(raw).sort((a, b) => a.length - b.length);
  for (const key of keys) {
    if (IGNORED.has(key)) continue;
    const value = raw[key];
    if (c.type === 'auth' && (key === 'password' || key === 'passwordConfirm' || key === 'oldPassword')) {
      out[key] = value;
      setOwn(body, key, value);
      continue;
    }
    const field = byName.get(key);
    if (field) {
      if (settable(field)) {
        const v = normalizeValue(field, value);
        values.set(key, v);
        setOwn(body, key, v);
      }
      continue;
    }
    const mod = parseModifierKey(key);
    const target = mod ? byName.get(mod.name) : undefined;
    if (mod && settable(target)) {
      const op = opFor(target, mod.op);
      if (op === null) continue;
      const base = values.has(target.name) ? values.get(target.name) : current ? current[target.name] : zeroValue(target);
      const next = modifyValue(target, base, op, value);
      values.set(target.name, next);
      body[target.name] = next;
      continue;
    }
    if (!mod) setOwn(body, key, value); // arbitrary keys stay visible to rules as @request.body.<key>
  }
  return out;
}
