// File tokens on a fake clock, over a real socket with the official SDK: a token opens a protected
// file for its 3 minutes (FILE_TOKEN_SECONDS, PocketBase's fileToken duration) and not a second more.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../server/core/index.js';
import { FILE_TOKEN_SECONDS } from '../../server/core/file-tokens.js';
import { createNodeHandler } from '../../server/http/app.js';
import type { Store } from '../../server/store/db.js';
import { ADMIN } from '../support/sdk-server.js';
import { openTestStore } from '../support/test-store.js';
import { file } from './fixture.js';

let store: Store;
let server: Server;
let url: string;
// the file tokens' clock (sessions keep the real one: a sign-in's 7 days cover what this test moves on)
const now = { t: Date.now() };

const client = () => {
  const pb = new PocketBase(url);
  pb.autoCancellation(false);
  return pb;
};

beforeAll(async () => {
  store = await openTestStore('file-tokens');
  let setupToken = '';
  const core = await createCore(store, { onSetupToken: (t) => (setupToken = t), now: () => now.t });
  await core.setup.issue();
  server = createServer(createNodeHandler(core, { uiDir: null }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const setup = await fetch(`${url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: setupToken, ...ADMIN }) });
  expect(setup.status).toBe(200);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
});

describe('file tokens', () => {
  it('open a protected file for their 3 minutes, and not after', async () => {
    const admin = client();
    await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    await admin.collections.create({
      name: 'vault',
      fields: [{ name: 'owner', type: 'text' }, { name: 'secret', type: 'file', maxSelect: 1, protected: true }],
      listRule: '', viewRule: 'owner = @request.auth.id',
    });
    const ann = await admin.collection('users').create({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' });
    const rec = await admin.collection('vault').create({ owner: ann.id, secret: file('top secret', 's.txt') });
    const asAnn = client();
    await asAnn.collection('users').authWithPassword('ann@example.com', 'password123');
    const token = await asAnn.files.getToken();
    const fetched = async () => {
      const res = await fetch(asAnn.files.getURL(rec, rec.secret, { token }));
      return { status: res.status, text: await res.text() };
    };
    expect(await fetched()).toEqual({ status: 200, text: 'top secret' });
    now.t += (FILE_TOKEN_SECONDS - 1) * 1000;
    expect(await fetched()).toEqual({ status: 200, text: 'top secret' });
    now.t += 1000; // its exp reached: PocketBase's answer to a token it cannot use, the 404 of a file not found
    expect((await fetched()).status).toBe(404);
    // the session itself is live: a new token opens the file again
    const fresh = await fetch(asAnn.files.getURL(rec, rec.secret, { token: await asAnn.files.getToken() }));
    expect(await fresh.text()).toBe('top secret');
  });
});
