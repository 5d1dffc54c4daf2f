// View collections in SQLite (PocketBase's third collection type, core/view.go). A view is a real
// SQLite VIEW named after the collection, built so that it can read only what a view may show and
// only under the query budget:
//
//   CREATE VIEW "v" AS WITH "posts" AS NOT MATERIALIZED (SELECT r."id", r."title", ... FROM main."posts" AS r
//     WHERE (deskbase_guard() OR r._rowid_)), ... SELECT "id" AS "_rowid_", * FROM (<viewQuery>)
//
// - every collection the query names is shadowed by a projection of its non-hidden columns (no
//   password hashes, no hidden fields; an auth record's email only when it is visible), so the query
//   cannot name anything else of its table;
// - the projection calls the query deadline's guard for each row it reads (filter/guard.ts), so a
//   heavy view (cross joins, aggregates) is cut off by the budget of the list that reads it;
// - names outside the collections (system tables `_sessions`, `_superusers`, `_collections`...) are
//   refused at the mechanism: the compiled program (EXPLAIN) may open only user collections' tables,
//   and read no hidden column of them;
// - the `_rowid_` column (the id) lets lists, rules and joins address rows as they do a table's.
//
// A view's fields are inferred from its query after it is created, as PocketBase does. Every schema
// change drops the views first and builds them again after (SQLite cannot rebuild a table a view
// reads), re-inferring their fields: a change that would break a view is refused, naming it. On the
// team server (PostgreSQL) view-postgres.ts writes the query as PostgreSQL's and checks it there.
import { ApiError } from '../errors.js';
import { GUARD_FUNCTION } from '../filter/guard.js';
import { ident } from '../filter/sql.js';
import { checkRule, SQLITE, type Dialect } from '../rules/compile.js';
import { realizePostgresView } from './view-postgres.js';
import type { ReadDb, WriteTx } from '../store/db.js';
import { checkName } from './fields/base.js';
import { defineField } from './fields/index.js';
import { primaryKeyField } from './fields/system-fields.js';
import type { Collection, Field, Lookup } from '../model/types.js';
import { isMultiple } from '../model/types.js';
import { exprText, flattenedWeight, MAX_FLATTENED_WEIGHT, parseViewQuery, unboundedFormatCall, ViewQueryError, type ParsedViewQuery, type QueryColumn } from './view-query.js';

export { ViewQueryError } from './view-query.js';


/** The collections whose tables views may read: user collections that store records. */
function readable(c: Collection): boolean {
  return c.type !== 'view' && !c.system;
}

function projection(c: Collection): string {
  // an auth record's email only where its owner made it visible: a view answers whoever its rules let
  // in, so it must not show what the collection's own answers hold back (record-serializer.ts)
  const column = (f: Field) => (c.type === 'auth' && f.name === 'email' && c.fields.some((g) => g.name === 'emailVisibility')
    ? `CASE WHEN r."emailVisibility" THEN r."email" ELSE '' END AS "email"`
    : `r.${ident(f.name)}`);
  const cols = c.fields.filter((f) => !f.hidden).map(column).join(', ');
  return `${ident(c.name)} AS NOT MATERIALIZED (SELECT ${cols} FROM main.${ident(c.name)} AS r WHERE (${GUARD_FUNCTION}() OR r._rowid_))`;
}

/** The SELECT the SQLite view is made of (see the top of this file). */
export function viewBodySql(parsed: ParsedViewQuery, schema: readonly Collection[]): string {
  const named = new Set(parsed.tokens.filter((t) => t.kind === 'ident').map((t) => t.lower));
  const ctes = schema.filter((c) => readable(c) && named.has(c.name.toLowerCase())).map(projection);
  return `${ctes.length > 0 ? `WITH ${ctes.join(', ')} ` : ''}SELECT "id" AS "_rowid_", * FROM (\n${parsed.text}\n)`;
}

/**
 * SQL functions a view may not call: each makes a value as large as an argument asks (up to SQLite's
 * 1 GB), in one call no guard can split (`randomblob(300000000)` held the loop 13 s per list).
 * `printf`/`format` may be called with a literal format of small widths (view-query.ts).
 */
