// PUT /api/collections/import, as PocketBase's (apis/collection_import.go, core/collection_import.go):
// `{collections, deleteMissing}` replaces or extends the schema in one transaction, all or nothing.
// Each collection goes through the same validation and DDL as the schema API (collections-input.ts,
// collections-ddl.ts), in three passes so collections may refer to each other in any order:
//   1. new collections are created with their system fields only;
//   2. every collection gets its fields, indexes and identity fields (relations now find their targets);
//   3. view collections are created from their queries (views over views after the views they read),
//      their fields inferred as the schema API infers them (views.ts);
//   4. every collection gets its rules, which may read any other collection's fields. A rule that does
//      not compile here is set to null (superusers only, the safe side) and reported, never dropped
//      silently; a structural error fails the whole import, naming the collection and the key.
// Stored views are dropped first and built again at the end over the new schema (a view the import
// breaks fails it, naming the view).
// The work runs on a scratch registry that becomes the live one only when the transaction succeeds.
// `dryRun` runs every step and rolls back: the admin UI's diff is what applying would do.
// Once durable, as the schema API does (collections.ts): files of removed collections and cut file
// fields are dropped, and each changed collection is announced (the admin UI's live list).
import { deleteAccountRows } from '../account-rows.js';
import type { CoreEnv } from '../env.js';
import { ApiError, badRequest, type ErrorData, type FieldError } from '../../errors.js';
import type { WriteTx } from '../../store/db.js';
import { checkRule } from '../../rules/compile.js';
import { Registry } from '../collection-registry.js';
import { defaults } from '../collections-defaults.js';
import { changeTable, createCollectionTable, ddlFailure, dropCollectionTable, saveDefinition } from '../collections-ddl.js';
import type { Dialect } from '../../rules/compile.js';
import { buildCollection, type InputContext } from '../collections-input.js';
import { isRecord } from '../../json-object.js';
import { isoNow } from '../ids.js';
import type { Sessions } from '../session-store.js';
import type { Collection, FileField } from '../../model/types.js';
import type { CollectionListener } from '../collections.js';
import { cutFileFields, dropCutNames, readNames, type NamesById } from '../file-cleanup.js';
import { convertCollection, type Converted } from './schema-convert.js';
import { diffCollections, type CollectionDiff } from './schema-diff.js';
import { derivedId, planImport, type Plan, type PlannedCollection } from './schema-plan.js';

/** PocketBase's id of its starter `users` collection, which apps' files name. */
const POCKETBASE_USERS_ID = '_pb_users_auth_';
import { Notes, type TransferNote } from './transfer-notes.js';
import { dropViews, realizeView, rebuildViews, ViewFailure, viewCreationOrder } from '../views.js';
import { noteOpenedRules } from './rule-changes.js';

export interface SchemaImportResult {
  /** What changed (or would change, for a dry run), collection by collection. */
  changes: CollectionDiff[];
  notes: TransferNote[];
  dryRun: boolean;
}

/** What an import may add around the schema's own transaction (the PocketBase import's files and records). */
export interface ImportSteps<R> {
  before?: (plan: Plan, notes: Notes) => Promise<void>;
  /** Runs in the transaction, a dry run's too (its result is then rolled back with the rest). */
  then?: (tx: WriteTx, schema: Registry, plan: Plan, notes: Notes) => Promise<R>;
  /** Stored fields are matched by name and kept when the file lacks them (schema-convert.ts `keepStored`). */
  keepStoredFields?: boolean;
  /** `then` writes many rows: reads from outside go on during the transaction (store `WriteTx.keepReadsGoing`). */
  long?: boolean;
}

class DryRun extends Error {
  constructor(readonly result: SchemaImportResult & { then?: unknown }) {
    super('dry run');
  }
}

const FAILED = 'Failed to import the submitted collections';

function firstProblem(data: ErrorData, path: string[] = []): string {
  for (const [key, value] of Object.entries(data)) {
    if (typeof (value as FieldError).code === 'string') return `${[...path, key].join('.')}: ${(value as FieldError).message}`;
    const inner = firstProblem(value as ErrorData, [...path, key]);
    if (inner !== '') return inner;
  }
  return '';
}

/** Runs one collection's step; a validation error becomes the import's, naming collection and key. */
async function step<T>(item: PlannedCollection, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
    const problem = firstProblem(err.data);
    throw badRequest(`${FAILED}: collection "${item.name}": ${problem || err.message}`, { collections: { [String(item.index)]: err.data } });
  }
}

