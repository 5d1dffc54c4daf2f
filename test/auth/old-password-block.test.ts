// Issue 21, item 5: `oldPassword` checks count against the sign-in block. Where an updateRule lets users
// edit each other, guessing a victim's `oldPassword` used to be unlimited (25 wrong guesses were each
// checked, and the right one then changed the password); now the account's ten failures per 15 minutes
// hold for both ways of checking its password, and a blocked account answers exactly as a wrong guess.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FAILURES } from '../../server/core/sign-in-limiter.js';
import { clockedApp, type Clocked } from '../support/clocked-app.js';

let app: Clocked;
let bob: string;
let annId: string;

beforeEach(async () => {
  app = await clockedApp();
  const su = (await app.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token;
  // an app where signed-in users may edit each other (PocketBase asks for oldPassword from non-managers)
  const rules = await app.req('PATCH', '/api/collections/users', { token: su, body: { listRule: '', viewRule: '', updateRule: '@request.auth.id != ""' } });
  expect(rules.status, rules.text).toBe(200);
  bob = (await app.signIn('bob@example.com', 'password123')).body.token;
  annId = (await app.req('GET', '/api/collections/users/records?filter=email="ann@example.com"', { token: su })).body.items[0].id;
});
afterEach(async () => { await app.close(); });

const change = (oldPassword: string) => app.req('PATCH', `/api/collections/users/records/${annId}`, {
  token: bob, body: { oldPassword, password: 'taken-over-1', passwordConfirm: 'taken-over-1' },
});

const WRONG = { status: 400, message: 'Failed to update record.', data: { oldPassword: { code: 'validation_invalid_old_password', message: 'Missing or invalid old password.' } } };

describe("guessing another user's oldPassword", () => {
  it('stops after ten wrong guesses: the right one then answers as a wrong one and changes nothing', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) expect((await change(`guess-${i}`)).body).toEqual(WRONG);
    // fifteen more, all at once: none is checked, each answers the same
    const burst = await Promise.all(Array.from({ length: 15 }, (_, i) => change(`more-${i}`)));
    for (const r of burst) expect(r.body).toEqual(WRONG);
    const right = await change('password123');
    expect(right.status).toBe(400);
    expect(right.body).toEqual(WRONG);
    // the block is the account's: its own sign-in waits out the window too, and the password never changed
    expect((await app.signIn('ann@example.com', 'password123')).status).toBe(400);
    app.now.t += 15 * 60 * 1000 + 1;
    expect((await app.signIn('ann@example.com', 'taken-over-1')).status).toBe(400);
    expect((await app.signIn('ann@example.com', 'password123')).status).toBe(200);
  });

  it('sign-in failures and oldPassword failures add up on one account', async () => {
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await app.signIn('ann@example.com', `wrong-${i}`)).status).toBe(400);
    expect((await change('one-more-wrong')).body).toEqual(WRONG);
    expect((await change('password123')).body).toEqual(WRONG); // blocked: not checked
    expect((await app.signIn('ann@example.com', 'password123')).body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
  });

  it('below the limit the right oldPassword still works, and its success starts the count again', async () => {
    for (let i = 0; i < MAX_FAILURES - 1; i++) await change(`guess-${i}`);
    const ok = await change('password123');
    expect(ok.status, ok.text).toBe(200);
    expect((await app.signIn('ann@example.com', 'taken-over-1')).status).toBe(200);
    // the count started again at that success: nine wrong guesses and one wrong sign-in make ten
    const again = (oldPassword: string) => app.req('PATCH', `/api/collections/users/records/${annId}`, {
      token: bob, body: { oldPassword, password: 'taken-over-2', passwordConfirm: 'taken-over-2' },
    });
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await again(`guess-${i}`)).body).toEqual(WRONG);
    expect((await app.signIn('ann@example.com', 'wrong')).status).toBe(400);
    expect((await app.signIn('ann@example.com', 'taken-over-1')).status).toBe(400);
  });
});
