// A superuser sees and revokes any auth record's sessions (the admin UI's record panel):
// GET/DELETE /api/collections/{c}/records/{id}/sessions[/{sessionId}]. Nobody else may, and a session
// of another record cannot be reached through this record's path.
import { describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness, signUpUser } from '../support/harness.js';

describe("a user's sessions, for superusers", () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));
  const path = (id: string) => `/api/collections/users/records/${id}/sessions`;

  it('lists the live sessions of a user, newest first, without tokens', async () => {
    const ann = await signUpUser(h, 'ann@example.com');
    const first = await h.signIn('users', 'ann@example.com', 'password123');
    await h.signIn('users', 'ann@example.com', 'password123');
    const r = await h.req('GET', path(String(ann.id)), { token: su });
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(2);
    expect(Object.keys(r.body.items[0]).sort()).toEqual(['created', 'current', 'expires', 'id', 'lastActive', 'userAgent']);
    expect(r.body.items.every((s: { current: boolean }) => !s.current)).toBe(true);
    expect(r.text).not.toContain(first);
    expect(r.body.items[0].created >= r.body.items[1].created).toBe(true);
  });

  it('revokes one: that token stops working, the other stays', async () => {
    const ann = await signUpUser(h, 'ann@example.com');
    const a = await h.signIn('users', 'ann@example.com', 'password123');
    const b = await h.signIn('users', 'ann@example.com', 'password123');
    const aId = (await h.req('GET', '/api/session', { token: a })).body.id;
    expect((await h.req('DELETE', `${path(String(ann.id))}/${aId}`, { token: su })).status).toBe(204);
    expect((await h.req('GET', '/api/session', { token: a })).text).toBe('null');
    expect((await h.req('GET', '/api/session', { token: b })).body.record.email).toBe('ann@example.com');
    expect((await h.req('GET', path(String(ann.id)), { token: su })).body.items).toHaveLength(1);
  });

  it('refuses everyone but superusers, the user included', async () => {
    const ann = await signUpUser(h, 'ann@example.com');
    const a = await h.signIn('users', 'ann@example.com', 'password123');
    const aId = (await h.req('GET', '/api/session', { token: a })).body.id;
    expect((await h.req('GET', path(String(ann.id)))).status).toBe(401);
    expect((await h.req('GET', path(String(ann.id)), { token: a })).status).toBe(403);
    expect((await h.req('DELETE', `${path(String(ann.id))}/${aId}`, { token: a })).status).toBe(403);
    expect((await h.req('GET', '/api/session', { token: a })).body.id).toBe(aId);
  });

  it("answers 404 for another record's session, an unknown record, and a base collection", async () => {
    const ann = await signUpUser(h, 'ann@example.com');
    await signUpUser(h, 'bob@example.com');
    const b = await h.signIn('users', 'bob@example.com', 'password123');
    const bId = (await h.req('GET', '/api/session', { token: b })).body.id;
    expect((await h.req('DELETE', `${path(String(ann.id))}/${bId}`, { token: su })).status).toBe(404);
    expect((await h.req('GET', '/api/session', { token: b })).body.id).toBe(bId);
    expect((await h.req('GET', path('nosuchrecord0000'), { token: su })).status).toBe(404);
    await h.req('POST', '/api/collections', { token: su, body: { name: 'posts', fields: [{ name: 'title', type: 'text' }] } });
    const post = await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: 'x' } });
    expect((await h.req('GET', `/api/collections/posts/records/${post.body.id}/sessions`, { token: su })).status).toBe(404);
  });
});
