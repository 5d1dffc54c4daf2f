// A hook stopped at its time limit leaves nothing behind: a write it started that had not committed yet
// (waiting for the write turn another write held) rolls back instead of committing once the turn comes,
// after its request was already answered that the hook was stopped. Each way a hook writes outside an
// event's transaction: $app.save, $app.runInTransaction, $app.db() (an execute), and the write a request
// hook's e.next() goes on to. On both engines.
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';
import { startSmtp } from '../support/smtp.js';
import { whileWriteTurnHeld } from '../support/test-store.js';

const dir = hooksFolder({
  'held.pb.js': `
routerAdd("POST", "/api/held/{how}", (e) => {
  const how = e.request.pathValue("how");
  const notes = $app.findCollectionByNameOrId("notes");
  if (how === "save") $app.save(new Record(notes, { title: "saved by a stopped hook" }));
  if (how === "transaction") $app.runInTransaction((txApp) => { txApp.save(new Record(notes, { title: "saved by a stopped hook" })); });
  if (how === "db") $app.db().newQuery("INSERT INTO {{notes}} ([[id]], [[title]]) VALUES ('stoppedhook0001', 'saved by a stopped hook')").execute();
  return e.json(200, { saved: how });
});

// one message to two addresses: the mail client sends one at a time
routerAdd("POST", "/api/held-mail", (e) => {
  $app.newMailClient().send(new MailerMessage({
    from: { address: $app.settings().meta.senderAddress },
    to: [{ address: "first@example.com" }, { address: "second@example.com" }],
    subject: "from a stopped hook",
    html: "<p>sent by a hook</p>",
  }));
  return e.json(200, { sent: true });
});

// e.next() goes on to the create itself, which waits for the turn in its turn
onRecordCreateRequest((e) => {
  e.next();
}, "queued");
`,
});

const sdk = sdkSuite({ hooksDir: dir, hooksTimeoutMs: 1000 });

describe("a stopped hook's writes", () => {
  for (const how of ['save', 'transaction', 'db']) {
    it(`${how}: waiting for the write turn when the hook is stopped, it rolls back once the turn comes`, async () => {
      if (how === 'save') await sdk.admin.collections.create({ name: 'notes', type: 'base', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] });
      // another write holds the turn until the hook has been stopped
      await whileWriteTurnHeld(sdk.server.core.store, async () => {
        const err = await failure(sdk.client().send(`/api/held/${how}`, { method: 'POST' }));
        expect(err.status).toBe(400);
        expect(err.message).toMatch(/ran past its time limit \(1000 ms\)/);
      });
      // writes take the turn in order: once this one has committed, the hook's has ended either way
      expect((await sdk.client().collection('notes').create({ title: `after ${how}` })).title).toBe(`after ${how}`);
      const titles = (await sdk.admin.collection('notes').getFullList()).map((r) => r.title);
      expect(titles).toContain(`after ${how}`);
      expect(titles).not.toContain('saved by a stopped hook');
    });
  }

  it("e.next(): the request's own create, waiting for the turn when its hook is stopped, rolls back", async () => {
    await sdk.admin.collections.create({ name: 'queued', type: 'base', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] });
    await whileWriteTurnHeld(sdk.server.core.store, async () => {
      const err = await failure(sdk.client().collection('queued').create({ title: 'queued behind' }));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/onRecordCreateRequest hook ran past its time limit \(1000 ms\)/);
    });
    expect((await sdk.client().collection('notes').create({ title: 'after next' })).title).toBe('after next');
    expect(await sdk.client().collection('queued').getFullList()).toEqual([]);
  });

  it('$app.newMailClient().send(): a stopped hook sends no mail after it was stopped', async () => {
    // the SMTP server takes the first address's message only once the hook has been stopped
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const smtp = await startSmtp(undefined, (mail) => (mail.to.includes('first@example.com') ? held : Promise.resolve()));
    try {
      await sdk.admin.settings.update({ smtp: { enabled: true, host: '127.0.0.1', port: smtp.port, tls: false } });
      const err = await failure(sdk.client().send('/api/held-mail', { method: 'POST' }));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/ran past its time limit \(1000 ms\)/);
      // the first was under way when the hook was stopped: it goes. Without the stop signal the mail
      // client sends the second right after it (its own connection, a few ms on loopback)
      await expect.poll(() => smtp.received.map((m) => m.to.join()), { timeout: 10_000 }).toEqual(['first@example.com']);
      release();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(smtp.received.map((m) => m.to.join())).toEqual(['first@example.com']);
    } finally {
      await sdk.admin.settings.update({ smtp: { enabled: false } });
      await smtp.close();
    }
  });

  it('a hook within its time limit saves as before', async () => {
    expect(await sdk.admin.send('/api/held/save', { method: 'POST' })).toEqual({ saved: 'save' });
    const titles = (await sdk.admin.collection('notes').getFullList()).map((r) => r.title);
    expect(titles.filter((t) => t === 'saved by a stopped hook')).toHaveLength(1);
  });
});
