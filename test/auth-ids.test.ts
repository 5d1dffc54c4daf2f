// An auth record's id names who `@request.auth.id` is, so no two auth collections may hold the same id
// (PocketBase's `validation_invalid_auth_id`): signing up in `users` with the id of a `staff` record
// used to succeed, and that user then passed every `owner = @request.auth.id` rule written for staff.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../server/index.js';
import { http, liveServer } from './fixtures/hardening-http.js';

let server: RunningServer;
let su: string;
const password = 'password123';
const body = (email: string, id?: string) => ({ email, password, passwordConfirm: password, ...(id ? { id } : {}) });

beforeAll(async () => {
  ({ server, su } = await liveServer());
  for (const name of ['staff', 'members']) {
    const r = await http(server.url, 'POST', '/api/collections', { token: su, body: { name, type: 'auth', createRule: '', listRule: 'id = @request.auth.id', viewRule: 'id = @request.auth.id' } });
    expect(r.status, r.text).toBe(200);
  }
  const r = await http(server.url, 'POST', '/api/collections', {
    token: su, body: { name: 'docs', fields: [{ name: 'owner', type: 'text' }, { name: 'text', type: 'text' }], listRule: 'owner = @request.auth.id', viewRule: 'owner = @request.auth.id' },
  });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => { await server.close(); });

const signUp = (collection: string, email: string, id?: string) =>
  http(server.url, 'POST', `/api/collections/${collection}/records`, { body: body(email, id) });

describe('auth record ids are unique across auth collections', () => {
  it('signing up with the id of another auth collection\'s record is a 400 on id, and grants nothing', async () => {
    const staff = await signUp('staff', 'boss@example.com');
    expect(staff.status, staff.text).toBe(200);
    await http(server.url, 'POST', '/api/collections/docs/records', { token: su, body: { owner: staff.body.id, text: 'payroll' } });

    for (const collection of ['users', 'members']) {
      const r = await signUp(collection, `mallory-${collection}@example.com`, staff.body.id);
      expect(r.status, r.text).toBe(400);
      expect(r.body.data.id).toEqual({ code: 'validation_invalid_auth_id', message: 'Invalid or duplicated auth record id.' });
      const signIn = await http(server.url, 'POST', `/api/collections/${collection}/auth-with-password`, { body: { identity: `mallory-${collection}@example.com`, password } });
      expect(signIn.status).toBe(400); // no such account was made
    }
    // and the other way round: a staff record may not take a user's id
    const user = await signUp('users', 'ann@example.com');
    const taken = await signUp('staff', 'ann-staff@example.com', user.body.id);
    expect(taken.body.data.id.code).toBe('validation_invalid_auth_id');
  });

  it('a superuser\'s id cannot be taken, and a superuser cannot create a record with a taken id either', async () => {
    const me = await http(server.url, 'GET', '/api/session', { token: su });
    const suId = me.body.record.id as string;
    expect((await signUp('users', 'su-copy@example.com', suId)).body.data.id.code).toBe('validation_invalid_auth_id');
    const staff = await signUp('staff', 'second@example.com');
    const bySu = await http(server.url, 'POST', '/api/collections/members/records', { token: su, body: body('by-su@example.com', staff.body.id) });
    expect(bySu.status).toBe(400);
    expect(bySu.body.data.id.code).toBe('validation_invalid_auth_id');
  });

  it('concurrent sign-ups with one id in two collections: exactly one succeeds', async () => {
    const id = 'contested000001';
    const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => signUp(i % 2 ? 'users' : 'staff', `race${i}@example.com`, id)));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 200)) expect(['validation_invalid_auth_id', 'validation_pk_invalid']).toContain(r.body.data.id.code);
  });

  it('base collections keep their own id space, and generated ids never collide', async () => {
    const staff = await signUp('staff', 'third@example.com');
    const doc = await http(server.url, 'POST', '/api/collections/docs/records', { token: su, body: { id: staff.body.id, text: 'same id, base collection' } });
    expect(doc.status, doc.text).toBe(200);
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) ids.add((await signUp(i % 2 ? 'users' : 'members', `gen${i}@example.com`)).body.id);
    expect(ids.size).toBe(10);
  });
});