const UNBOUNDED_FUNCTIONS = new Set(['randomblob', 'zeroblob']);
const FORMAT_FUNCTIONS = new Set(['printf', 'format']);

interface Op {
  addr: number;
  opcode: string;
  p1: number;
  p2: number;
  p3: number;
  p4: unknown;
}

/** Opcodes that close a loop when they jump back (and `Goto` back to a `Yield`: a loop over a coroutine's rows). */
const LOOP_CLOSERS = new Set(['Next', 'Prev', 'VNext', 'SorterNext']);

/**
 * Refuses a program with a loop that holds another loop and calls no guard: rows that no collection
 * gives (VALUES, json_each over a value, a table built once and read again) joined to each other
 * would multiply without a guard between them (ten rows of VALUES joined nine times: a billion steps
 * no deadline sees). A loop with a guard in its body, or inside nothing but straight code, is bounded
 * by the guarded rows or by the query's text. A body's code includes the coroutines it resumes
 * (`Yield`) and the subroutines it calls (`Gosub`).
 */
function checkLoops(program: readonly Op[]): void {
  const at = new Map(program.map((op) => [Number(op.addr), op]));
  const prologue = Number(program[0]?.opcode === 'Init' ? program[0].p2 : Infinity);
  const coroutines = new Map<number, [number, number]>();
  for (const op of program) if (op.opcode === 'InitCoroutine' && Number(op.p3) > 0) coroutines.set(Number(op.p1), [Number(op.p3), Number(op.p2) - 1]);
  const isGuard = (op: Op) => (op.opcode === 'Function' || op.opcode === 'PureFunc') && String(op.p4).startsWith(`${GUARD_FUNCTION}(`);
  // a `Goto` back elsewhere is not a loop (a LEFT JOIN's row of nulls goes back once)
  const closes = (op: Op) => LOOP_CLOSERS.has(op.opcode) || (op.opcode === 'Goto' && at.get(Number(op.p2))?.opcode === 'Yield');
  const isLoop = (op: Op) => closes(op) && Number(op.p2) <= Number(op.addr) && Number(op.addr) < prologue;
  /** What the code in [from, to] runs: whether it calls the guard, which loops it closes. */
  const contents = (from: number, to: number, seen: Set<string>, out: { guard: boolean; loops: Set<number> }) => {
    const key = `${from}:${to}`;
    if (seen.has(key)) return out;
    seen.add(key);
    for (let a = from; a <= to; a++) {
      const op = at.get(a);
      if (!op) continue;
      if (isGuard(op)) out.guard = true;
      if (isLoop(op)) out.loops.add(a);
      if (op.opcode === 'Yield') {
        const body = coroutines.get(Number(op.p1));
        if (body) contents(body[0], body[1], seen, out);
      } else if (op.opcode === 'Gosub') {
        let end = Number(op.p2);
        while (at.has(end) && !(at.get(end)!.opcode === 'Return' && Number(at.get(end)!.p1) === Number(op.p1))) end++;
        contents(Number(op.p2), end, seen, out);
      }
    }
    return out;
  };
  for (const op of program) {
    if (!isLoop(op)) continue;
    const body = contents(Number(op.p2), Number(op.addr), new Set(), { guard: false, loops: new Set() });
    body.loops.delete(Number(op.addr));
    if (!body.guard && body.loops.size > 0) {
      throw new ViewQueryError('rows that no collection gives (VALUES, json_each, a table expression read again) cannot be joined to each other: their work cannot be bounded');
    }
  }
}

/**
 * Refuses a view whose compiled program opens anything but user collections' tables (and their
 * indexes), reads a hidden column of them, or calls a function whose cost an argument sets: the
 * checks SQLite's authorizer would make, which sql.js does not offer.
 */
