// The suites of vitest.config.ts's ON_BOTH_ENGINES run twice: on SQLite (the `node` project) and on
// PostgreSQL (`postgres-api`, DESKBASE_TEST_ENGINE=postgres). This file is in that list and checks
// that both ways of building a server in a suite (harness() and sdkSuite()) really run on the
// engine of their project, so a green postgres-api run means what it says; and that the proof behind
// the scenario tables' shared reads (a row that only reads wrote nothing) catches a write on both.
import { afterAll, expect, it } from 'vitest';
import { harness, signUpUser, type Harness } from '../support/harness.js';
import { sharedReads } from '../support/scenario.js';
import { sdkSuite } from '../support/sdk-server.js';
import { TEST_ENGINE } from '../support/test-store.js';

const sdk = sdkSuite();
const expected = TEST_ENGINE === 'postgres' ? 'postgres' : undefined;

it('harness() serves from a store on the project\'s engine', async () => {
  const h = await harness();
  try {
    expect(h.core.store.dialect).toBe(expected);
    const su = await h.superuser();
    const res = await h.req('GET', '/api/collections/_superusers/records', { token: su });
    expect(res.status).toBe(200);
    expect(res.body.totalItems).toBe(1);
  } finally {
    await h.close();
  }
});

it('sdkSuite() serves from a store on the project\'s engine', async () => {
  expect(sdk.server.core.store.dialect).toBe(expected);
  expect((await sdk.admin.collection('_superusers').getList()).totalItems).toBe(1);
});

it('the rows of a table that only read share one app, and one that writes anything fails', async () => {
  const fixture = async (h: Harness) => {
    const su = await h.superuser();
    const user = await signUpUser(h, 'ann@example.com');
    return { su, id: user.id as string };
  };
  const reads = sharedReads(fixture);
  const wrote = /wrote to the database/;
  const writingRow = (name: string, write: (h: Harness, ctx: { su: string; id: string }) => Promise<{ status: number }>) => ({
    name, method: 'GET', url: '/api/health', status: 200,
    after: async (_res: unknown, h: Harness, ctx: { su: string; id: string }) => { expect((await write(h, ctx)).status).toBeLessThan(300); },
  });
  try {
    const list = { name: 'a list', method: 'GET', url: '/api/collections/users/records', token: (c: { su: string }) => c.su, status: 200, match: { totalItems: 1 } };
    await reads.run(list);
    await reads.run(list); // the same app, and nothing written by the first
    await expect(reads.run({ ...list, name: 'a write before the request', before: () => {} })).rejects.toThrow(/needs an app of its own/);
    // a record inserted, updated, deleted; a session (a sign-in); the schema
    await expect(reads.run(writingRow('inserts', (h) => h.req('POST', '/api/collections/users/records', { body: { email: 'bob@example.com', password: 'password123', passwordConfirm: 'password123' } })))).rejects.toThrow(wrote);
    await expect(reads.run(writingRow('updates', (h, c) => h.req('PATCH', `/api/collections/users/records/${c.id}`, { token: c.su, body: { name: 'Ann' } })))).rejects.toThrow(wrote);
    await expect(reads.run(writingRow('deletes', (h, c) => h.req('DELETE', `/api/collections/users/records/${c.id}`, { token: c.su })))).rejects.toThrow(wrote);
    await expect(reads.run(writingRow('signs in', (h) => h.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })))).rejects.toThrow(wrote);
    await expect(reads.run(writingRow('changes the schema', (h, c) => h.req('POST', '/api/collections', { token: c.su, body: { name: 'notes', type: 'base', fields: [{ name: 'text', type: 'text' }] } })))).rejects.toThrow(wrote);
  } finally {
    await reads.close();
  }
});

afterAll(() => {
  // in the postgres-api project nothing may quietly fall back to SQLite
  if (process.env.DESKBASE_TEST_ENGINE === 'postgres') expect(TEST_ENGINE).toBe('postgres');
});
