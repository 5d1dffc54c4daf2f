// A hook that starts a write from inside a read's snapshot: onRecordEnrich runs while a view or list
// holds its snapshot (core/record-response.ts presentRecords), and its `$app.save` goes through the
// store, not through that snapshot. On the desktop a snapshot holds the store's turn, which the save
// waits for: it fails once the snapshot has read nothing for lockWaitMs (store/engine.ts `reading`),
// the hook hears it, the answer goes out, and the store goes on (before, the save waited until the
// hook was stopped at its time limit, and every write and snapshot of the server with it, then
// committed all the same). A team server's snapshots hold no turn: test/postgres/store-contract.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';

const dir = hooksFolder({
  'enrich.pb.js': `
onRecordEnrich((e) => {
  try {
    $app.save(new Record($app.findCollectionByNameOrId("notes"), { title: "from enrich" }));
    e.record.set("saved", "yes");
  } catch (err) {
    e.record.set("saved", String(err.message || err));
  }
  e.record.withCustomData(true);
  e.next();
}, "tasks");
`,
});

// the hooks' own time limit far past the store's wait: what ends the save's wait is the store
const sdk = sdkSuite({ hooksDir: dir, hooksTimeoutMs: 60_000, store: { lockWaitMs: 300 } });

describe('a hook starting a write from inside a snapshot', () => {
  beforeAll(async () => {
    await sdk.admin.collections.create({ name: 'tasks', viewRule: '', listRule: '', fields: [{ name: 'title', type: 'text' }] });
    await sdk.admin.collections.create({ name: 'notes', fields: [{ name: 'title', type: 'text' }] });
  });

  it('is refused after lockWaitMs with a message saying so, nothing saved; the answer goes out and the store goes on', async () => {
    // a create's answer is enriched inside its write: the hook's save goes through that transaction
    const task = await sdk.admin.collection('tasks').create({ title: 'viewed' });
    expect(task.saved).toBe('yes');
    const viewed = await sdk.client().collection('tasks').getOne(task.id);
    expect(viewed.saved).toMatch(/read nothing for 300 ms while this waited for it.*from inside a snapshot or backup waits for it: read through the reader it is handed/);
    const listed = await sdk.client().collection('tasks').getList(1, 10);
    expect(listed.items[0].saved).toMatch(/from inside a snapshot or backup waits for it/);
    // the create's note only; writes and reads go on
    await sdk.admin.collection('notes').create({ title: 'after' });
    expect((await sdk.admin.collection('notes').getFullList()).map((n) => n.title).sort()).toEqual(['after', 'from enrich']);
  });
});