async function checkReads(tx: WriteTx, view: string, schema: readonly Collection[], parsed: ParsedViewQuery): Promise<void> {
  const tables = new Map<string, Collection>();
  for (const c of schema) if (readable(c)) tables.set(c.name.toLowerCase(), c);
  const pages = new Map<number, { name: string; table: string; index: boolean }>();
  for (const row of await tx.all<{ type: string; name: string; tbl_name: string; rootpage: number }>(`SELECT type, name, tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0`)) {
    pages.set(Number(row.rootpage), { name: row.name, table: row.tbl_name, index: row.type === 'index' });
  }
  const cursors = new Map<number, { table: Collection; columns: (string | null)[] }>();
  const program = await tx.all<Op>(`EXPLAIN SELECT * FROM ${ident(view)}`);
  checkLoops(program);
  for (const op of program) {
    if (op.opcode === 'Function' || op.opcode === 'PureFunc') {
      // p4 names the function as `name(arguments)`
      const name = /^([^(]*)\(/.exec(String(op.p4))?.[1].toLowerCase() ?? '';
      const why = 'its cost is set by an argument, not by the rows read';
      if (UNBOUNDED_FUNCTIONS.has(name)) throw new ViewQueryError(`a view cannot call ${name}(): ${why}`);
      const format = FORMAT_FUNCTIONS.has(name) ? unboundedFormatCall(parsed.tokens) : null;
      if (format) throw new ViewQueryError(`a view cannot call ${format} without a literal format of widths up to 1000: ${why}`);
    }
    if (op.opcode === 'OpenRead' || op.opcode === 'OpenWrite' || op.opcode === 'ReopenIdx') {
      const page = pages.get(Number(op.p2));
      const table = page ? tables.get(page.table.toLowerCase()) : undefined;
      if (Number(op.p3) !== 0 || !page || !table) throw new ViewQueryError(`a view cannot read ${page ? `"${page.table}"` : 'that table'}`);
      const columns = page.index
        ? (await tx.all<{ name: string | null }>(`SELECT name FROM pragma_index_info(?)`, [page.name])).map((r) => r.name)
        : (await tx.all<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, [page.table])).map((r) => r.name);
      cursors.set(Number(op.p1), { table, columns });
    } else if (op.opcode === 'Column') {
      const cursor = cursors.get(Number(op.p1));
      const column = cursor?.columns[Number(op.p2)];
      const field = cursor && column ? cursor.table.fields.find((f) => f.name === column) : undefined;
      if (field?.hidden) throw new ViewQueryError(`a view cannot read the hidden field "${cursor!.table.name}.${field.name}"`);
    }
  }
}

/**
 * The collection and field a plain column (`name` or `alias.name`) of the query reads, as PocketBase's
 * `parseQueryToFields` resolves it (no table alias: the first FROM table); undefined for an expression.
 */
function columnSource(column: QueryColumn | undefined, parsed: ParsedViewQuery, lookup: Lookup): { source: Collection; field: Field } | undefined {
  const t = column?.expr ?? [];
  let tableAlias: string | undefined;
  let fieldName: string | undefined;
  if (t.length === 1 && t[0].kind === 'ident') fieldName = t[0].text;
  else if (t.length === 3 && t[0].kind === 'ident' && t[1].text === '.' && t[2].kind === 'ident') [tableAlias, fieldName] = [t[0].text, t[2].text];
  if (fieldName === undefined) return undefined;
  const table = tableAlias === undefined ? parsed.tables[0] : parsed.tables.find((x) => x.alias.toLowerCase() === tableAlias.toLowerCase());
  const source = table?.name ? lookup(table.name) : undefined;
  const field = source?.fields.find((f) => f.name.toLowerCase() === fieldName.toLowerCase());
  return source && field ? { source, field } : undefined;
}

/** A field as PocketBase infers it for a column of the query (`parseQueryToFields`). */
function suggestedField(name: string, column: QueryColumn | undefined, parsed: ParsedViewQuery, lookup: Lookup): Record<string, unknown> {
  const json = { name, type: 'json', maxSize: 0 };
  if (name === 'id') return { ...primaryKeyField(), pattern: '^[a-z0-9]+$', min: 0, max: 0, autogeneratePattern: '' };
  if (!column) return json;
  const expr = exprText(column.expr);
  if (expr.startsWith('count(') || expr.startsWith('total(')) return { name, type: 'number' };
  const cast = /^cast\(([\s\S]*)\s+as\s+(\w+)\)$/.exec(expr);
  if (cast) {
    if (['real', 'integer', 'int', 'decimal', 'numeric'].includes(cast[2])) return { name, type: 'number' };
    if (cast[2] === 'text') return { name, type: 'text' };
    if (cast[2] === 'boolean' || cast[2] === 'bool') return { name, type: 'bool' };
  }
  const found = columnSource(column, parsed, lookup);
  if (!found || (found.source.type !== 'view' && !readable(found.source))) return json;
  const { source, field } = found;
  if (field.name === 'id') return { name, type: 'relation', collectionId: source.id, maxSelect: 1, minSelect: 0, cascadeDelete: false };
  const clone: Record<string, unknown> = { ...field, name, system: false, hidden: false };
  delete clone.id;
  if (field.type === 'relation') clone.cascadeDelete = false;
  return clone;
}

function inferFields(parsed: ParsedViewQuery, columns: string[], lookup: Lookup, previous: Field[]): Field[] {
  const byName = new Map<string, QueryColumn>();
  for (const col of parsed.columns) if (col.alias !== null) byName.set(col.alias.toLowerCase(), col);
  const fields: Field[] = [];
  const seen = new Set<string>();
  const usedIds = new Set<string>();
  columns.forEach((name, i) => {
    // a column is a field: PocketBase's field name rules (fields/base.ts)
    const bad = checkName(name, 'view');
    if (bad) throw new ViewQueryError(/^\w+$/.test(name) ? `"${name}" cannot be a column name (${bad.message})` : `the column "${name}" needs an alias of letters, digits and _ (AS name)`);
    if (seen.has(name.toLowerCase())) throw new ViewQueryError(`the column "${name}" appears twice`);
    seen.add(name.toLowerCase());
    const column = byName.get(name.toLowerCase());
    if (column && column.expr.length === 1 && column.expr[0].kind === 'punct' && column.expr[0].text === '*') {
      throw new ViewQueryError('dynamic column names (*) are not supported: name each column');
    }
    const suggested = suggestedField(name, column, parsed, lookup);
    let field: Field;
    if (name === 'id') field = suggested as unknown as Field;
    else {
      const kept = previous.find((f) => f.name === name && f.type === suggested.type);
      const defined = defineField(kept ? { ...suggested, id: kept.id } : suggested, i, { collectionType: 'view', lookup, usedIds });
      field = Object.keys(defined.errors).length === 0 ? defined.field : defineField({ name, type: 'json' }, i, { collectionType: 'view', lookup, usedIds }).field;
      field.system = false;
    }
    usedIds.add(field.id);
    fields.push(field);
  });
  if (!seen.has('id')) throw new ViewQueryError('missing required id column (you can use `(ROW_NUMBER() OVER()) as id` if you don\'t have one)');
  const star = parsed.columns.find((c) => c.expr.length >= 1 && c.expr[c.expr.length - 1].kind === 'punct' && c.expr[c.expr.length - 1].text === '*' && (c.expr.length === 1 || c.expr[c.expr.length - 2]?.text === '.'));
  if (star) throw new ViewQueryError('dynamic column names (*) are not supported: name each column');
  return fields;
}

/**
 * Creates (or re-creates) the SQLite view of `c` over `schema` (the collections as they will be once
 * the transaction commits) and answers its inferred fields. Throws ViewQueryError with the reason.
 */
export async function realizeView(tx: WriteTx, c: Collection, schema: readonly Collection[], dialect: Dialect = SQLITE): Promise<Field[]> {
  const parsed = parseViewQuery(c.viewQuery ?? '');
  const lookup: Lookup = (idOrName) => schema.find((x) => x.id === idOrName) ?? schema.find((x) => x.name.toLowerCase() === idOrName.toLowerCase());
  // before SQLite prepares it: a query whose flattening is too large holds the loop while it does
  if (flattenedWeight(parsed.tokens, viewWeights(schema, c)) > MAX_FLATTENED_WEIGHT) {
    throw new ViewQueryError('the query is too complex once its subqueries, table expressions and the views it reads are expanded (SQLite copies a column\'s expression wherever an outer query names it)');
  }
  // the team server: the query written as PostgreSQL's, checked in its catalog (view-postgres.ts)
  if (dialect.name === 'postgres') {
    const jsonSource = (name: string) => columnSource(parsed.columns.find((x) => x.alias?.toLowerCase() === name.toLowerCase()), parsed, lookup)?.field.type === 'json';
    return realizePostgresView(tx, c, schema, parsed, (columns) => inferFields(parsed, columns, lookup, c.fields), jsonSource);
  }
  await tx.run(`DROP VIEW IF EXISTS ${ident(c.name)}`);
  try {
    await tx.run(`CREATE VIEW ${ident(c.name)} AS ${viewBodySql(parsed, schema)}`);
  } catch (err) {
    throw new ViewQueryError(err instanceof Error ? err.message : String(err));
  }
  await checkReads(tx, c.name, schema, parsed);
  const columns = (await tx.all<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, [c.name])).map((r) => r.name).slice(1);
  return inferFields(parsed, columns, lookup, c.fields);
}

