// The worker pool under concurrent requests: many hooked writes at once on one worker, and a handler
// blocked on work that needs another worker (a hook's mail, whose onMailerSend must run) with the
// only worker busy: an extra worker starts instead of a deadlock until the time limit.
import { describe, expect, it } from 'vitest';
import { sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';
import { workWatch } from '../fixtures/health-poll.js';

const dir = hooksFolder({
  'mail.pb.js': `
onRecordCreateRequest((e) => {
  e.next();
  const message = new MailerMessage({
    from: { address: $app.settings().meta.senderAddress, name: "Shop" },
    to: [{ address: "owner@example.com" }],
    subject: "New order " + e.record.getString("title"),
    html: "<p>An order came in.</p>",
  });
  $app.newMailClient().send(message);
}, "orders");

onMailerSend((e) => {
  e.message.subject = "[shop] " + e.message.subject;
  e.next();
});

onRecordCreate((e) => {
  e.record.set("seq", $app.countRecords("counted") + 1);
  e.next();
}, "counted");
`,
});

const sdk = sdkSuite({ hooksDir: dir, hooksPool: 1, hooksTimeoutMs: 5000 });

describe('hook worker pool', () => {
  it('a handler waiting on work that needs a worker gets one: no deadlock with a pool of one', async () => {
    await sdk.admin.collections.create({ name: 'orders', type: 'base', createRule: '', fields: [{ name: 'title', type: 'text' }] });
    // the server is this process: its time counted as its work (workWatch); a deadlock's wait counts whole
    const took = workWatch(process.pid);
    const created = await Promise.all([1, 2, 3].map((i) => sdk.client().collection('orders').create({ title: `#${i}` })));
    expect(created).toHaveLength(3);
    expect(took().worked).toBeLessThan(4000); // far below the 5 s limit a deadlock would end at
    const { items } = await sdk.admin.send<{ items: { subject: string }[] }>('/api/mails', {});
    expect(items.map((m) => m.subject).sort()).toEqual(['[shop] New order #1', '[shop] New order #2', '[shop] New order #3']);
  });

  it('twenty hooked writes at once, each reading inside its own transaction: every one sees the writes before it', async () => {
    await sdk.admin.collections.create({ name: 'counted', type: 'base', createRule: '', fields: [{ name: 'seq', type: 'number' }] });
    const created = await Promise.all(Array.from({ length: 20 }, () => sdk.client().collection('counted').create({})));
    expect(created.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
