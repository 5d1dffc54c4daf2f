// Request/response tests as tables, in the manner of PocketBase's ApiScenario (tests/api.go): each
// row is one request against a fresh app (the harness, in process), with what the answer must be.
//
//   scenarios(onBlog, [
//     { name: 'a guest lists the public posts', method: 'GET', url: '/api/collections/posts/records',
//       status: 200, match: { totalItems: 2 } },
//   ]);
//
// A row's url, token, body and expectations may be functions of the fixture's context (ids and tokens
// are known only once the fresh app is seeded). `before` runs after the fixture and before the request
// (PocketBase's BeforeTestFunc); `after` gets the answer for checks a table cannot say
// (AfterTestFunc) and may send more requests through the harness.
import { afterAll, expect, it } from 'vitest';
import type { CoreOptions } from '../../server/core/index.js';
import { harness, type Harness, type Res } from './harness.js';
import { seedOf, writeMark, type StoreSeed } from './test-store.js';

/** A value, or a function of the fixture's context and the row's fresh app (its setup token...). */
type Of<C, T> = T | ((ctx: C, h: Harness) => T);
/** A JSON value (not `unknown`: a row's function then gets its context's type). */
type Json = Record<string, unknown> | unknown[] | string | number | boolean | null;

export interface Scenario<C> {
  name: string;
  method: string;
  url: Of<C, string>;
  /** A bearer token (undefined: a guest). */
  token?: Of<C, string | undefined>;
  headers?: Of<C, Record<string, string>>;
  /** Sent as JSON. */
  body?: Of<C, Json>;
  /** Sent as is (a malformed body). */
  raw?: string;
  /** The answer's status, or the statuses it may be (a probe answered either way). */
  status: number | number[];
  /** The whole JSON answer, compared with toEqual. */
  json?: Of<C, Json>;
  /** A part of the JSON answer, compared with toMatchObject. */
  match?: Of<C, Record<string, unknown> | unknown[]>;
  /** Strings the raw answer must contain (PocketBase's ExpectedContent). */
  expectedContent?: Of<C, string[]>;
  /** Strings the raw answer must not contain (PocketBase's NotExpectedContent). */
  notExpectedContent?: Of<C, string[]>;
  before?: (h: Harness, ctx: C) => Promise<void> | void;
  after?: (res: Res, h: Harness, ctx: C) => Promise<void> | void;
  /** it.only / it.skip for one row while working on it. */
  only?: boolean;
}

/** Seeds a fresh harness and answers the context rows read (a blog, a superuser token...). */
export type Fixture<C> = (h: Harness) => Promise<C>;

/** The core's options for the fixture's app and each row's (a lowered limit, a longer query deadline). */
export type AppOptions = Omit<CoreOptions, 'onSetupToken'>;

const of = <C, T>(value: Of<C, T>, ctx: C, h: Harness): T =>
  typeof value === 'function' ? (value as (ctx: C, h: Harness) => T)(ctx, h) : value;

/**
 * A fixture run once: its data exported, and each call answering a fresh app on a copy of it (the
 * superuser's and users' sessions included), as PocketBase's tests copy one prepared data folder per
 * test. The seeding (password hashes, sign-ins) is what a fresh app costs; a copy costs a few ms (on
 * PostgreSQL, a database created from the prepared one as its template).
 */
function seeded<C>(fixture: Fixture<C>, options: AppOptions): () => Promise<{ h: Harness; ctx: C }> {
  let prepared: Promise<{ seed: StoreSeed; ctx: C }> | null = null;
  return async () => {
    prepared ??= (async () => {
      const h = await harness(options);
      try {
        const ctx = await fixture(h);
        return { seed: await seedOf(h.core.store), ctx };
      } finally {
        await h.close();
      }
    })();
    const { seed, ctx } = await prepared;
    return { h: await harness(options, seed), ctx: structuredClone(ctx) };
  };
}

/** Per fixture, per options: the prepared data's opener. */
const fresh = new WeakMap<Fixture<never>, Map<string, () => Promise<{ h: Harness; ctx: unknown }>>>();

/** The prepared data's opener for `fixture` with `options` (one per fixture, per options). */
function openerOf<C>(fixture: Fixture<C>, options: AppOptions): () => Promise<{ h: Harness; ctx: C }> {
  let byOptions = fresh.get(fixture as Fixture<never>);
  if (byOptions === undefined) fresh.set(fixture as Fixture<never>, (byOptions = new Map()));
  const key = JSON.stringify(options);
  let open = byOptions.get(key) as (() => Promise<{ h: Harness; ctx: C }>) | undefined;
  if (open === undefined) {
    open = seeded(fixture, options);
    byOptions.set(key, open);
  }
  return open;
}