/** The flattened weight of each view of `schema` but `self`, by lower-case name (view-query.ts). */
function viewWeights(schema: readonly Collection[], self: Collection): (name: string) => number | undefined {
  const views = new Map(schema.filter((v) => v.type === 'view' && v.id !== self.id).map((v) => [v.name.toLowerCase(), v]));
  const known = new Map<string, number>();
  const weigh = (name: string): number | undefined => {
    const view = views.get(name);
    if (!view) return undefined;
    if (known.has(name)) return known.get(name);
    known.set(name, Number.MAX_SAFE_INTEGER); // a cycle weighs everything (SQLite refuses it anyway)
    let weight: number;
    try {
      weight = flattenedWeight(parseViewQuery(view.viewQuery ?? '').tokens, weigh);
    } catch {
      weight = 1;
    }
    known.set(name, weight);
    return weight;
  };
  return weigh;
}

/** Drops the views of `collections`, a view over a view before the view it reads (PostgreSQL keeps a view's dependencies). */
export async function dropViews(tx: WriteTx, collections: readonly Collection[]): Promise<void> {
  for (const c of viewCreationOrder(collections).reverse()) await tx.run(`DROP VIEW IF EXISTS ${ident(c.name)}`);
}

/** The views among `schema` that name another view, after it: the order they can be created in. */
export function viewCreationOrder<C extends Pick<Collection, 'id' | 'name' | 'type' | 'viewQuery'>>(schema: readonly C[]): C[] {
  const views = schema.filter((c) => c.type === 'view');
  const out: C[] = [];
  const done = new Set<string>();
  const names = (c: C) => {
    try {
      return new Set(parseViewQuery(c.viewQuery ?? '').tokens.filter((t) => t.kind === 'ident').map((t) => t.lower));
    } catch {
      return new Set<string>();
    }
  };
  const deps = new Map(views.map((v) => [v.id, views.filter((o) => o.id !== v.id && names(v).has(o.name.toLowerCase())).map((o) => o.id)]));
  while (out.length < views.length) {
    const ready = views.filter((v) => !done.has(v.id) && deps.get(v.id)!.every((d) => done.has(d)));
    // a cycle: the rest go in any order, and creating them reports the missing view
    const next = ready.length > 0 ? ready : views.filter((v) => !done.has(v.id));
    for (const v of next) {
      out.push(v);
      done.add(v.id);
    }
  }
  return out;
}

