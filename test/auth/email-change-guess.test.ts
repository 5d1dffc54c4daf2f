// confirm-email-change asks for the record's password beside the mailed token: the proof that whoever
// holds a session (a stolen one, a shared computer) is the account's owner before its address moves.
// That check counts against the account's sign-in block as a sign-in and an oldPassword do: with a
// session and the token mailed to an address of their choice, guesses stop after the same ten failures,
// and a blocked account answers exactly as a wrong password. Over a real socket with the official SDK.
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { eventually, tokenIn } from '../support/smtp.js';
import { MAX_FAILURES } from '../../server/core/sign-in-limiter.js';

const PASSWORD = 'password123';
const WRONG = { status: 400, message: 'An error occurred while validating the submitted data.', data: { password: { code: 'validation_invalid_password', message: 'Missing or invalid auth record password.' } } };

describe('guessing the password through confirm-email-change', () => {
  const sdk = sdkSuite();

  it('stops after ten wrong guesses: the right one then answers as a wrong one and moves nothing; sign-in is blocked too', async () => {
    await sdk.admin.collection('users').create({ email: 'vic@example.com', password: PASSWORD, passwordConfirm: PASSWORD });
    // the holder of Vic's session asks for the address to move to one of theirs
    const thief = sdk.client();
    await thief.collection('users').authWithPassword('vic@example.com', PASSWORD);
    await thief.collection('users').requestEmailChange('thief@example.com');
    const mail = await eventually(async () => {
      const items = ((await sdk.admin.send('/api/mails', {})) as { items: { to: string; html: string }[] }).items.filter((m) => m.to === 'thief@example.com');
      expect(items).toHaveLength(1);
      return items[0]!;
    });
    const token = tokenIn(mail.html, 'confirm-email-change');
    const confirm = async (password: string) => {
      const e = await failure(sdk.client().collection('users').confirmEmailChange(token, password));
      return { status: e.status, ...e.response };
    };
    for (let i = 0; i < MAX_FAILURES; i++) expect(await confirm(`guess-${i}`)).toEqual(WRONG);
    expect(await confirm(PASSWORD)).toEqual(WRONG);
    // the block is the account's: its own sign-in waits out the window too, and the address never moved
    expect((await failure(sdk.client().collection('users').authWithPassword('vic@example.com', PASSWORD))).status).toBe(400);
    expect((await sdk.admin.collection('users').getFirstListItem('email = "vic@example.com"')).email).toBe('vic@example.com');
  });
});
