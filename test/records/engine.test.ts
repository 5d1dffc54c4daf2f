// The suites of vitest.config.ts's ON_BOTH_ENGINES run twice: on SQLite (the `node` project) and on
// PostgreSQL (`postgres-api`, DESKBASE_TEST_ENGINE=postgres). This file is in that list and checks
// that both ways of building a server in a suite (harness() and sdkSuite()) really run on the
// engine of their project, so a green postgres-api run means what it says.
import { afterAll, expect, it } from 'vitest';
import { harness } from '../support/harness.js';
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

afterAll(() => {
  // in the postgres-api project nothing may quietly fall back to SQLite
  if (process.env.DESKBASE_TEST_ENGINE === 'postgres') expect(TEST_ENGINE).toBe('postgres');
});
