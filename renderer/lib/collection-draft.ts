// The collection editor's working copy and the pure steps around it: build from a collection, turn
// back into a request body, and summarise what a save would drop or rename (fields are matched by id,
// so a rename keeps data and a missing id deletes the column with its data).
import type { Collection, CollectionInput, Field, IndexDef } from '../api.js';
import type { CollectionType, FieldType, RuleKey } from '../../server/model/types.js';
import { uiOf } from '../fields/registry.js';
import { authDraftFrom, authOptionsBody, type AuthOptionsDraft } from './auth-options-draft.js';

export interface DraftField {
  /** Local key, stable across renames (the field id). */
  key: string;
  field: Field;
  /** The stored definition when the field already exists. */
  original?: Field;
  removed: boolean;
}

export interface Draft {
  name: string;
  type: CollectionType;
  fields: DraftField[];
  indexes: IndexDef[];
  rules: Record<RuleKey, string | null>;
  identityFields: string[];
  /** View collections: the SELECT their records come from (the server infers their fields from it). */
  viewQuery: string;
  /** Auth collections: the options the server answered (undefined for a new collection: it has its defaults once created). */
  auth?: AuthOptionsDraft;
}

export const AUTH_RULES: RuleKey[] = ['authRule', 'manageRule'];

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A 10-character field id like the server's (new fields get one here so indexes can name them). */
export function newFieldId(random: () => number = Math.random): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return s;
}

export function newField(type: FieldType, name: string): Field {
  return {
    id: newFieldId(),
    name,
    type,
    system: false,
    hidden: false,
    presentable: false,
    required: false,
    help: '',
    ...uiOf(type).defaults(),
  } as Field;
}

export function draftFromCollection(c: Collection): Draft {
  return {
    name: c.name,
    type: c.type,
    fields: c.fields.map((f) => ({ key: f.id, field: structuredClone(f), original: f, removed: false })),
    indexes: structuredClone(c.indexes ?? []),
    rules: {
      listRule: c.listRule,
      viewRule: c.viewRule,
      createRule: c.createRule,
      updateRule: c.updateRule,
      deleteRule: c.deleteRule,
      authRule: c.authRule ?? '',
      manageRule: c.manageRule ?? null,
    },
    identityFields: [...(c.identityFields ?? ['email'])],
    viewQuery: c.viewQuery ?? '',
    auth: authDraftFrom(c),
  };
}

/** A new collection starts with created/updated dates, as PocketBase's dashboard offers. */
export function emptyDraft(): Draft {
  const created = { ...newField('autodate', 'created'), onCreate: true, onUpdate: false } as Field;
  const updated = { ...newField('autodate', 'updated'), onCreate: true, onUpdate: true } as Field;
  return {
    name: '',
    type: 'base',
    fields: [created, updated].map((f) => ({ key: f.id, field: f, removed: false })),
    indexes: [],
    rules: { listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, authRule: '', manageRule: null },
    identityFields: ['email'],
    viewQuery: '',
  };
}

/** The fields sent to the server, in order (removed ones left out: that is what deletes them). */
export function submittedFields(d: Draft): DraftField[] {
  return d.fields.filter((f) => !f.removed);
}

/** The request body; `original` is the collection as loaded: only the auth options changed from it are sent. */
export function toBody(d: Draft, isNew: boolean, original?: Collection): CollectionInput {
  // a view has its query and its two read rules; its fields come from the query, it has no indexes
  if (d.type === 'view') {
    return { name: d.name.trim(), ...(isNew ? { type: d.type } : {}), viewQuery: d.viewQuery, listRule: d.rules.listRule, viewRule: d.rules.viewRule };
  }
  const body: CollectionInput = {
    name: d.name.trim(),
    fields: submittedFields(d).map((f) => f.field),
    indexes: d.indexes,
    listRule: d.rules.listRule,
    viewRule: d.rules.viewRule,
    createRule: d.rules.createRule,
    updateRule: d.rules.updateRule,
    deleteRule: d.rules.deleteRule,
  };
  if (isNew) body.type = d.type;
  if (d.type === 'auth') {
    body.authRule = d.rules.authRule;
    body.manageRule = d.rules.manageRule;
    body.identityFields = d.identityFields;
    Object.assign(body, authOptionsBody(authDraftFrom(original), d.auth));
  }
  return body;
}

export interface SaveSummary {
  dropped: Field[];
  renamed: Array<{ from: string; to: string }>;
}

export function summarize(d: Draft): SaveSummary {
  const dropped = d.fields.filter((f) => f.removed && f.original).map((f) => f.original as Field);
  const renamed = d.fields
    .filter((f) => !f.removed && f.original && f.original.name !== f.field.name)
    .map((f) => ({ from: (f.original as Field).name, to: f.field.name }));
  return { dropped, renamed };
}

/**
 * Field names usable as identity: email and text fields (they need a unique index on the server). A new
 * auth collection has no `email` field in the draft yet (the server adds it on create), but it is the
 * default identity, so it is offered from the start.
 */
export function identityCandidates(d: Draft): string[] {
  const names = submittedFields(d)
    .filter((f) => f.field.type === 'email' || (f.field.type === 'text' && f.field.name !== 'id' && f.field.name !== 'tokenKey'))
    .map((f) => f.field.name);
  return d.type === 'auth' && !names.includes('email') && !d.fields.some((f) => f.field.name === 'email') ? ['email', ...names] : names;
}
