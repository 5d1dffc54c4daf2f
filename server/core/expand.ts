// `expand`: loads related records in batches (one query per path segment, whatever the page size),
// each filtered by its own collection's viewRule with `@request.context = "expand"` (PocketBase's expand).
import { ApiError } from '../errors.js';
import { rowBytes, valueBytes } from '../store/deadline.js';
import { responseTooLarge } from './query-budget.js';
import type { ReadDb } from '../store/db.js';
import { compileDialect, ruleWhereOrNull } from './access.js';
import { SQLITE, type Dialect } from '../rules/compile.js';
import type { RequestContext, RuleInput } from './request-context.js';
import { PATH_END, type ExpandTree } from './request-params.js';
import { recordSerializer, shownFields, viewerOf, type ApiRecord, type Viewer } from './record-serializer.js';
import { ident } from '../filter/sql.js';
import { backRelation } from '../model/back-relation.js';
import type { Collection, Lookup, Row, SqlValue } from '../model/types.js';
import { isMultiple } from '../model/types.js';

/**
 * Related records one response may hold, counted as the JSON would repeat them: a record reached
 * through several parents (or paths) counts each time. Multi-relations that point at each other grow
 * exponentially with the depth (seven records, each linked to all seven, six levels deep: 7^6 copies),
 * so the count is kept while the tree is built and the request stops with a 400 at the cap.
 */
export const MAX_EXPANDED_RECORDS = 20_000;
const MAX_BACK_RELATIONS = 1000;
const CHUNK = 900;

/**
 * The 400 past MAX_EXPANDED_RECORDS or the response's bytes (a class of its own: after a write, the
 * record is answered unexpanded).
 */
export class ExpandTooLarge extends ApiError {
  constructor(message = `The expand would return more than ${MAX_EXPANDED_RECORDS} related records: expand fewer relations or levels, or ask for a smaller page.`) {
    super(400, message);
  }
}

const tooMany = () => new ExpandTooLarge();
const tooHeavy = (maxBytes: number) => new ExpandTooLarge(responseTooLarge(maxBytes).message);

/** The weight of a record the expand did not load (the page's own): its strings, roughly. */
function recordBytes(record: ApiRecord): number {
  let n = 0;
  for (const key in record) {
    const v = record[key];
    n += Array.isArray(v) ? v.reduce((sum: number, item) => sum + valueBytes(item), 2) : valueBytes(v);
  }
  return n;
}

/**
 * The related rows, with only the columns their serializer shows this viewer (a user's password hash
 * is the longest column of its row, and reading columns is most of what a row costs in sql.js).
 * Every record an expand loads shows at least once in the response, so the whole expand (all levels
 * and paths) loads at most MAX_EXPANDED_RECORDS rows: past them it is a 400 (no query returns more
 * than one past the cap).
 */
async function fetchRows(db: ReadDb, target: Collection, viewer: Viewer, where: { sql: string; params: SqlValue[] }, cond: string, values: string[], budget: Budget, order = ''): Promise<Row[]> {
  const rows: Row[] = [];
  const columns = shownFields(target, viewer).map((f) => `r.${ident(f.name)}`).join(', ');
  for (let i = 0; i < values.length; i += CHUNK) {
    const part = values.slice(i, i + CHUNK);
    const marks = part.map(() => '?').join(',');
    // a constant LIMIT (one prepared statement per shape; a bound one made the query 25% slower)
    const found = await db.all<Row>(
      `SELECT ${columns} FROM ${ident(target.name)} AS r WHERE ${cond.replace('%IN%', `(${marks})`)} AND (${where.sql})${order} LIMIT ${MAX_EXPANDED_RECORDS + 1}`,
      [...part, ...where.params],
    );
    budget.loaded += found.length;
    if (budget.loaded > MAX_EXPANDED_RECORDS) throw tooMany();
    rows.push(...found);
  }
  return rows;
}

interface Resolved {
  target: Collection;
  /** For each parent record, the related records in order. */
  attach(parent: ApiRecord, byId: Map<string, ApiRecord>, rows: ApiRecord[]): ApiRecord | ApiRecord[] | undefined;
  load(db: ReadDb, viewer: Viewer, where: { sql: string; params: SqlValue[] }, parents: ApiRecord[], budget: Budget): Promise<Row[]>;
}

