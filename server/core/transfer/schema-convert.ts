// One collection as PocketBase (v0.23+) exports it, or as Deskbase does, → the body Deskbase's own
// collection validation takes (collections-input.ts). What has no Deskbase meaning is left out and
// noted: fields of types Deskbase lacks, PocketBase's tokenKey, indexes with expressions, collations,
// sort orders or WHERE clauses, auth options (OAuth2, MFA, OTP, alerts). Relation targets are
// rewritten through the id map, so foreign ids (`pbc_<digits>`, `_pb_users_auth_`) become ours.
import { authSystemFields, primaryKeyField } from '../fields/system-fields.js';
import { badRequest } from '../../errors.js';
import { isRecord } from '../../json-object.js';
import { defaultFieldId, resolveFieldType } from '../fields/base.js';
import { authOptionsOf, importableAuthOptions } from '../auth-options.js';
import type { AuthOptions, Collection, IndexDef, RuleKey } from '../../model/types.js';
import { RULE_KEYS } from '../../model/types.js';
import { isPocketBaseAuthIndex, parseIndexSql } from './index-sql.js';
import type { Notes } from './transfer-notes.js';

export interface ConvertContext {
  /** Our id for a foreign collection id or name; undefined when that collection is not imported. */
  idOf(foreignIdOrName: string): string | undefined;
  /** The stored collection the import updates, if any. */
  existing: Collection | undefined;
  notes: Notes;
  /**
   * The PocketBase import's merge: a field of the stored collection keeps its id when the file has a
   * field of the same name (so its values stay), and a stored field the file lacks is kept, noted,
   * instead of being dropped with its data. A field whose type differs fails the import.
   */
  keepStored?: boolean;
}

export interface Converted {
  /** The structure: fields, indexes and identity fields, and an auth collection's options (rules come in a second step). */
  structure: { fields: Record<string, unknown>[]; indexes: IndexDef[]; identityFields?: string[] } & Partial<Record<keyof AuthOptions, unknown>>;
  rules: Partial<Record<RuleKey, string | null>>;
}

/** PocketBase's auth-only fields with no Deskbase meaning (sessions are server-side). */
const DROPPED_AUTH_FIELDS = new Set(['tokenKey']);

function convertFields(raw: unknown, type: Collection['type'], name: string, ctx: ConvertContext): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  // a view's fields come from its query: nothing of a stored one is kept beside them
  const keepStored = ctx.keepStored === true && (type as string) !== 'view';
  for (const f of Array.isArray(raw) ? raw : []) {
    if (!isRecord(f)) {
      out.push(f as Record<string, unknown>); // validation reports it, with its position
      continue;
    }
    const fieldName = typeof f.name === 'string' ? f.name : '';
    if (type === 'auth' && DROPPED_AUTH_FIELDS.has(fieldName)) continue;
    if (f.primaryKey === true || fieldName === 'id') {
      const ours = primaryKeyField();
      if (f.pattern !== ours.pattern || f.min !== ours.min || f.max !== ours.max || f.autogeneratePattern !== ours.autogeneratePattern) {
        ctx.notes.add(name, 'field id', 'Custom id settings are not kept: Deskbase ids are 15 characters from a-z0-9 (records keep their ids when they fit).');
      }
      out.push({ ...f, id: ours.id });
      continue;
    }
    if (resolveFieldType(f.type) === null) {
      ctx.notes.add(name, `field ${fieldName}`, `Fields of type "${String(f.type)}" are not supported by Deskbase; the field was left out.`);
      continue;
    }
    const field: Record<string, unknown> = { ...f };
    // a system field of the stored collection keeps its id (PocketBase and Deskbase name them alike)
    // (a new auth collection starts with Deskbase's auth system fields, which PocketBase's replace)
    const stored = ctx.existing?.fields.find((e) => e.system && e.name === fieldName) ?? (type === 'auth' ? authSystemFields().find((e) => e.name === fieldName) : undefined);
    if (stored) field.id = stored.id;
    const same = keepStored ? ctx.existing?.fields.find((e) => !e.system && e.name.toLowerCase() === fieldName.toLowerCase()) : undefined;
    if (same) {
      if (same.type !== resolveFieldType(f.type)) {
        throw badRequest(`Failed to import the submitted collections: collection "${name}": field "${fieldName}" is of type "${String(f.type)}" in the file and "${same.type}" here; rename one of them first (the import never changes the type of a stored field).`);
      }
      field.id = same.id;
    } else if (typeof field.id !== 'string' || field.id === '') {
      // a field given without an id gets the one its validation would give it now, so indexes can name it:
      // the stored field of that name and type keeps its id (its data with it), else PocketBase's <type><crc32(name)>
      const named = ctx.existing?.fields.find((e) => e.name === fieldName && e.type === resolveFieldType(f.type));
      const base = named?.id ?? defaultFieldId(String(resolveFieldType(f.type)), fieldName);
      let id = base;
      for (let i = 2; out.some((o) => isRecord(o) && o.id === id); i++) id = `${base}${i}`;
      field.id = id;
    }
    if (f.type === 'relation') {
      const target = typeof f.collectionId === 'string' ? ctx.idOf(f.collectionId) : undefined;
      if (target === undefined) {
        ctx.notes.add(name, `field ${fieldName}`, `Its related collection "${String(f.collectionId)}" is not imported; the field was left out.`);
        continue;
      }
      field.collectionId = target;
    }
    out.push(field);
  }
  if (keepStored && ctx.existing) {
    for (const kept of ctx.existing.fields) {
      if (out.some((f) => isRecord(f) && typeof f.name === 'string' && f.name.toLowerCase() === kept.name.toLowerCase())) continue;
      out.push({ ...kept });
      if (!kept.system) ctx.notes.add(name, `field ${kept.name}`, 'Kept: the PocketBase folder has no such field. Its values stay; records from the folder leave it empty.');
    }
  }
  if (type === 'auth') {
    // PocketBase always has them; a hand-written file may not
    for (const sys of authSystemFields()) if (!out.some((f) => isRecord(f) && f.name === sys.name)) out.push({ ...sys });
  }
  return out;
}