const ruleOf = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function readBody(body: unknown): { list: unknown[]; deleteMissing: boolean; dryRun: boolean } {
  if (!isRecord(body)) throw badRequest('Failed to load the submitted data due to invalid formatting.');
  const { collections, deleteMissing, dryRun } = body;
  if (!Array.isArray(collections) || collections.length === 0) {
    throw badRequest(`${FAILED}.`, { collections: { code: 'validation_required', message: 'Cannot be blank.' } });
  }
  return { list: collections, deleteMissing: deleteMissing === true, dryRun: dryRun === true };
}

/** File names a schema change stops naming, read inside its transaction, dropped after it. */
interface CutNames {
  prev: Collection;
  before: NamesById;
  after: NamesById;
}

/** What the passes of one import share: the transaction, the scratch registry, the schema before it. */
interface Pass {
  tx: WriteTx;
  dialect: Dialect;
  plan: Plan;
  notes: Notes;
  sessions: Sessions;
  scratch: Registry;
  /** The stored collections as they were before the import, by id. */
  before: Map<string, Collection>;
  /** Each planned collection's structure and rules, converted to the schema API's input. */
  converted: Map<string, Converted>;
  /** The validation context of one collection's step. */
  ctx: (previous?: Collection, newInThisImport?: boolean) => InputContext;
  now: string;
}

async function startPass(dialect: Dialect, tx: WriteTx, plan: Plan, notes: Notes, sessions: Sessions): Promise<Pass> {
  const scratch = new Registry();
  await scratch.load(tx);
  // a view's fields come from creating it over the schema as it stands in this transaction
  const viewFields = async (candidate: Collection) => {
    return realizeView(tx, candidate, [...scratch.all().filter((c) => c.id !== candidate.id), candidate], dialect);
  };
  return {
    tx, dialect, plan, notes, sessions, scratch,
    before: new Map(scratch.all().map((c) => [c.id, c])),
    converted: new Map(),
    ctx: (previous, newInThisImport = false) => ({ lookup: scratch.lookup, dialect, allCollections: () => scratch.all(), previous, viewFields, newInThisImport }),
    now: isoNow(),
  };
}

/** `deleteMissing`: the stored collections the import does not name go (system ones stay). */
async function removeMissing(p: Pass): Promise<Collection[]> {
  const kept = new Set(p.plan.items.map((i) => i.id));
  const removed: Collection[] = [];
  for (const c of p.scratch.all()) {
    if (c.system || kept.has(c.id)) continue;
    await dropCollectionTable(p.tx, c);
    await p.sessions.endCollection(p.tx, c.id);
    if (c.type === 'auth') await deleteAccountRows(p.tx, c.id);
    p.scratch.remove(c.id);
    removed.push(c);
  }
  return removed;
}

function convertAll(p: Pass, keepStored: boolean): void {
  // a relation may name a collection this import does not carry: a stored one by its id or name, by the
  // id an earlier import derived from its foreign id (a JS migration naming `pbc_…`), or PocketBase's
  // well-known id of its starter `users`
  const idOf = (foreign: string) =>
    p.plan.ids.get(foreign) ?? p.plan.ids.get(foreign.toLowerCase()) ?? p.scratch.get(foreign)?.id ?? p.scratch.get(derivedId(foreign))?.id ??
    (foreign === POCKETBASE_USERS_ID ? p.scratch.get('users')?.id : undefined);
  for (const item of p.plan.items) {
    // a view's fields are inferred from its query; only its two rules travel (create/update/delete stay null)
    if (item.type === 'view') p.converted.set(item.id, { structure: { fields: [], indexes: [] }, rules: { listRule: ruleOf(item.raw.listRule), viewRule: ruleOf(item.raw.viewRule) } });
    else p.converted.set(item.id, convertCollection(item.raw, item.type, item.name, { idOf, existing: item.existing, notes: p.notes, keepStored }));
  }
}

/** Pass 1: new collections, system fields only. */
async function createNew(p: Pass, tables: PlannedCollection[]): Promise<void> {
  for (const item of tables) {
    if (item.existing) continue;
    const c = await step(item, () => buildCollection({ id: item.id, name: item.name, type: item.type, fields: [] }, p.ctx(), defaults, p.now));
    c.created = p.now;
    try {
      await createCollectionTable(p.dialect, p.tx, c);
    } catch (err) {
      await step(item, () => ddlFailure(p.dialect, err, c, false));
    }
    p.scratch.put(c);
  }
}