function resolveSegment(c: Collection, seg: string, lookup: Lookup, dialect: Dialect = SQLITE): Resolved | null {
  const field = c.fields.find((f) => f.name === seg);
  if (field && field.type === 'relation') {
    const target = lookup(field.collectionId);
    if (!target) return null;
    const idsOf = (p: ApiRecord): string[] => {
      const v = p[field.name];
      return Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : [];
    };
    return {
      target,
      load: (db, viewer, where, parents, budget) => fetchRows(db, target, viewer, where, 'r."id" IN %IN%', [...new Set(parents.flatMap(idsOf))], budget),
      attach(parent, byId) {
        const found = idsOf(parent).map((id) => byId.get(id)).filter((r): r is ApiRecord => r !== undefined);
        if (found.length === 0) return undefined;
        return isMultiple(field) ? found : found[found.length - 1];
      },
    };
  }
  const found = backRelation(seg, c, lookup);
  if (!found) return null;
  const { target, field: back, multiple: multi, unique } = found;
  const col = `r.${ident(back.name)}`;
  // rows by the parent id they point at, built once per level (not a scan of all rows per parent)
  const byParent = new Map<ApiRecord[], Map<string, ApiRecord[]>>();
  const index = (rows: ApiRecord[]): Map<string, ApiRecord[]> => {
    let map = byParent.get(rows);
    if (map) return map;
    map = new Map();
    for (const r of rows) {
      const v = r[back.name];
      for (const pid of new Set(Array.isArray(v) ? v.map(String) : [String(v)])) {
        const list = map.get(pid);
        if (!list) map.set(pid, [r]);
        else if (list.length < MAX_BACK_RELATIONS) list.push(r);
      }
    }
    byParent.set(rows, map);
    return map;
  };
  return {
    target,
    // a parent's back-relations in insertion order: SQLite's scans give it, PostgreSQL is told (rowOrder)
    load: (db, viewer, where, parents, budget) =>
      fetchRows(db, target, viewer, where, multi ? `EXISTS (SELECT 1 FROM ${dialect.jsonItems(col)} WHERE json_each.value IN %IN%)` : `${col} IN %IN%`, parents.map((p) => String(p.id)), budget, dialect.rowOrder('r')),
    attach(parent, _byId, rows) {
      const found = index(rows).get(String(parent.id));
      if (found === undefined) return undefined;
      return unique ? found[0] : found;
    },
  };
}

/** A copy of `record` with `expand` in its alphabetical place among the (already sorted) keys. */
function withExpand(record: ApiRecord, expand: Record<string, unknown>): ApiRecord {
  const out: ApiRecord = {};
  let placed = false;
  for (const key of Object.keys(record)) {
    if (!placed && key > 'expand') {
      out.expand = expand;
      placed = true;
    }
    out[key] = record[key];
  }
  if (!placed) out.expand = expand;
  return out;
}

/**
 * The counts one expand keeps: rows loaded so far, how many related records each expanded record holds,
 * and what each weighs in bytes (its own values and everything it holds), counted as the JSON repeats
 * them. Both are kept per object (a related record is one object shared by all its parents), so
 * counting costs what building the tree does, never what writing it out would: a large post expanded
 * from many comments weighs its size times theirs here, and is refused before any of it is built.
 */
interface Budget {
  loaded: number;
  sizes: Map<ApiRecord, number>;
  bytes: Map<ApiRecord, number>;
  maxBytes: number;
}

/**
 * The records with the request's `expand` added, each related collection filtered by its viewRule with
 * `@request.context = "expand"`; throws a 400 once they would hold more than MAX_EXPANDED_RECORDS
 * related records, or weigh more than `maxBytes` with the records themselves.
 */