export class ViewFailure extends ViewQueryError {
  constructor(readonly view: Collection, reason: string) {
    super(reason);
  }
}

/**
 * Creates every view of `schema` again (their SQLite views must have been dropped) with fields
 * inferred anew, and checks their rules against those fields. Answers the schema with the views
 * updated; throws ViewFailure naming the first view that no longer works.
 */
export async function rebuildViews(tx: WriteTx, schema: readonly Collection[], dialect: Dialect = SQLITE): Promise<Collection[]> {
  const current = [...schema];
  for (const view of viewCreationOrder(schema)) {
    let fields: Field[];
    try {
      fields = await realizeView(tx, view, current, dialect);
    } catch (err) {
      throw new ViewFailure(view, err instanceof Error ? err.message : String(err));
    }
    const next: Collection = { ...view, fields };
    const lookup: Lookup = (idOrName) => (idOrName === next.id || idOrName.toLowerCase() === next.name.toLowerCase() ? next : current.find((x) => x.id === idOrName || x.name.toLowerCase() === idOrName.toLowerCase()));
    for (const key of ['listRule', 'viewRule'] as const) {
      const rule = next[key];
      if (typeof rule !== 'string' || rule.trim() === '') continue;
      const problem = checkRule(rule, next, lookup, dialect);
      if (problem !== null) throw new ViewFailure(view, `its ${key} no longer compiles: ${problem}`);
    }
    current[current.findIndex((x) => x.id === view.id)] = next;
  }
  return current;
}

