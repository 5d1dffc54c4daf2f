// Hostile requests of the third attack round, each against a server in its own process while
// `/api/health` is polled: the request gets its clear answer and nobody else waits for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../fixtures/hardening-http.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';

let server: ChildServer;
let url: string;
let su: string;

beforeAll(async () => {
  server = await startChildServer('stalls');
  ({ url, su } = server);
  const r = await http(url, 'POST', '/api/collections', {
    token: su, body: { name: 'contacts', fields: [{ name: 'mail', type: 'email' }], createRule: '' },
  });
  expect(r.status, r.text).toBe(200);
  // ordinary patterns an admin writes, on a collection guests sign up to
  const members = await http(url, 'POST', '/api/collections', {
    token: su,
    body: {
      name: 'members', type: 'auth', createRule: '', passwordAuth: { enabled: true, identityFields: ['email'] },
      fields: [{ name: 'handle', type: 'text', pattern: '^[a-z0-9]+([._-]?[a-z0-9]+)*$' }],
    },
  });
  expect(members.status, members.text).toBe(200);
  const fields = members.body.fields.map((f: { name: string }) => (f.name === 'password' ? { ...f, pattern: '^([a-zA-Z0-9]+[ ._-]?)+$' } : f));
  const patched = await http(url, 'PATCH', '/api/collections/members', { token: su, body: { fields } });
  expect(patched.body.fields.find((f: { name: string }) => f.name === 'password').pattern).toBe('^([a-zA-Z0-9]+[ ._-]?)+$');
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const polled = <T>(name: string, request: () => Promise<T>): Promise<T> => server.polled(name, request);

describe('F1: e-mail addresses are checked in linear time', () => {
  // `x@a.a.a.…!`: each dot could end a label or sit inside one; 24 of them stalled the loop 466 ms,
  // and each one more doubles it
  const hostile = `x@${'a.'.repeat(26)}!`;

  it('a guest sign-up with a hostile email (JSON)', async () => {
    const r = await polled('email-json', () => http(url, 'POST', '/api/collections/users/records', {
      body: { email: hostile, password: 'password123', passwordConfirm: 'password123' },
    }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.email.code).toBe('validation_is_email');
  });

  it('the same email url-encoded, and in an email field of a base collection', async () => {
    const form = await polled('email-form', () => http(url, 'POST', '/api/collections/users/records', {
      raw: new URLSearchParams({ email: hostile, password: 'password123', passwordConfirm: 'password123' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }));
    expect(form.body.data.email.code).toBe('validation_is_email');
    const base = await polled('email-field', () => http(url, 'POST', '/api/collections/contacts/records', { body: { mail: hostile } }));
    expect(base.body.data.mail.code).toBe('validation_is_email');
  });
});

describe('F2: field patterns run in linear time', () => {
  const member = (extra: Record<string, string>) => ({ email: 'm@example.com', password: 'password123', passwordConfirm: 'password123', ...extra });

  it('a text pattern with nested repetition, against `aaa…!`', async () => {
    const r = await polled('pattern-text', () => http(url, 'POST', '/api/collections/members/records', { body: member({ handle: `${'a'.repeat(28)}!` }) }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.handle.code).toBe('validation_invalid_format');
  });

  it('a password pattern with nested repetition, against `aaa…!`', async () => {
    const password = `${'a'.repeat(28)}!`;
    const r = await polled('pattern-password', () => http(url, 'POST', '/api/collections/members/records', { body: member({ password, passwordConfirm: password }) }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.password.code).toBe('validation_invalid_format');
  });

  it('a pattern RE2 would not accept is refused when the collection is saved', async () => {
    const r = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'refs', fields: [{ name: 't', type: 'text', pattern: '^(a+)\\1$' }] } });
    expect(r.status).toBe(400);
    expect(r.body.data.fields['0'].pattern.code).toBe('validation_invalid_regex');
  });
});
