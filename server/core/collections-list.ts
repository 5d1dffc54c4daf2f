// GET /api/collections with PocketBase's `filter` and `sort` over id, name, type, system, created and
// updated: the filter language runs against a view of `_collections` described as a collection.
import type { CompiledSql } from '../filter/sql.js';
import type { ReadDb } from '../store/db.js';
import { compileFilter, compileSort, SQLITE, type Dialect } from '../rules/compile.js';
import { compileDialect, matchAll } from './access.js';
import { defineField } from './fields/index.js';
import { compiling } from './filter-errors.js';
import type { Page } from './request-params.js';
import type { ListContext } from './request-context.js';
import type { Collection } from '../model/types.js';

/** `_collections` as a table of the meta collection's columns, in the store's dialect. */
function source(d: Dialect): string {
  return `(SELECT "id", "name", ${d.jsonText('"data"', 'type')} AS "type",
  ${d.jsonFlag('"data"', 'system')} AS "system", ${d.jsonText('"data"', 'created')} AS "created",
  ${d.jsonText('"data"', 'updated')} AS "updated" FROM "_collections")`;
}
const SQLITE_SOURCE = source(SQLITE);

function metaCollection(): Collection {
  const f = (name: string, type: string) => defineField({ name, type }, 0, { collectionType: 'base', lookup: () => undefined }).field;
  return {
    id: '_collections', name: '_collections', type: 'base', system: true,
    fields: [f('id', 'text'), f('name', 'text'), f('type', 'text'), f('system', 'bool'), f('created', 'text'), f('updated', 'text')],
    indexes: [], listRule: '', viewRule: '', createRule: null, updateRule: null, deleteRule: null, created: '', updated: '',
  };
}

export async function listCollections(db: ReadDb, ctx: ListContext): Promise<Page<Collection>> {
  const meta = metaCollection();
  const { request, paging: q } = ctx;
  const compile = { collection: meta, alias: 'c', lookup: () => undefined, request, mode: 'rule' as const, ...compileDialect(ctx) };
  const SOURCE = ctx.dialect === undefined || ctx.dialect === SQLITE ? SQLITE_SOURCE : source(ctx.dialect);
  const { filter, sort } = q;
  const where: CompiledSql = filter?.trim() ? compiling(() => compileFilter(filter, compile), { param: 'filter', request }) : matchAll(ctx);
  const order: CompiledSql = sort?.trim() ? compiling(() => compileSort(sort, compile), { param: 'sort', request }) : { sql: '', params: [] };
  const orderSql = order.sql ? `${order.sql}, c."system" DESC, c."created" ASC` : 'c."system" DESC, c."created" ASC, c."name" ASC';
  const ids = await db.all<{ id: string }>(
    `SELECT c."id" AS id FROM ${SOURCE} AS c WHERE ${where.sql} ORDER BY ${orderSql} LIMIT ? OFFSET ?`,
    [...where.params, ...order.params, q.perPage, (q.page - 1) * q.perPage],
  );
  const items = ids.map((r) => ctx.lookup(r.id)).filter((c): c is Collection => c !== undefined);
  let totalItems = -1;
  if (!q.skipTotal) totalItems = Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${SOURCE} AS c WHERE ${where.sql}`, where.params))?.n ?? 0);
  return { page: q.page, perPage: q.perPage, totalItems, totalPages: totalItems < 0 ? -1 : Math.ceil(totalItems / q.perPage), items };
}