/**
 * Drops every SQLite view of `schema` and builds each again from its viewQuery (a restored archive's
 * views are whatever wrote them); answers the views whose definition changed. Throws ViewFailure.
 */
export async function rebuildAllViews(tx: WriteTx, schema: readonly Collection[]): Promise<Collection[]> {
  for (const row of await tx.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'view'`)) await tx.run(`DROP VIEW ${ident(row.name)}`);
  return (await rebuildViews(tx, schema)).filter((c, i) => JSON.stringify(c) !== JSON.stringify(schema[i]));
}

/** A schema change that would break a view: a 400 naming the view and why. */
export function brokenView(err: ViewFailure, action: 'create' | 'update' | 'delete'): ApiError {
  return new ApiError(400, `Failed to ${action} collection: the view collection "${err.view.name}" would no longer work (${err.message}).`);
}

/**
 * Where a file a view record shows lives: the record of the collection the view's file column comes
 * from (through views over views, 5 levels at most), as PocketBase's `FindRecordByViewFile`. Null when
 * the column is not a plain reference to a file field or no record holds the name.
 */
export async function viewFileSource(db: ReadDb, lookup: Lookup, view: Collection, fieldName: string, filename: string, dialect: Dialect = SQLITE): Promise<{ collection: Collection; recordId: string } | null> {
  let current = view;
  let name = fieldName;
  for (let level = 0; level < 5; level++) {
    let parsed: ParsedViewQuery;
    try {
      parsed = parseViewQuery(current.viewQuery ?? '');
    } catch {
      return null;
    }
    const column = parsed.columns.find((c) => c.alias !== null && c.alias.toLowerCase() === name.toLowerCase());
    const found = columnSource(column, parsed, lookup);
    if (!found || found.field.type !== 'file') return null;
    const { source, field } = found;
    if (source.type === 'view') {
      current = source;
      name = field.name;
      continue;
    }
    const col = `r.${ident(field.name)}`;
    // a multiple field's list: SQLite's may hold anything; PostgreSQL's column is kept a JSON list (its CHECK)
    const items = dialect.name === 'sqlite' ? `json_each(CASE WHEN json_valid(${col}) THEN ${col} ELSE '[]' END)` : dialect.jsonItems(col);
    const where = isMultiple(field) ? `EXISTS (SELECT 1 FROM ${items} WHERE json_each.value = ?)` : `${col} = ?`;
    const row = await db.get<{ id: string }>(`SELECT r."id" AS id FROM ${ident(source.name)} AS r WHERE ${where} LIMIT 1`, [filename]);
    return row ? { collection: source, recordId: row.id } : null;
  }
  return null;
}