export async function expandRecords(db: ReadDb, c: Collection, records: ApiRecord[], ctx: RequestContext, maxBytes = Infinity): Promise<ApiRecord[]> {
  const budget: Budget = { loaded: 0, sizes: new Map(), bytes: new Map(), maxBytes };
  for (const r of records) budget.bytes.set(r, recordBytes(r));
  const expandCtx: RuleInput = { lookup: ctx.lookup, request: { ...ctx.request, context: 'expand' }, ...compileDialect(ctx) };
  const out = await expandLevel(db, c, records, validPaths(c, ctx.expand, ctx.lookup), expandCtx, viewerOf(ctx.request), budget);
  let total = 0;
  let bytes = 0;
  for (const r of out) {
    if ((total += budget.sizes.get(r) ?? 0) > MAX_EXPANDED_RECORDS) throw tooMany();
    if ((bytes += budget.bytes.get(r) ?? 0) > maxBytes) throw tooHeavy(maxBytes);
  }
  return out;
}

/**
 * The tree cut to the paths whose every segment is a relation (or back-relation): as PocketBase expands
 * each path as a whole, `rel.title` with `title` not a relation expands nothing, while `rel,rel.title`
 * still expands `rel`.
 */
function validPaths(c: Collection, tree: ExpandTree, lookup: Lookup): ExpandTree {
  const out: ExpandTree = new Map();
  for (const [seg, sub] of tree) {
    if (seg === PATH_END) {
      out.set(seg, sub);
      continue;
    }
    const resolved = resolveSegment(c, seg, lookup);
    const kept = resolved ? validPaths(resolved.target, sub, lookup) : new Map();
    if (kept.size > 0) out.set(seg, kept);
  }
  return out;
}

/** The weight of an attached value: each related record with all it holds. */
function bytesOf(value: ApiRecord | ApiRecord[], bytes: Budget['bytes']): number {
  let n = 0;
  for (const r of Array.isArray(value) ? value : [value]) n += bytes.get(r) ?? 0;
  return n;
}

/** The size of an attached value: each related record, plus what it holds itself. */
function sizeOf(value: ApiRecord | ApiRecord[], sizes: Budget['sizes']): number {
  const list = Array.isArray(value) ? value : [value];
  let n = list.length;
  for (const r of list) n += sizes.get(r) ?? 0;
  return n;
}

async function expandLevel(db: ReadDb, c: Collection, records: ApiRecord[], tree: ExpandTree, ctx: RuleInput, viewer: Viewer, budget: Budget): Promise<ApiRecord[]> {
  if (tree.size === 0 || (tree.size === 1 && tree.has(PATH_END)) || records.length === 0) return records;
  const results = new Map<ApiRecord, Record<string, ApiRecord | ApiRecord[]>>();
  let anyValid = false;
  for (const [seg, sub] of tree) {
    if (seg === PATH_END) continue;
    const resolved = resolveSegment(c, seg, ctx.lookup, ctx.dialect);
    if (!resolved) continue; // unknown paths are ignored, as in PocketBase
    anyValid = true;
    const where = ruleWhereOrNull(resolved.target, 'viewRule', ctx);
    if (where === null) continue; // a locked viewRule hides the path silently
    const serialize = recordSerializer(resolved.target, viewer);
    const loaded = (await resolved.load(db, viewer, where, records, budget)).map((row) => {
      const record = serialize(row);
      budget.bytes.set(record, rowBytes(row));
      return record;
    });
    const rows = await expandLevel(db, resolved.target, loaded, sub, ctx, viewer, budget);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    for (const parent of records) {
      const value = resolved.attach(parent, byId, rows);
      if (value === undefined) continue;
      let bag = results.get(parent);
      if (!bag) results.set(parent, (bag = {}));
      bag[seg] = value;
    }
  }
  if (!anyValid) return records;
  return records.map((parent) => {
    const bag = results.get(parent) ?? {};
    let size = 0;
    let bytes = budget.bytes.get(parent) ?? 0;
    for (const value of Object.values(bag)) {
      size += sizeOf(value, budget.sizes);
      bytes += bytesOf(value, budget.bytes);
    }
    if (size > MAX_EXPANDED_RECORDS) throw tooMany();
    if (bytes > budget.maxBytes) throw tooHeavy(budget.maxBytes);
    const out = withExpand(parent, bag);
    budget.sizes.set(out, size);
    budget.bytes.set(out, bytes);
    return out;
  });
}
