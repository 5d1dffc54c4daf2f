// `POST /api/batch` as PocketBase's apis/batch.go: record creates, updates, upserts (`PUT`) and deletes,
// all or nothing. Each sub-request is checked as the caller against its own collection's rules, with
// `@request.context = "batch"`, its own query (`expand`, `fields`) and its headers over the batch's.
// Every write is prepared first (rules, validation, hashing: the write funnel's prepare step), then all
// are applied in one store transaction: one journal entry, one sync, and their realtime events go out
// together after it, in order. A failure names its request: 400 `Batch transaction failed.` with
// `data.requests.N` = {code: batch_request_failed, message, response: the request's own error}.
//
// Unlike PocketBase, each sub-request is prepared against the data as it was before the batch: a
// request cannot update or relate to a record an earlier request of the same batch creates (inside the
// transaction the rules are checked again against the rows as they are then).
//
// A batch has one budget, not one per request: its values are weighed together against what one write
// may store (MAX_WRITE_BYTES), the request that passes it failing before anything is written, and its
// prepare steps share one query budget, a turn of the event loop apart, so other clients are served
// between them.
import { ApiError, badRequest, fieldError, type ErrorData, type FieldError } from '../errors.js';
import { QueryBudget } from '../store/db.js';
import type { ReadDb } from '../store/db.js';
import { isRecord } from '../json-object.js';
import { setOwn } from './own-keys.js';
import type { CoreEnv } from './env.js';
import { budgetError, MAX_WRITE_BYTES, queryTooSlow, underDeadline, writeTooLarge } from './query-budget.js';
import { presentRecords } from './record-response.js';
import { getRow } from './records-read.js';
import { requestContext, type RequestContext, type RequestInput } from './request-context.js';
import type { Collection, Row } from '../model/types.js';
import { misplacedUploads } from './writes/file-uploads.js';
import { decodeUrlComponent, parseQuery } from './url-parts.js';
import type { PreparedWrite } from './writes/prepared.js';
import type { RecordWrites } from './writes/funnel.js';
import { hooked } from './writes/hooked.js';
import type { EventScope } from './events.js';
import { authWire, bodyWithChanges, requestInfoOf, wireOf, wireOfBody, type WireRecord } from './event-records.js';
import { valuesWeight } from './writes/submitted.js';

/** PocketBase's default batch.maxRequests. */
export const MAX_BATCH_REQUESTS = 50;

interface SubRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

interface Prepared {
  collection: Collection;
  ctx: RequestContext;
  deletes: boolean;
  write: PreparedWrite<Row | null>;
}

/** Where a sub-request goes. */
interface Target {
  c: Collection;
  id: string | undefined;
  query: Record<string, string>;
}

export interface BatchResult {
  status: number;
  body: unknown;
}

const RECORDS_URL = /^\/api\/collections\/([^/?]+)\/records(?:\/([^/?]+))?(?:\?(.*))?$/;

function invalid(data: ErrorData): ApiError {
  return badRequest('Invalid batch request data.', data);
}

/** The form: `requests`, 1 to MAX_BATCH_REQUESTS of `{method, url, headers?, body?}`. */
function parseForm(body: Record<string, unknown>): SubRequest[] {
  const list = body.requests;
  if (!Array.isArray(list) || list.length === 0) throw invalid({ requests: fieldError('validation_required', 'Cannot be blank.') });
  if (list.length > MAX_BATCH_REQUESTS) {
    throw invalid({ requests: fieldError('validation_length_too_long', `The length must be no more than ${MAX_BATCH_REQUESTS}.`) });
  }
  const errors: ErrorData = {};
  const out = list.map((item: unknown, i): SubRequest => {
    const r = isRecord(item) ? item : {};
    const method = typeof r.method === 'string' ? r.method.toUpperCase() : '';
    const url = typeof r.url === 'string' ? r.url : '';
    const e: ErrorData = {};
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) e.method = fieldError('validation_in_invalid', 'Must be a valid value.');
    if (url === '') e.url = fieldError('validation_required', 'Cannot be blank.');
    else if (url.length > 2000) e.url = fieldError('validation_length_too_long', 'The length must be no more than 2000.');
    if (Object.keys(e).length > 0) errors[i] = e;
    const headers: Record<string, string> = {};
    if (isRecord(r.headers)) for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') setOwn(headers, k.toLowerCase(), v);
    return { method, url, headers, body: isRecord(r.body) ? r.body : {} };
  });
  if (Object.keys(errors).length > 0) throw invalid({ requests: errors });
  return out;
}

