// A fresh in-memory Deskbase per test: the real store, core and HTTP app, driven through
// `app.request()` in process (docs/architecture.md, "Tests").
import { afterEach, beforeEach, expect } from 'vitest';
import { createCore, type Core, type CoreOptions } from '../../server/core/index.js';
import { createApp } from '../../server/http/app.js';
import { DEFAULT_CHECKPOINT_BYTES, DEFAULT_LOCK_WAIT_MS, DEFAULT_MAX_DATABASE_BYTES, loadSqlJs, type Store } from '../../server/store/db.js';
import { Engine } from '../../server/store/engine.js';
import { openDatabase } from '../../server/store/recovery.js';
import type { H3 } from 'h3';
import { openTestStore, seedOf, TEST_SCRYPT_N, type StoreSeed } from './test-store.js';

export interface Harness {
  core: Core;
  app: H3;
  setupToken: () => string;
  req: (method: string, path: string, opts?: ReqOpts) => Promise<Res>;
  /** Creates the first superuser and returns its bearer token. */
  superuser: (email?: string, password?: string) => Promise<string>;
  /** Signs in to an auth collection and returns the token. */
  signIn: (collection: string, identity: string, password: string) => Promise<string>;
  close: () => Promise<void>;
}

export interface ReqOpts {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  raw?: string;
}

export interface Res {
  status: number;
  body: any; // test convenience: any JSON answer (the linter allows `any` in test/)
  headers: Headers;
  text: string;
}

/**
 * An in-memory store holding a copy of `bytes` (a database another harness exported): what openStore
 * does for `dir: null`, from a seeded database instead of an empty one.
 */
async function storeFrom(bytes: Uint8Array): Promise<Store> {
  const SQL = await loadSqlJs();
  const config = {
    SQL, checkpointBytes: DEFAULT_CHECKPOINT_BYTES, maxDatabaseBytes: DEFAULT_MAX_DATABASE_BYTES,
    onBackgroundError: (error: Error) => console.error(error), log: (line: string) => console.error(line),
    lockWaitMs: DEFAULT_LOCK_WAIT_MS,
  };
  return new Engine(config, openDatabase(SQL, Buffer.from(bytes), ':memory:'), null);
}

/**
 * `options` go to the core (a test about a cap, not the deadline, may give queries more time);
 * `seed`, a database another harness exported (`h.core.store.backup()`, or test-store.ts `seedOf` on
 * either engine), starts it with that data.
 */
export async function harness(options: Omit<CoreOptions, 'onSetupToken'> = {}, seed?: Uint8Array | StoreSeed): Promise<Harness> {
  // the suite's engine (test-store.ts): SQLite, or PostgreSQL in the postgres-api project
  const store =
    seed === undefined ? await openTestStore('harness')
    : seed instanceof Uint8Array ? await storeFrom(seed)
    : 'bytes' in seed ? await storeFrom(seed.bytes)
    : await openTestStore('harness', seed.template);
  let token = '';
  const core = await createCore(store, { scryptN: TEST_SCRYPT_N, ...options, onSetupToken: (t) => (token = t) });
  await core.setup.issue();
  const app = createApp(core, { uiDir: null });
  const req = async (method: string, path: string, opts: ReqOpts = {}): Promise<Res> => {
    const headers: Record<string, string> = { host: 'localhost:8090', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.request(`http://localhost:8090${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed, headers: res.headers, text };
  };
  const signIn = async (collection: string, identity: string, password: string) => {
    const r = await req('POST', `/api/collections/${collection}/auth-with-password`, { body: { identity, password } });
    if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
    return r.body.token as string;
  };
  return {
    core, app, req, signIn,
    setupToken: () => token,
    async superuser(email = 'admin@example.com', password = 'correct horse') {
      const r = await req('POST', '/api/setup', { body: { token, email, password } });
      if (r.status !== 200) throw new Error(`setup failed: ${r.status} ${r.text}`);
      return signIn('_superusers', email, password);
    },
    close: () => store.close(),
  };
}

/**
 * A fresh harness with its first superuser before each test of the enclosing describe (handed to
 * `set` with the superuser's token), closed after it. The superuser (its setup, its password's hash
 * and a sign-in) is made once per describe and each test's app opened on a copy of that data, as the
 * scenario tables do: its session is in the copy, so the token works on every copy.
 */
export function eachSuperuser(set: (h: Harness, su: string) => void): void {
  let prepared: Promise<{ seed: StoreSeed; su: string }> | null = null;
  let current: Harness | null = null;
  beforeEach(async () => {
    prepared ??= (async () => {
      const h = await harness();
      try {
        return { su: await h.superuser(), seed: await seedOf(h.core.store) };
      } finally {
        await h.close();
      }
    })();
    const { seed, su } = await prepared;
    current = await harness({}, seed);
    set(current, su);
  });
  afterEach(async () => { await current?.close(); });
}

/** Signs a user up in `users` (expecting a 200) and answers the record. */
export async function signUpUser(h: Harness, email: string, password = 'password123', extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const r = await h.req('POST', '/api/collections/users/records', { body: { email, password, passwordConfirm: password, ...extra } });
  expect(r.status, r.text).toBe(200);
  return r.body;
}
