// `expand`: loads related records in batches (one query per path segment, whatever the page size),
// each filtered by its own collection's viewRule with `@request.context = "expand"` (semantics.md §4.3).
import type { ReadDb } from '../store/db.js';
import { ruleWhereOrNull } from './access.js';
import { recordSerializer, shownFields, viewerOf, type ApiRecord, type Viewer } from './serialize.js';
import { ident } from '../filter/sql.js';
import type { Collection, RelationField, RequestInfo, Row, SqlValue } from './types.js';
import { isMultiple } from './types.js';

export const MAX_EXPAND_DEPTH = 6;
const MAX_BACK_RELATIONS = 1000;
const CHUNK = 900;

type Tree = Map<string, Tree>;
type Lookup = (idOrName: string) => Collection | undefined;

export function parseExpand(param: string): Tree {
  const root: Tree = new Map();
  for (const raw of param.split(',')) {
    const path = raw.replace(/\s+/g, '').replace(/^\.+|\.+$/g, '');
    if (path === '') continue;
    let node = root;
    for (const seg of path.split('.').slice(0, MAX_EXPAND_DEPTH)) {
      if (seg === '') break;
      let next = node.get(seg);
      if (!next) node.set(seg, (next = new Map()));
      node = next;
    }
  }
  return root;
}

/**
 * The related rows, with only the columns their serializer shows this viewer (a user's password hash
 * is the longest column of its row, and reading columns is most of what a row costs in sql.js).
 */
function fetchRows(db: ReadDb, target: Collection, viewer: Viewer, where: { sql: string; params: SqlValue[] }, cond: string, values: string[]): Row[] {
  const rows: Row[] = [];
  const columns = shownFields(target, viewer).map((f) => `r.${ident(f.name)}`).join(', ');
  for (let i = 0; i < values.length; i += CHUNK) {
    const part = values.slice(i, i + CHUNK);
    const marks = part.map(() => '?').join(',');
    rows.push(...db.all<Row>(
      `SELECT ${columns} FROM ${ident(target.name)} AS r WHERE ${cond.replace('%IN%', `(${marks})`)} AND (${where.sql})`,
      [...part, ...where.params],
    ));
  }
  return rows;
}

interface Resolved {
  target: Collection;
  /** For each parent record, the related records in order. */
  attach(parent: ApiRecord, byId: Map<string, ApiRecord>, rows: ApiRecord[]): ApiRecord | ApiRecord[] | undefined;
  load(db: ReadDb, viewer: Viewer, where: { sql: string; params: SqlValue[] }, parents: ApiRecord[]): Row[];
}

function resolveSegment(c: Collection, seg: string, lookup: Lookup): Resolved | null {
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
      load: (db, viewer, where, parents) => fetchRows(db, target, viewer, where, 'r."id" IN %IN%', [...new Set(parents.flatMap(idsOf))]),
      attach(parent, byId) {
        const found = idsOf(parent).map((id) => byId.get(id)).filter((r): r is ApiRecord => r !== undefined);
        if (found.length === 0) return undefined;
        return isMultiple(field) ? found : found[found.length - 1];
      },
    };
  }
  const via = /^(\w+)_via_(\w+)$/.exec(seg);
  if (!via) return null;
  const target = lookup(via[1]);
  const back = target?.fields.find((f): f is RelationField => f.name === via[2] && f.type === 'relation' && f.collectionId === c.id);
  if (!target || !back) return null;
  const multi = isMultiple(back);
  const unique = !multi && target.indexes.some((i) => i.unique && i.fields.length === 1 && i.fields[0] === back.id);
  const col = `r.${ident(back.name)}`;
  return {
    target,
    load: (db, viewer, where, parents) =>
      fetchRows(db, target, viewer, where, multi ? `EXISTS (SELECT 1 FROM json_each(${col}) WHERE json_each.value IN %IN%)` : `${col} IN %IN%`, parents.map((p) => String(p.id))),
    attach(parent, _byId, rows) {
      const pid = String(parent.id);
      const found = rows.filter((r) => {
        const v = r[back.name];
        return Array.isArray(v) ? v.includes(pid) : v === pid;
      }).slice(0, MAX_BACK_RELATIONS);
      if (found.length === 0) return undefined;
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

/** The records (serialized API records of collection c) with `expand` added where a path was valid. */
export function expandRecords(db: ReadDb, c: Collection, records: ApiRecord[], tree: Tree, req: RequestInfo, lookup: Lookup): ApiRecord[] {
  if (tree.size === 0 || records.length === 0) return records;
  const expandReq: RequestInfo = { ...req, context: 'expand' };
  const viewer = viewerOf(req);
  const results = new Map<ApiRecord, Record<string, unknown>>();
  let anyValid = false;
  for (const [seg, sub] of tree) {
    const resolved = resolveSegment(c, seg, lookup);
    if (!resolved) continue; // unknown paths are ignored, as in PocketBase
    anyValid = true;
    const where = ruleWhereOrNull(resolved.target, 'viewRule', expandReq, lookup);
    if (where === null) continue; // a locked viewRule hides the path silently
    const loaded = resolved.load(db, viewer, where, records).map(recordSerializer(resolved.target, viewer));
    const rows = expandRecords(db, resolved.target, loaded, sub, req, lookup);
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
  return records.map((parent) => withExpand(parent, results.get(parent) ?? {}));
}
