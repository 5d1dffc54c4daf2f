// Seeding for the browser tests through the real HTTP API: the first superuser, collections and
// records, and a signed-in page (the token in localStorage, as the admin UI keeps it).
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from './helpers.js';

export const EMAIL = 'admin@example.com';
export const PASSWORD = 'correct-horse-battery';

export interface Seeder {
  token: string;
  /** A request under /api as the superuser (or with `token`); throws unless it succeeds. */
  call<T = unknown>(method: string, path: string, body?: unknown, token?: string): Promise<T>;
  /** The same request, answering whatever comes back (a refusal included). */
  send(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  /** Creates `count` records from `make(i)`, eight requests at a time. */
  seed(collection: string, count: number, make: (i: number) => Record<string, unknown>): Promise<Array<{ id: string }>>;
  /** A page of a fresh context, signed in as the superuser (or with `token`), at `hash`. */
  open(browser: Browser, hash: string, viewport?: { width: number; height: number }, token?: string): Promise<Page>;
  signIn(collection?: string, identity?: string, password?: string, userAgent?: string): Promise<string>;
}

export async function createSeeder(app: TestApp): Promise<Seeder> {
  async function request(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${app.url}/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }
  async function call<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
    const { status, text } = await request(method, path, body, token);
    if (status < 200 || status > 299) throw new Error(`${method} ${path}: ${status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  const signIn = async (collection = '_superusers', identity = EMAIL, password = PASSWORD, userAgent = 'curl/8.5.0') => {
    const res = await fetch(`${app.url}/api/collections/${collection}/auth-with-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: JSON.stringify({ identity, password }),
    });
    if (!res.ok) throw new Error(`sign-in ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };
  await call('POST', '/setup', { token: (await app.setupToken()), email: EMAIL, password: PASSWORD });
  const token = await signIn();
  return {
    token,
    call: (method, path, body, t) => call(method, path, body, t ?? token),
    async send(method, path, body, t) {
      const { status, text } = await request(method, path, body, t ?? token);
      let parsed: unknown = null;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch { /* not JSON: null, as before */ }
      return { status, body: parsed };
    },
    signIn,
    async seed(collection, count, make) {
      const out: Array<{ id: string }> = new Array(count);
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const i = next++;
          out[i] = await call<{ id: string }>('POST', `/collections/${collection}/records`, make(i), token);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      return out;
    },
    async open(browser, hash, viewport = { width: 1280, height: 820 }, t = token) {
      const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'Europe/Berlin' });
      await context.addInitScript((tk) => {
        if (!sessionStorage.getItem('seeded')) {
          localStorage.setItem('deskbase.token', tk);
          sessionStorage.setItem('seeded', '1');
        }
      }, t);
      const page = await context.newPage();
      page.setDefaultTimeout(8000);
      await page.goto(`${app.url}/_/${hash}`);
      return page;
    },
  };
}
