// An in-process Deskbase on a fake clock, for the sign-in block's 15-minute window and session tests.
import { expect } from 'vitest';
import { createCore } from '../../server/core/index.js';
import { createApp } from '../../server/http/app.js';
import type { Store } from '../../server/store/db.js';
import { openTestStore } from './test-store.js';
import type { Res } from './harness.js';

/** An in-process app on a fake clock (the failure window is 15 minutes). */
export interface Clocked {
  store: Store;
  now: { t: number };
  req(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string>; token?: string }): Promise<Res>;
  /** Password sign-in to `users`; `cookie` asks for a cookie session. */
  signIn(identity: string, password: string, extra?: { headers?: Record<string, string>; cookie?: boolean }): Promise<Res>;
  /** Closes its store (the suite's engine's: on PostgreSQL its connections and the bus's polling). */
  close(): Promise<void>;
}

/** Setup done (admin@example.com), and two users, ann@ and bob@example.com, with password123. */
export async function clockedApp(): Promise<Clocked> {
  // the suite's engine (test-store.ts): SQLite, or PostgreSQL in the postgres-api project
  const store = await openTestStore('clocked');
  const now = { t: Date.parse('2030-01-01T00:00:00Z') };
  let setup = '';
  const core = await createCore(store, { onSetupToken: (t) => (setup = t), now: () => now.t });
  await core.setup.issue();
  const h3 = createApp(core, { uiDir: null });
  const req: Clocked['req'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { host: 'localhost:8090', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await h3.request(`http://localhost:8090${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, text };
  };
  const signIn: Clocked['signIn'] = (identity, password, extra = {}) =>
    req('POST', '/api/collections/users/auth-with-password', { body: { identity, password, ...(extra.cookie ? { cookie: true } : {}) }, headers: extra.headers });
  const app: Clocked = { store, now, req, signIn, close: () => store.close() };
  expect((await req('POST', '/api/setup', { body: { token: setup, email: 'admin@example.com', password: 'correct horse' } })).status).toBe(200);
  for (const email of ['ann@example.com', 'bob@example.com']) {
    expect((await req('POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } })).status).toBe(200);
  }
  return app;
}