/** Pass 2: fields, indexes, identity fields; rules null meanwhile (the stored ones may read fields that go). Answers the file fields cut. */
async function applyStructure(p: Pass, tables: PlannedCollection[]): Promise<CutNames[]> {
  const cuts: CutNames[] = [];
  for (const item of tables) {
    const prev = p.scratch.get(item.id) as Collection;
    const { structure, rules } = p.converted.get(item.id) as Converted;
    const noRules = prev.system ? {} : Object.fromEntries(Object.keys(rules).map((k) => [k, null]));
    // a new collection given without its system fields (`id`; the auth fields) gets them, as PocketBase adds them
    const next = await step(item, () => buildCollection({ ...(item.name === prev.name ? {} : { name: item.name }), type: item.type, ...structure, ...noRules }, p.ctx(prev, !item.existing), defaults, p.now));
    const cut = cutFileFields(prev, next);
    const before = cut.length > 0 ? await readNames(p.tx, prev, cut) : new Map();
    if ([...before.values()].some((names) => names.size > 0)) {
      p.notes.add(item.name, `field ${cut.map((f) => f.name).join(', ')}`, 'Records here hold files in it that the import deletes (the field goes, or keeps one file where it held several).', true);
    }
    try {
      await changeTable(p.dialect, p.tx, prev, next);
    } catch (err) {
      await step(item, () => ddlFailure(p.dialect, err, next, true));
    }
    if (cut.length > 0) cuts.push({ prev, before, after: await readNames(p.tx, next, next.fields.filter((f): f is FileField => f.type === 'file')) });
    p.scratch.put(next);
  }
  return cuts;
}

/** Pass 3: views, each after the views it reads, rules null meanwhile. */
async function createViews(p: Pass, views: PlannedCollection[]): Promise<void> {
  const queries = views.map((i) => ({ id: i.id, name: i.name, type: 'view' as const, viewQuery: typeof i.raw.viewQuery === 'string' ? i.raw.viewQuery : '' }));
  for (const view of viewCreationOrder(queries)) {
    const item = views.find((i) => i.id === view.id)!;
    const prev = p.scratch.get(item.id);
    const input = { ...(prev ? {} : { id: item.id }), name: item.name, type: 'view', viewQuery: item.raw.viewQuery, listRule: null, viewRule: null };
    const next = await step(item, () => buildCollection(input, p.ctx(prev), defaults, p.now));
    if (!prev) next.created = p.now;
    p.scratch.put(next);
  }
}

/** Pass 4: rules, each compiled against the whole new schema; one that does not compile is set to null and noted. */
async function applyRules(p: Pass): Promise<void> {
  for (const item of p.plan.items) {
    const prev = p.scratch.get(item.id) as Collection;
    if (prev.system) continue;
    const rules: Record<string, unknown> = { ...(p.converted.get(item.id) as Converted).rules };
    for (const [key, rule] of Object.entries(rules)) {
      if (typeof rule !== 'string' || rule.trim() === '') continue;
      const problem = checkRule(rule, prev, p.scratch.lookup, p.dialect);
      if (problem === null) continue;
      p.notes.add(item.name, key, `The rule does not compile here (${problem}); it was set to null (superusers only). The rule was: ${rule}`);
      rules[key] = null;
    }
    const next = await step(item, () => buildCollection(rules, p.ctx(prev), defaults, p.now));
    const original = p.before.get(item.id);
    if (original) noteOpenedRules(original, next, p.notes);
    if (original?.type === 'auth' && (original.authRule as string | null | undefined) !== next.authRule) await p.sessions.endCollection(p.tx, item.id);
    p.scratch.put(next);
  }
}

/** Every view again over the final schema (stored views the import did not name are checked too), then the definitions saved. */
async function finish(p: Pass, removed: Collection[]): Promise<CollectionDiff[]> {
  try {
    for (const c of await rebuildViews(p.tx, p.scratch.all(), p.dialect)) p.scratch.put(c);
  } catch (err) {
    if (!(err instanceof ViewFailure)) throw err;
    throw badRequest(`${FAILED}: the view collection "${err.view.name}" would no longer work (${err.message}).`);
  }
  const planned = new Set(p.plan.items.map((i) => i.id));
  for (const c of p.scratch.all()) {
    if (c.type === 'view' && !planned.has(c.id) && JSON.stringify(p.before.get(c.id)) !== JSON.stringify(c)) await saveDefinition(p.dialect, p.tx, c);
  }
  const changes = diffCollections(p.plan.items.map((i) => ({ before: p.before.get(i.id), after: p.scratch.get(i.id) as Collection })), removed);
  for (const item of p.plan.items) {
    // an unchanged collection keeps its stored definition (and its `updated` time)
    if (changes.find((d) => d.id === item.id)?.action !== 'unchanged') await saveDefinition(p.dialect, p.tx, p.scratch.get(item.id) as Collection);
  }
  return changes;
}

