// One owner for password rules: the password field's spec (min, max, pattern, counted in characters).
// Record writes used to run their own check, which ignored `pattern` and counted UTF-16 units.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../server/index.js';
import { http, liveServer } from './fixtures/hardening-http.js';

let server: RunningServer;
let su: string;
beforeAll(async () => {
  ({ server, su } = await liveServer());
  const users = (await http(server.url, 'GET', '/api/collections/users', { token: su })).body;
  const fields = users.fields.map((f: { name: string }) => (f.name === 'password' ? { ...f, min: 10, max: 12, pattern: '^\\S*\\d\\S*$' } : f));
  const r = await http(server.url, 'PATCH', '/api/collections/users', { token: su, body: { fields } });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => { await server.close(); });

const signUp = (password: string) =>
  http(server.url, 'POST', '/api/collections/users/records', { body: { email: `u${Math.random()}@example.com`, password, passwordConfirm: password } });

describe('password values are checked by the password field', () => {
  it.each([
    ['matches the pattern and the bounds', 'abcdefghi1', 200, null],
    ['does not match the pattern (no digit)', 'abcdefghij', 400, 'validation_invalid_format'],
    ['does not match the pattern (a space)', 'abc defgh1', 400, 'validation_invalid_format'],
    ['too short', 'abc1', 400, 'validation_min_text_constraint'],
    ['too long', 'abcdefghijk12', 400, 'validation_max_text_constraint'],
    ['12 characters in 24 UTF-16 units: within max', '😀😀😀😀😀😀😀😀😀😀😀1', 200, null],
    ['10 characters, some outside the BMP: within min', '😀😀😀😀😀😀😀😀😀1', 200, null],
  ])('%s', async (_name, password, status, code) => {
    const r = await signUp(password);
    expect(r.status, r.text).toBe(status);
    if (code) expect(r.body.data.password.code).toBe(code);
  });

  it('the same rules hold when a password is changed', async () => {
    const created = await signUp('abcdefghi1');
    const changed = await http(server.url, 'PATCH', `/api/collections/users/records/${created.body.id}`, { token: su, body: { password: 'nodigitshere', passwordConfirm: 'nodigitshere' } });
    expect(changed.status).toBe(400);
    expect(changed.body.data.password.code).toBe('validation_invalid_format');
  });

  it('setup answers the spec\'s code for a password outside the superusers\' bounds', async () => {
    const fresh = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined });
    try {
      const r = await http(fresh.url, 'POST', '/api/setup', { body: { token: fresh.setupToken(), email: 'a@b.co', password: '1234567' } });
      expect(r.status).toBe(400);
      expect(r.body.data.password).toEqual({ code: 'validation_length_out_of_range', message: 'The length must be between 8 and 71.' });
      const emoji = await http(fresh.url, 'POST', '/api/setup', { body: { token: fresh.setupToken(), email: 'a@b.co', password: '😀😀😀😀😀😀😀😀' } });
      expect(emoji.status, emoji.text).toBe(200); // eight characters, sixteen UTF-16 units
    } finally {
      await fresh.close();
    }
  });
});