function fieldIdByName(fields: Record<string, unknown>[], column: string): string | undefined {
  const f = fields.find((x) => isRecord(x) && typeof x.name === 'string' && x.name.toLowerCase() === column.toLowerCase());
  return f === undefined ? undefined : String(f.id ?? `${String(f.type)}:${column}`);
}

function convertIndexes(raw: unknown, type: Collection['type'], name: string, fields: Record<string, unknown>[], ctx: ConvertContext): IndexDef[] {
  const out: IndexDef[] = [];
  for (const idx of Array.isArray(raw) ? raw : []) {
    if (isRecord(idx)) {
      out.push(idx as unknown as IndexDef); // Deskbase's own form: validated as any submitted index
      continue;
    }
    const sql = String(idx);
    const parsed = parseIndexSql(sql);
    if (parsed === null) {
      ctx.notes.add(name, 'index', `Not a CREATE INDEX expression: ${sql}`);
      continue;
    }
    const cols = parsed.columns.map((c) => c.name);
    // PocketBase's unique email and tokenKey indexes: Deskbase keeps its own email index, and has no tokenKey
    if (type === 'auth' && isPocketBaseAuthIndex(parsed)) continue;
    const ids = cols.map((c) => fieldIdByName(fields, c));
    // a unique index that is partial would refuse rows PocketBase took; a plain one can only take more
    if (ids.some((id) => id === undefined) || (parsed.unique && parsed.where !== '')) {
      const why = parsed.where !== '' ? 'Deskbase indexes have no WHERE clause' : 'it names an expression or a column that is not a field';
      ctx.notes.add(name, `index ${parsed.name}`, `Left out: ${why}.`);
      continue;
    }
    const dropped = [parsed.where !== '' ? 'WHERE' : '', ...parsed.columns.map((c) => (c.collate !== '' ? `COLLATE ${c.collate}` : '')), ...parsed.columns.map((c) => c.sort)].filter(Boolean);
    if (dropped.length > 0) {
      ctx.notes.add(name, `index ${parsed.name}`, `Kept as a plain column index without ${[...new Set(dropped)].join(', ')}${parsed.unique ? ' (unique values now compare case-sensitively)' : ''}.`);
    }
    out.push({ name: parsed.name, fields: ids as string[], unique: parsed.unique });
  }
  return out;
}

function noteAuthOptions(c: Record<string, unknown>, name: string, notes: Notes): void {
  const enabled = (key: string) => isRecord(c[key]) && (c[key] as Record<string, unknown>).enabled === true;
  if (enabled('mfa')) notes.add(name, 'MFA', 'Multi-factor authentication is turned off by the import (its rule is checked when it is turned on again).');
  if (isRecord(c.passwordAuth) && c.passwordAuth.enabled === false) notes.add(name, 'passwordAuth', 'Password sign-in stays enabled (it was disabled in PocketBase).');
}

function identityFieldsOf(c: Record<string, unknown>): string[] | undefined {
  const list = isRecord(c.passwordAuth) ? c.passwordAuth.identityFields : c.identityFields;
  return Array.isArray(list) && list.length > 0 ? list.map(String).filter((n) => n.toLowerCase() !== 'tokenkey') : undefined;
}

/** Identity fields need a single-column unique index (email has Deskbase's own): others are left out, noted. */
function usableIdentityFields(list: string[] | undefined, structure: Converted['structure'], name: string, notes: Notes): string[] | undefined {
  if (list === undefined) return undefined;
  const usable = list.filter((n) => {
    if (n === 'email') return true;
    const id = fieldIdByName(structure.fields, n);
    const ok = structure.indexes.some((i) => i.unique === true && i.fields.length === 1 && i.fields[0] === id);
    if (!ok) notes.add(name, 'identityFields', `"${n}" cannot be a sign-in identity without a unique index on it; left out.`);
    return ok;
  });
  return usable.length > 0 ? usable : ['email'];
}

export function convertCollection(c: Record<string, unknown>, type: Collection['type'], name: string, ctx: ConvertContext): Converted {
  const fields = convertFields(c.fields, type, name, ctx);
  const structure: Converted['structure'] = { fields, indexes: convertIndexes(c.indexes, type, name, fields, ctx) };
  const rules: Converted['rules'] = {};
  for (const key of RULE_KEYS) {
    if (type !== 'auth' && (key === 'authRule' || key === 'manageRule')) continue;
    const v = c[key];
    if (v === null || typeof v === 'string') rules[key] = v;
    else if (v === undefined) rules[key] = key === 'authRule' ? '' : null;
  }
  if (type === 'auth') {
    structure.identityFields = usableIdentityFields(identityFieldsOf(c), structure, name, ctx.notes);
    noteAuthOptions(c, name, ctx.notes);
    const setUp = ctx.existing?.type === 'auth' ? authOptionsOf(ctx.existing).oauth2.providers : [];
    Object.assign(structure, importableAuthOptions(c, (key, message) => ctx.notes.add(name, key, message), setUp));
  }
  return { structure, rules };
}
