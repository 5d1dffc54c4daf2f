// New-device alerts (issue 26 part 3) through the official SDK over a real socket: with
// authAlert.enabled, a sign-in from a device (client address + user agent, PocketBase's fingerprint) new
// to a record that signed in before sends the alert mail (read from the outbox, SMTP off); a known
// device, the first sign-in ever, and a collection with the alert off send nothing. Both engines.
import { describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { sdkSuite } from '../support/sdk-server.js';
import { eventually } from '../support/smtp.js';

const PASSWORD = 'password123';

async function outbox(admin: PocketBase): Promise<{ to: string; subject: string; html: string }[]> {
  return ((await admin.send('/api/mails', {})) as { items: { to: string; subject: string; html: string }[] }).items;
}

describe('auth alerts', () => {
  const sdk = sdkSuite();
  const signIn = (email: string, device: string) =>
    sdk.client().collection('users').authWithPassword(email, PASSWORD, { headers: { 'user-agent': device } });
  /** Lets mails sent after the answer land, then the outbox's mails to `to`. */
  const settledMailsTo = async (to: string) => {
    await new Promise((r) => setTimeout(r, 250));
    return (await outbox(sdk.admin)).filter((m) => m.to === to);
  };

  it('is on in the auth collections Deskbase makes, as PocketBase\'s', async () => {
    expect((await sdk.admin.collections.getOne('users')).authAlert.enabled).toBe(true);
    expect((await sdk.admin.collections.getOne('_superusers')).authAlert.enabled).toBe(true);
    const made = await sdk.admin.collections.create({ name: 'members', type: 'auth', fields: [] });
    expect(made.authAlert.enabled).toBe(true);
    await sdk.admin.collections.delete(made.id);
  });

  it('sends the alert once for a new device, never for a known one or the first sign-in', async () => {
    await sdk.admin.collection('users').create({ email: 'ann@example.com', password: PASSWORD, passwordConfirm: PASSWORD });

    await signIn('ann@example.com', 'Laptop Firefox');
    await signIn('ann@example.com', 'Laptop Firefox');
    expect(await settledMailsTo('ann@example.com')).toHaveLength(0); // the first device, then a known one

    await signIn('ann@example.com', 'Phone Safari');
    const [alert] = await eventually(async () => {
      const mine = (await outbox(sdk.admin)).filter((m) => m.to === 'ann@example.com');
      expect(mine).toHaveLength(1);
      return mine;
    });
    expect(alert.subject).toBe('Login from a new location');
    expect(alert.html).toContain('Phone Safari');

    await signIn('ann@example.com', 'Phone Safari');
    await signIn('ann@example.com', 'Laptop Firefox');
    expect(await settledMailsTo('ann@example.com')).toHaveLength(1);
  });

  it('sends nothing while the alert is off', async () => {
    await sdk.admin.collections.update('users', { authAlert: { enabled: false } });
    await sdk.admin.collection('users').create({ email: 'bob@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
    for (const device of ['One', 'Two', 'Three']) await signIn('bob@example.com', device);
    expect(await settledMailsTo('bob@example.com')).toHaveLength(0);
    expect((await sdk.admin.collections.getOne('users')).authAlert.enabled).toBe(false);
  });
});
