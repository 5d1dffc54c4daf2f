// A record as events carry it to hooks and back (the "wire record" of server/hooks/worker/record.cjs):
// the collection, every field's API value (hidden ones too, passwords never), and what a hook changed.
// Core makes and reads them here only: the write funnel's events (writes/hooked.ts), the request events
// (records.ts) and the hooks' $app (server/hooks/app-ops.ts).
import { badRequest } from '../errors.js';
import { apiValues } from './field-values.js';
import { hookFileOf } from './writes/hook-files.js';
import type { Collection, Row } from '../model/types.js';
import type { CoreEvents } from './events.js';
import type { RuleInput } from './request-context.js';

export interface WireRecord {
  collection: Collection;
  data: Record<string, unknown>;
  /** The values as loaded (absent: the same as `data`). */
  original?: Record<string, unknown>;
  isNew?: boolean;
  /** A plain password `setPassword` set, hashed when saved. */
  password?: string;
  /** Fields to leave out of the API answer (onRecordEnrich `hide`). */
  hidden?: string[];
  /** Keys a hook set that are no field (onRecordEnrich adds them to the answer when `custom`). */
  extra?: Record<string, unknown>;
  /** `withCustomData(true)`: the `extra` keys go into the API answer. */
  custom?: boolean;
}

/** A stored row as a wire record: every field (hidden ones too) but passwords. */
export function wireOf(c: Collection, row: Row): WireRecord {
  const data = apiValues(c, row);
  for (const f of c.fields) if (f.type === 'password') delete data[f.name];
  return { collection: c, data };
}

/** A submitted body as the new record a create event shows: its known fields' values. */
export function wireOfBody(c: Collection, body: unknown): WireRecord {
  const data: Record<string, unknown> = {};
  const b = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  for (const f of c.fields) if (f.type !== 'password' && f.type !== 'file' && Object.hasOwn(b, f.name)) data[f.name] = b[f.name];
  return { collection: c, data, isNew: true, original: { ...data } };
}

/**
 * What a hook changed in `after` (against `before`, the wire record it was given) applied onto `body`
 * (the body as submitted: files and modifiers kept). A stored record's wire record gives the fields that
 * differ from its original values.
 */
export function bodyWithChanges(body: unknown, before: WireRecord, after: WireRecord | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = body !== null && typeof body === 'object' ? { ...(body as Record<string, unknown>) } : {};
  if (!after) return out;
  for (const f of before.collection.fields) {
    if (f.type === 'password' || f.type === 'autodate') continue;
    if (!Object.hasOwn(after.data, f.name)) continue;
    const was = Object.hasOwn(before.data, f.name) ? JSON.stringify(before.data[f.name]) : undefined;
    if (JSON.stringify(after.data[f.name]) === was) continue;
    // a new record's event shows no file field (its uploads are the body's): the worker's empty value is no change
    if (f.type === 'file' && was === undefined && isEmptyFile(after.data[f.name])) continue;
    out[f.name] = f.type === 'file' ? hookFileValue(f.name, after.data[f.name]) : after.data[f.name];
  }
  if (after.password !== undefined) {
    const pw = before.collection.fields.find((f) => f.type === 'password');
    if (pw) {
      out[pw.name] = after.password;
      out[`${pw.name}Confirm`] = after.password;
    }
  }
  return out;
}

/** A record a hook built or loaded, as the body saving it submits: a new one all fields, a stored one what changed. */
export function bodyOfWire(w: WireRecord): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of w.collection.fields) {
    if (f.type === 'password' || f.type === 'autodate' || !Object.hasOwn(w.data, f.name)) continue;
    const v = w.data[f.name];
    const changed = w.original === undefined ? w.isNew === true : JSON.stringify(w.original[f.name]) !== JSON.stringify(v);
    if (f.type === 'file') {
      if (changed && !(w.isNew && isEmptyFile(v))) body[f.name] = hookFileValue(f.name, v);
      continue;
    }
    if (w.isNew || changed) body[f.name] = v;
  }
  if (w.isNew && (body.id === '' || body.id === undefined)) delete body.id;
  if (w.password !== undefined) {
    const pw = w.collection.fields.find((f) => f.type === 'password');
    if (pw) {
      body[pw.name] = w.password;
      body[`${pw.name}Confirm`] = w.password;
    }
  }
  return body;
}

/** The caller's auth record as events show it (`e.auth`), or undefined for a guest. */
export function authWire(ctx: RuleInput): WireRecord | undefined {
  const auth = ctx.request.auth;
  return auth ? wireOf(auth.collection, auth.record) : undefined;
}

/**
 * An API record with what a hook did to its event record: changed values of keys it shows, keys
 * hidden (`hide`), keys added (`withCustomData(true)` + `set`). `before` is the wire record the hook got.
 */
export function withHookChanges(api: Record<string, unknown>, before: WireRecord, after: WireRecord | undefined): Record<string, unknown> {
  if (!after) return api;
  const out = { ...api };
  for (const [k, v] of Object.entries(after.data)) {
    if (Object.hasOwn(out, k) && JSON.stringify(before.data[k]) !== JSON.stringify(v)) out[k] = v;
  }
  // keys that are no field reach the answer only with withCustomData(true), as PocketBase's
  if (after.custom) for (const [k, v] of Object.entries(after.extra ?? {})) if (k !== 'expand') out[k] = v;
  for (const k of after.hidden ?? []) delete out[k];
  return out;
}

/** onRecordEnrich for each record of an answer (`api[i]` presents `rows[i]`). */
export async function enrichRecords(events: CoreEvents, c: Collection, rows: Row[], api: Record<string, unknown>[], ctx: RuleInput): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < api.length; i++) {
    const record = { ...wireOf(c, rows[i]), data: { ...wireOf(c, rows[i]).data, ...pickExpand(api[i]) } };
    const { payload } = await events.trigger('onRecordEnrich', { record, auth: authWire(ctx) }, {}, async (p) => p, c);
    out.push(withHookChanges(api[i], record, payload.record as WireRecord | undefined));
  }
  return out;
}

const pickExpand = (api: Record<string, unknown>) => (api.expand === undefined ? {} : { expand: api.expand });

/**
 * What `e.requestInfo()` shows a request event's hooks (PocketBase's RequestInfo without `auth`, which
 * is `e.auth`): the method, query, headers as rules see them (no Authorization, no Cookie), body, context.
 */
export function requestInfoOf(ctx: RuleInput): Record<string, unknown> {
  const r = ctx.request;
  return { method: r.method, query: r.query, headers: r.headers, body: r.body, context: r.context };
}

const isEmptyFile = (v: unknown) => v === '' || v === null || v === undefined || (Array.isArray(v) && v.length === 0);

/**
 * A file field's value as a hook left it: stored names (strings; the field's check refuses names the
 * record does not have) and `$filesystem` files (hook-files.ts, received as uploads by the write);
 * anything else is refused, naming the field, rather than dropped.
 */
function hookFileValue(name: string, value: unknown): unknown {
  const items = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : hookFileOf(v)));
  if (value === null || value === undefined) return '';
  if (items.some((i) => i === null)) throw badRequest(`The file field "${name}" takes stored file names and $filesystem files from a hook.`);
  return Array.isArray(value) ? items : items[0];
}
