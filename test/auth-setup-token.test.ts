// The printed setup token stays valid for its whole hour. A wrong POST /setup used to replace it once
// the token was a minute old, so anyone who could reach the port kept invalidating the link the owner
// was given. A new token is issued only once the old one expired (and never twice within a minute).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SETUP_TOKEN_MS } from '../server/core/setup.js';
import { createCore } from '../server/core/index.js';
import { createApp } from '../server/http/app.js';
import { openStore, type Store } from '../server/store/db.js';

let store: Store;
let now: number;
let tokens: string[];
let post: (body: unknown) => Promise<number>;
beforeEach(async () => {
  store = await openStore({ dir: null });
  now = Date.parse('2030-01-01T00:00:00Z');
  tokens = [];
  const core = await createCore(store, { onSetupToken: (t) => tokens.push(t), now: () => now });
  core.setup.issue();
  const app = createApp(core, { uiDir: null });
  post = async (body) => (await app.request('http://localhost:8090/api/setup', {
    method: 'POST', headers: { host: 'localhost:8090', 'content-type': 'application/json' }, body: JSON.stringify(body),
  })).status;
});
afterEach(async () => { await store.close(); });

const credentials = { email: 'owner@example.com', password: 'correct horse' };

describe('the setup token', () => {
  it('outlives wrong attempts for its whole hour, then is replaced once', async () => {
    expect(tokens).toHaveLength(1);
    for (const minutes of [2, 10, 30, 59]) {
      now = Date.parse('2030-01-01T00:00:00Z') + minutes * 60_000;
      for (let i = 0; i < 5; i++) expect(await post({ token: `guess-${i}`, ...credentials })).toBe(403);
    }
    expect(tokens).toHaveLength(1); // the printed link still works
    now = Date.parse('2030-01-01T00:00:00Z') + SETUP_TOKEN_MS;
    expect(await post({ token: tokens[0], ...credentials })).toBe(403); // expired
    expect(tokens).toHaveLength(2);
    for (let i = 0; i < 5; i++) expect(await post({ token: 'wrong', ...credentials })).toBe(403);
    expect(tokens).toHaveLength(2);
    expect(await post({ token: tokens[1], ...credentials })).toBe(200);
  });

  it('the first token still completes setup after an hour\'s worth of wrong attempts minus a second', async () => {
    now += SETUP_TOKEN_MS - 1000;
    expect(await post({ token: 'nope', ...credentials })).toBe(403);
    expect(await post({ token: tokens[0], ...credentials })).toBe(200);
    expect(tokens).toHaveLength(1);
  });
});
