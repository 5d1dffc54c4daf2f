// The CSRF check of cookie sessions: a state change (or a cookie sign-in) must carry an Origin that is
// exactly this site's, `http://host:port` as browsers send it (the site is the Host the request names).
import { describe, expect } from 'vitest';
import type { Harness } from '../support/harness.js';
import { scenarios, type Scenario } from '../support/scenario.js';

/** The harness's requests name this Host. */
const SITE = 'http://localhost:8090';

interface Cookied {
  /** Ann's session cookie (`name=value`). */
  cookie: string;
  me: string;
}

async function cookied(h: Harness): Promise<Cookied> {
  await h.superuser();
  const r = await h.req('POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' } });
  const s = await h.req('POST', '/api/collections/users/auth-with-password', {
    body: { identity: 'ann@example.com', password: 'password123', cookie: true }, headers: { origin: SITE },
  });
  expect(s.status, s.text).toBe(200);
  return { cookie: s.headers.get('set-cookie')!.split(';')[0], me: r.body.id as string };
}

/** A write by Ann's cookie session, sent with `origin` (and the Host `host`, when given). */
const write = (name: string, origin: string, status: number, host?: string): Scenario<Cookied> => ({
  name, method: 'PATCH', url: (c) => `/api/collections/users/records/${c.me}`,
  headers: (c) => ({ cookie: c.cookie, origin, ...(host === undefined ? {} : { host }) }),
  body: { name: origin }, status,
  ...(status === 200 ? { match: { name: origin } } : { match: { status } }),
});

/** A cookie sign-in sent with `origin`: refused, and no cookie set. */
const signIn = (name: string, origin: string): Scenario<Cookied> => ({
  name, method: 'POST', url: '/api/collections/users/auth-with-password', headers: { origin },
  body: { identity: 'ann@example.com', password: 'password123', cookie: true }, status: 400,
  after: (r) => { expect(r.headers.get('set-cookie')).toBeNull(); },
});

describe('F14: Origin compared as scheme, host and port', () => {
  const others: [string, string][] = [
    ['another scheme', SITE.replace('http:', 'https:')],
    ['a trailing slash', `${SITE}/`],
    ['user info', SITE.replace('//', '//ann@')],
    ['user info and password', SITE.replace('//', '//ann:pw@')],
    ['a path', `${SITE}/_/`],
    ['another port', SITE.replace(/:\d+$/, ':1')],
  ];
  scenarios(cookied, [
    ...others.map(([what, origin]) => write(`${what}: a cookie session's write is refused`, origin, 403)),
    ...others.map(([what, origin]) => signIn(`${what}: a cookie sign-in is refused, and no cookie is set`, origin)),
    write('exactly this site: allowed', SITE, 200),
    write('exactly this site, its host in another case: allowed', 'http://localhost:8090', 200, 'LOCALHOST:8090'),
  ]);
});