/** PocketBase's error shape for request `i`; errors that are not a client's (a disk failure) stay as they are. */
function failedAt(i: number, err: unknown, budgetMs: number): unknown {
  const api = budgetError(err, budgetMs);
  if (!(api instanceof ApiError)) return err;
  const item: FieldError = { code: 'batch_request_failed', message: 'Batch request failed.', response: api.toJSON() };
  return badRequest('Batch transaction failed.', { requests: { [i]: item } });
}

class FailedWrite extends Error {
  constructor(readonly index: number, readonly error: unknown) {
    super('batch sub-request failed');
  }
}

/** `env.responseBytes`: what the whole answer may hold (every sub-response's rows and expands together). */
export function createBatch(env: Pick<CoreEnv, 'store' | 'registry' | 'budgetMs' | 'responseBytes' | 'dialect' | 'events'>, writes: RecordWrites) {
  const { store, registry, budgetMs, responseBytes, dialect, events } = env;
  const budgeted = <T>(operation: (db: ReadDb) => Promise<T>): Promise<T> => underDeadline(store, budgetMs, operation, responseBytes);

  /** A sub-request's URL → its collection, record id and query. */
  function targetOf(r: SubRequest): Target {
    const m = RECORDS_URL.exec(r.url);
    if (!m) throw badRequest('Unknown batch request action.');
    // a malformed escape anywhere in the URL is this request's 400 (url-parts.ts), before any lookup
    const name = decodeUrlComponent(m[1]);
    const id = m[2] === undefined ? undefined : decodeUrlComponent(m[2]);
    const query = parseQuery(m[3] ?? '');
    const c = registry.get(name);
    if (!c) throw new ApiError(404, 'Missing or invalid collection context.');
    // files of a multipart batch (http/upload-form.ts) for a key that is no file field: refused, never dropped
    const misplaced = misplacedUploads(c, r.body);
    if (misplaced.length > 0) {
      throw badRequest('Failed to read the submitted batch files data.', Object.fromEntries(misplaced.map((k) => [k, fieldError('validation_invalid_file', 'Not a file field of the collection: it cannot hold files.')])));
    }
    return { c, id, query };
  }

  /** A sub-request's context as the caller (`base`: the batch request's own input). */
  function subContext(r: SubRequest, query: Record<string, string>, base: RequestInput): RequestContext {
    const headers = new Map(base.headers);
    for (const [k, v] of Object.entries(r.headers)) headers.set(k, v);
    const input: RequestInput = { auth: base.auth, method: r.method, query, headers, body: r.body, client: base.client };
    const plain = requestContext(input, registry.lookup, dialect);
    return { ...plain, request: { ...plain.request, context: 'batch' } };
  }

  /** A PUT without id is an upsert: an update when the body's id names a stored record, else a create. */
  async function methodOf(r: SubRequest, c: Collection, id: string | undefined, db: ReadDb): Promise<{ method: string; target: string | undefined }> {
    if (r.method !== 'PUT' || id !== undefined) return { method: r.method, target: id };
    const bodyId = typeof r.body.id === 'string' ? r.body.id : '';
    const exists = bodyId !== '' && (await getRow(db, c, bodyId)) !== undefined;
    return { method: exists ? 'PATCH' : 'POST', target: exists ? bodyId : undefined };
  }

  /** One sub-request's prepared write, as the caller (`base`: the batch request's own input). */
  async function prepare(r: SubRequest, { c, id, query }: Target, base: RequestInput, budget: QueryBudget): Promise<Prepared> {
    const ctx = subContext(r, query, base);
    if (budget.spent >= budget.limit) throw queryTooSlow(budgetMs);
    const db = store.reader(budget);
    const { method, target } = await methodOf(r, c, id, db);
    if (method === 'POST' && target === undefined) {
      return { collection: c, ctx, deletes: false, write: await writes.prepareCreate(c, r.body, ctx, undefined, db) };
    }
    if (method === 'PATCH' && target !== undefined) {
      return { collection: c, ctx, deletes: false, write: await writes.prepareUpdate(c, target, r.body, ctx, db) };
    }
    if (method === 'DELETE' && target !== undefined) {
      return { collection: c, ctx, deletes: true, write: await writes.prepareDelete(c, target, ctx, db) };
    }
    throw badRequest('Unknown batch request action.');
  }


  /** Whether a record write hook listens to a collection the batch writes to (hooked.ts). */
  function anyHooked(requests: SubRequest[]): boolean {
    return requests.some((r) => {
      const name = RECORDS_URL.exec(r.url)?.[1];
      let c: Collection | undefined;
      try {
        c = name === undefined ? undefined : registry.get(decodeUrlComponent(name));
      } catch {
        return false; // a malformed URL: refused by the plain path's targetOf
      }
      return c !== undefined && (['Create', 'Update', 'Delete'] as const).some((k) => hooked(events, k, c) || events.has(`onRecord${k}Request`, c));
    });
  }

  /**
   * One sub-request of a hooked batch: its request hooks (onRecordCreateRequest...) around the write, as
   * PocketBase runs each sub-request through its route, inside the batch's transaction (`scope.tx`).
   */
  async function subRequest(c: Collection, method: string, target: string | undefined, body: Record<string, unknown>, ctx: RequestContext, scope: EventScope): Promise<Row | null> {
    const kind = method === 'POST' && target === undefined ? 'Create' : method === 'PATCH' && target !== undefined ? 'Update' : method === 'DELETE' && target !== undefined ? 'Delete' : null;
    if (kind === null) throw badRequest('Unknown batch request action.');
    const write = (b: Record<string, unknown>, s: EventScope): Promise<Row | null> =>
      kind === 'Create' ? writes.create(c, b, ctx, undefined, undefined, s)
      : kind === 'Update' ? writes.update(c, target!, b, ctx, undefined, s)
      : writes.remove(c, target!, ctx, undefined, s).then(() => null);
    const event = `onRecord${kind}Request`;
    if (!events.has(event, c)) return write(body, scope);
    let first: WireRecord;
    if (kind === 'Create') first = wireOfBody(c, body);
    else {
      const stored = await getRow(scope.tx!, c, target!);
      if (!stored) throw new ApiError(404, "The requested resource wasn't found.");
      const base = wireOf(c, stored);
      first = kind === 'Update' ? { collection: c, data: { ...base.data, ...wireOfBody(c, body).data, id: base.data.id }, original: base.data } : base;
    }
    let row: Row | null = null;
    const r = await events.trigger(event, { collection: c, record: first, auth: authWire(ctx), requestInfo: requestInfoOf(ctx) }, scope, async (p, s) => {
      row = await write(kind === 'Delete' ? body : bodyWithChanges(body, first, p.record as WireRecord | undefined), s);
      return { ...p, record: row ? wireOf(c, row) : p.record };
    }, c);
    if (!r.ran) throw badRequest(`A batch request was ended by an ${event} hook without e.next().`);
    return row;
  }

  /**
   * A batch whose collections have write hooks: each sub-request written in turn through the funnel's
   * hooked path, all in one transaction (as PocketBase runs a batch), so every write's hooks run inside
   * it and see the writes before it; a failure rolls all back and answers with its index.
   */
  async function runHooked(requests: SubRequest[], base: RequestInput): Promise<BatchResult[]> {
    const done: { c: Collection; ctx: RequestContext; row: Row | null }[] = [];
    let weight = 0;
    await writes.inTransaction(async (scope) => {
      for (let i = 0; i < requests.length; i++) {
        try {
          const r = requests[i];
          const { c, id, query } = targetOf(r);
          const ctx = subContext(r, query, base);
          const { method, target } = await methodOf(r, c, id, scope.tx!);
          const row = await subRequest(c, method, target, r.body, ctx, scope);
          weight += valuesWeight(c, r.body, MAX_WRITE_BYTES - weight);
          if (weight > MAX_WRITE_BYTES) throw writeTooLarge();
          done.push({ c, ctx, row });
        } catch (err) {
          throw failedAt(i, err, budgetMs);
        }
      }
    });
    return budgeted(async (db) => {
      const results: BatchResult[] = [];
      for (const d of done) {
        if (!d.row) results.push({ status: 204, body: null });
        else results.push({ status: 200, body: (await presentRecords(db, d.c, [d.row], d.ctx, true, responseBytes, events))[0] });
      }
      return results;
    });
  }

  return {
    /** Runs a batch as `base`'s caller; answers each sub-request's `{status, body}` in order. */
    async run(body: Record<string, unknown>, base: RequestInput): Promise<BatchResult[]> {
      const requests = parseForm(body);
      if (anyHooked(requests)) return runHooked(requests, base);
      // one query budget for all the prepare steps together (not one per request): each step spends
      // what the earlier ones left, and past it the request that ran out is a 400 (failedAt) as any
      // request past its budget
      const budget = new QueryBudget(budgetMs, responseBytes);
      const prepared: Prepared[] = [];
      let weight = 0; // what the prepared requests' values weigh together, against one write's budget
      for (let i = 0; i < requests.length; i++) {
        try {
          // a turn of the event loop between requests: other clients are served between prepare steps
          if (i > 0) await new Promise((resolve) => setImmediate(resolve));
          const target = targetOf(requests[i]);
          prepared.push(await prepare(requests[i], target, base, budget));
          // weighed once its rule passed (so only a caller allowed to write learns of the fields)
          weight += valuesWeight(target.c, requests[i].body, MAX_WRITE_BYTES - weight);
          if (weight > MAX_WRITE_BYTES) throw writeTooLarge();
        } catch (err) {
          // what earlier requests placed (their files) is undone as after a rollback
          for (const p of prepared) await p.write.afterRollback?.();
          throw failedAt(i, err, budgetMs);
        }
      }
      // each write's failure inside the transaction keeps its index
      const tagged = prepared.map((p, i): PreparedWrite<Row | null> => ({
        async apply(tx, changes) {
          try {
            return await p.write.apply(tx, changes);
          } catch (err) {
            throw new FailedWrite(i, err);
          }
        },
        afterCommit: p.write.afterCommit && (() => p.write.afterCommit?.()),
        afterRollback: p.write.afterRollback && (() => p.write.afterRollback?.()),
      }));
      let rows: (Row | null)[];
      try {
        rows = await writes.commit(tagged);
      } catch (err) {
        if (err instanceof FailedWrite) throw failedAt(err.index, err.error, budgetMs);
        throw err;
      }
      // the answers are built after the commit: a large expand leaves its record unexpanded
      return budgeted(async (db) => {
        const results: BatchResult[] = [];
        for (const [i, p] of prepared.entries()) {
          const row = rows[i];
          if (p.deletes || !row) results.push({ status: 204, body: null });
          else results.push({ status: 200, body: (await presentRecords(db, p.collection, [row], p.ctx, true, responseBytes, events))[0] });
        }
        return results;
      });
    },
  };
}

export type Batch = ReturnType<typeof createBatch>;