export function createSchemaImport(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'sessions' | 'storage'>, onChange: CollectionListener) {
  const { store, registry, sessions, storage: files } = env;
  /** The import's passes in one transaction, on a scratch registry (see the top of this file). */
  async function apply(tx: WriteTx, plan: Plan, deleteMissing: boolean, notes: Notes, keepStored: boolean): Promise<{ changes: CollectionDiff[]; scratch: Registry; removed: Collection[]; cuts: CutNames[] }> {
    const p = await startPass(env.dialect, tx, plan, notes, sessions);
    await dropViews(tx, p.scratch.all());
    const removed = deleteMissing ? await removeMissing(p) : [];
    convertAll(p, keepStored);
    const tables = plan.items.filter((i) => i.type !== 'view');
    await createNew(p, tables);
    const cuts = await applyStructure(p, tables);
    await createViews(p, plan.items.filter((i) => i.type === 'view'));
    await applyRules(p);
    return { changes: await finish(p, removed), scratch: p.scratch, removed, cuts };
  }

  /** After the commit: the files nothing names any more go, and each change is announced. */
  function settle(changes: CollectionDiff[], removed: Collection[], cuts: CutNames[]): void {
    for (const cut of cuts) dropCutNames(files, cut.prev, cut.before, cut.after);
    for (const c of removed) {
      files.dropCollection(c.id);
      onChange('delete', c);
    }
    for (const d of changes) {
      const c = registry.get(d.id);
      if (c && (d.action === 'added' || d.action === 'changed')) onChange(d.action === 'added' ? 'create' : 'update', c);
    }
  }

  /**
   * Imports `body`'s collections inside the caller's transaction `tx` (a JS migration's
   * `app.importCollections`, `app.save(collection)`): the live registry takes the new schema at once
   * (the caller reloads it from the store if its transaction rolls back), and `settle` is for the
   * caller to run once `tx` committed.
   */
  async function importWithin(tx: WriteTx, body: unknown): Promise<{ result: SchemaImportResult; settle: () => void }> {
    const { list, deleteMissing } = readBody(body);
    const notes = new Notes();
    const plan = planImport(list, registry, notes);
    const { changes, removed, cuts } = await apply(tx, plan, deleteMissing, notes, false);
    await registry.load(tx);
    return { result: { changes, notes: notes.list, dryRun: false }, settle: () => settle(changes, removed, cuts) };
  }

  /**
   * Imports `body`'s collections. `steps.before` runs once the plan is made, before the transaction
   * (the PocketBase import places its files there, so they are durable before the records naming
   * them); `steps.then` runs in the same transaction once the schema is in place (the PocketBase import
   * adds the records there), with the new schema's registry and the id map.
   */
  async function importSchema<R = undefined>(body: unknown, steps: ImportSteps<R> = {}): Promise<SchemaImportResult & { then?: R }> {
    const { list, deleteMissing, dryRun } = readBody(body);
    const notes = new Notes();
    const plan = planImport(list, registry, notes);
    if (!dryRun) await steps.before?.(plan, notes);
    try {
      let applied: { removed: Collection[]; cuts: CutNames[] } = { removed: [], cuts: [] };
      const result = await store.write(async (tx) => {
        if (steps.long === true && !dryRun) await tx.keepReadsGoing?.();
        const { changes, scratch, removed, cuts } = await apply(tx, plan, deleteMissing, notes, steps.keepStoredFields === true);
        const more = await steps.then?.(tx, scratch, plan, notes);
        if (dryRun) throw new DryRun({ changes, notes: notes.list, dryRun, then: more });
        await registry.load(tx); // the live registry takes the new schema with the commit
        applied = { removed, cuts };
        return { changes, notes: notes.list, dryRun, then: more };
      });
      settle(result.changes, applied.removed, applied.cuts);
      return result;
    } catch (err) {
      if (err instanceof DryRun) return err.result as SchemaImportResult & { then?: R };
      throw err;
    }
  }
  return Object.assign(importSchema, { within: importWithin });
}