/** Sends the row's request to `h` and checks what the row says. */
async function check<C>(h: Harness, ctx: C, row: Scenario<C>): Promise<Res> {
  await row.before?.(h, ctx);
  const url = of(row.url, ctx, h);
  const res = await h.req(row.method, url, {
    token: row.token === undefined ? undefined : of(row.token, ctx, h),
    headers: row.headers === undefined ? undefined : of(row.headers, ctx, h),
    body: row.body === undefined ? undefined : of(row.body, ctx, h),
    raw: row.raw,
  });
  const where = `${row.method} ${url} → ${res.text.slice(0, 500)}`;
  if (Array.isArray(row.status)) expect(row.status, where).toContain(res.status);
  else expect(res.status, where).toBe(row.status);
  if (row.json !== undefined) expect(res.body, where).toEqual(of(row.json, ctx, h));
  if (row.match !== undefined) expect(res.body, where).toMatchObject(of(row.match, ctx, h));
  for (const s of row.expectedContent === undefined ? [] : of(row.expectedContent, ctx, h)) expect(res.text, where).toContain(s);
  for (const s of row.notExpectedContent === undefined ? [] : of(row.notExpectedContent, ctx, h)) expect(res.text, where).not.toContain(s);
  await row.after?.(res, h, ctx);
  return res;
}

/** Runs one row against a fresh app seeded by `fixture`, checking what the row says. */
export async function runScenario<C>(fixture: Fixture<C>, row: Scenario<C>, options: AppOptions = {}): Promise<Res> {
  const { h, ctx } = await openerOf(fixture, options)();
  try {
    return await check(h, ctx, row);
  } finally {
    await h.close();
  }
}

/** A row that only reads: a GET or HEAD with no `before` (its `after` may send more requests). */
const readsOnly = (row: Scenario<unknown>): boolean => (row.method === 'GET' || row.method === 'HEAD') && row.before === undefined;

/**
 * The rows that only read of a table, on one app shared between them: opened from `fixture`'s prepared
 * data when the first of them runs, closed by `close`. Sharing is proven, not assumed: `run` checks
 * that the row committed nothing (test-store.ts `writeMark`, read before and after the row, its `after`
 * included), so a read that writes fails its row instead of reaching the next one.
 */
export function sharedReads<C>(fixture: Fixture<C>, options: AppOptions = {}): { run: (row: Scenario<C>) => Promise<Res>; close: () => Promise<void> } {
  let shared: Promise<{ h: Harness; ctx: C }> | null = null;
  return {
    async run(row) {
      if (!readsOnly(row as Scenario<unknown>)) throw new Error(`"${row.name}" is no read (a GET or HEAD without before): it needs an app of its own`);
      shared ??= openerOf(fixture, options)();
      const { h, ctx } = await shared;
      const mark = await writeMark(h.core.store);
      const res = await check(h, structuredClone(ctx), row);
      expect(await writeMark(h.core.store), `"${row.name}" only reads (it shares its app with the table's other reads) but wrote to the database`).toBe(mark);
      return res;
    },
    // a failed open failed its rows already
    close: async () => { await shared?.then(({ h }) => h.close(), () => undefined); },
  };
}

/**
 * One test a row. A row that writes (or has a `before`) runs against its own fresh app (made with
 * `options`); the rows that only read share one app per call (`sharedReads`), each proving it wrote
 * nothing: a copy of the data per row is what a table cost on PostgreSQL (a database made and dropped
 * per row).
 */
export function scenarios<C>(fixture: Fixture<C>, rows: Scenario<C>[], options: AppOptions = {}): void {
  const names = new Set<string>();
  const reads = sharedReads(fixture, options);
  afterAll(reads.close);
  for (const row of rows) {
    if (names.has(row.name)) throw new Error(`two scenarios named "${row.name}"`);
    names.add(row.name);
    (row.only ? it.only : it)(row.name, async () => {
      if (readsOnly(row as Scenario<unknown>)) await reads.run(row);
      else await runScenario(fixture, row, options);
    });
  }
}

/** The error envelope every refusal answers (spec: `{status, message, data}`). */
export const envelope = (status: number, message: string, data: Record<string, unknown> = {}) => ({ status, message, data });
