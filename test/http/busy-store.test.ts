// A request waiting for the write turn behind a write that runs nothing (its work elsewhere: a hook
// looping inside it) gets the envelope's 503 once its wait is over, never a 500, nothing of it done;
// the next request after that write ends is served. On the desktop the wait is lockWaitMs (lowered
// here), on a team server the pool's wait for the write turn (DatabaseBusy). On both engines.
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { TEST_ENGINE, whileWriteTurnHeld } from '../support/test-store.js';

// the desktop engine's option; a team server's store is opened by the suite (startServer refuses both)
const sdk = sdkSuite(TEST_ENGINE === 'sqlite' ? { store: { lockWaitMs: 300 } } : {});

describe('a request behind a write that runs nothing', () => {
  it('gets a 503 saying the database is busy, nothing saved; once the write ends the next is served', async () => {
    await sdk.admin.collections.create({ name: 'notes', listRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] });
    await whileWriteTurnHeld(sdk.server.core.store, async () => {
      const err = await failure(sdk.client().collection('notes').create({ title: 'behind' }));
      expect(err.status).toBe(503);
      expect(Object.keys(err.response).sort()).toEqual(['data', 'message', 'status']);
      expect(err.response.status).toBe(503);
      expect(err.response.message).toMatch(/^The database is busy: .*try again in a moment/);
      expect(err.response.message).not.toMatch(/Something went wrong/);
    });
    expect((await sdk.client().collection('notes').create({ title: 'after' })).title).toBe('after');
    expect((await sdk.client().collection('notes').getFullList()).map((r) => r.title)).toEqual(['after']);
  });
});
