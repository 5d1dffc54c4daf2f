// A superuser sees and revokes any auth record's sessions (the admin UI's record panel):
// GET/DELETE /api/collections/{c}/records/{id}/sessions[/{sessionId}]. Nobody else may, and a session
// of another record cannot be reached through this record's path.
import { describe, expect } from 'vitest';
import { type Harness, signUpUser } from '../support/harness.js';
import { envelope, scenarios } from '../support/scenario.js';

interface Signed {
  su: string;
  ann: string;
  /** Ann's two sessions (a, then b) and their ids. */
  a: string;
  b: string;
  aId: string;
  /** Bob's session and its id. */
  bob: string;
  bobId: string;
  /** A record of a base collection (set by the row that makes it). */
  post?: string;
}

async function signed(h: Harness): Promise<Signed> {
  const su = await h.superuser();
  const ann = String((await signUpUser(h, 'ann@example.com')).id);
  await signUpUser(h, 'bob@example.com');
  const a = await h.signIn('users', 'ann@example.com', 'password123');
  const b = await h.signIn('users', 'ann@example.com', 'password123');
  const bob = await h.signIn('users', 'bob@example.com', 'password123');
  const sessionId = async (token: string) => (await h.req('GET', '/api/session', { token })).body.id as string;
  return { su, ann, a, b, aId: await sessionId(a), bob, bobId: await sessionId(bob) };
}

const path = (c: Signed) => `/api/collections/users/records/${c.ann}/sessions`;
/** The session a token names now (null once revoked). */
const sessionOf = async (h: Harness, token: string) => (await h.req('GET', '/api/session', { token })).body;

describe("a user's sessions, for superusers", () => {
  scenarios(signed, [
    {
      name: 'lists the live sessions of a user, newest first, without tokens',
      method: 'GET', url: path, token: (c) => c.su, status: 200,
      notExpectedContent: (c) => [c.a, c.b],
      after: (r) => {
        expect(r.body.items).toHaveLength(2);
        expect(Object.keys(r.body.items[0]).sort()).toEqual(['created', 'current', 'expires', 'id', 'lastActive', 'userAgent']);
        expect(r.body.items.every((s: { current: boolean }) => !s.current)).toBe(true);
        expect(r.body.items[0].created >= r.body.items[1].created).toBe(true);
      },
    },
    {
      name: 'revokes one: that token stops working, the other stays',
      method: 'DELETE', url: (c) => `${path(c)}/${c.aId}`, token: (c) => c.su, status: 204,
      after: async (_r, h, c) => {
        expect((await h.req('GET', '/api/session', { token: c.a })).text).toBe('null');
        expect((await sessionOf(h, c.b)).record.email).toBe('ann@example.com');
        expect((await h.req('GET', path(c), { token: c.su })).body.items).toHaveLength(1);
      },
    },
    { name: 'a guest may not list them', method: 'GET', url: path, status: 401, match: { status: 401 } },
    { name: 'the user may not list them', method: 'GET', url: path, token: (c) => c.a, status: 403, json: envelope(403, 'The authorized record is not allowed to perform this action.') },
    {
      name: 'the user may not revoke them: the session stays',
      method: 'DELETE', url: (c) => `${path(c)}/${c.aId}`, token: (c) => c.a, status: 403, json: envelope(403, 'The authorized record is not allowed to perform this action.'),
      after: async (_r, h, c) => { expect((await sessionOf(h, c.a)).id).toBe(c.aId); },
    },
    {
      name: "another record's session is a 404 through this record's path, and it stays",
      method: 'DELETE', url: (c) => `${path(c)}/${c.bobId}`, token: (c) => c.su, status: 404,
      after: async (_r, h, c) => { expect((await sessionOf(h, c.bob)).id).toBe(c.bobId); },
    },
    { name: 'an unknown record is a 404', method: 'GET', url: '/api/collections/users/records/nosuchrecord0000/sessions', token: (c) => c.su, status: 404 },
    {
      name: 'a record of a base collection is a 404',
      before: async (h, c) => {
        await h.req('POST', '/api/collections', { token: c.su, body: { name: 'posts', fields: [{ name: 'title', type: 'text' }] } });
        c.post = (await h.req('POST', '/api/collections/posts/records', { token: c.su, body: { title: 'x' } })).body.id;
      },
      method: 'GET', url: (c) => `/api/collections/posts/records/${c.post}/sessions`, token: (c) => c.su, status: 404,
    },
  ]);
});
