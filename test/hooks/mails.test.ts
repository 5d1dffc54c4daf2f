// PocketBase's $mails from a real pb_hooks folder (routes and record events written as PocketBase's docs
// show), through the official SDK over a real socket: each sendRecord* mails the collection's template
// to the outbox (GET /api/mails), and the tokens it carries redeem through the API as the API's own.
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { eventually, tokenIn } from '../support/smtp.js';
import { hooksFolder } from './support.js';

const PASSWORD = 'a long password 1';

const dir = hooksFolder({
  'mails.pb.js': `
routerAdd("POST", "/api/send/{kind}/{id}", (e) => {
  if (e.request.pathValue("kind") === "unsaved") {
    $mails.sendRecordVerification($app, new Record($app.findCollectionByNameOrId("users"), { email: "x@example.com" }));
  }
  const record = $app.findRecordById("users", e.request.pathValue("id"));
  const body = e.requestInfo().body;
  switch (e.request.pathValue("kind")) {
    case "reset": $mails.sendRecordPasswordReset($app, record); break;
    case "verify": $mails.sendRecordVerification($app, record); break;
    case "change": $mails.sendRecordChangeEmail($app, record, body.newEmail); break;
    case "otp": $mails.sendRecordOTP($app, record, "otp_id_from_hook", "918273"); break;
    case "alert": $mails.sendRecordAuthAlert($app, record); break;
  }
  return e.noContent(204);
}, $apis.requireSuperuserAuth());

// inside the create's transaction: the token is issued in it, the mail goes once it committed
onRecordCreate((e) => {
  e.next();
  if (e.record.getString("name") === "welcome" || e.record.getString("name") === "rollback") $mails.sendRecordVerification($app, e.record);
  if (e.record.getString("name") === "rollback") throw new BadRequestError("rolled back after the mail");
}, "users");
`,
});

const sdk = sdkSuite({ hooksDir: dir });

interface Mail { to: string; subject: string; html: string }
const mails = async () => (await sdk.admin.send<{ items: Mail[] }>('/api/mails', {})).items;
const mailTo = (to: string, subject: RegExp) => eventually(async () => {
  const found = (await mails()).find((m) => m.to === to && subject.test(m.subject));
  expect(found, `a mail to ${to} (${subject})`).toBeDefined();
  return found as Mail;
});
const newUser = (email: string, extra: Record<string, unknown> = {}) =>
  sdk.admin.collection('users').create({ email, password: PASSWORD, passwordConfirm: PASSWORD, ...extra });
const send = (kind: string, id: string, body: Record<string, unknown> = {}) =>
  sdk.admin.send(`/api/send/${kind}/${id}`, { method: 'POST', body });

describe('$mails', () => {
  it('sendRecordPasswordReset mails the reset template with a token the API redeems', async () => {
    const u = await newUser('reset@example.com');
    await send('reset', u.id);
    const mail = await mailTo('reset@example.com', /reset/i);
    const token = tokenIn(mail.html, 'confirm-password-reset');
    await sdk.client().collection('users').confirmPasswordReset(token, 'the new password 2', 'the new password 2');
    await sdk.client().collection('users').authWithPassword('reset@example.com', 'the new password 2');
    // once: the token is spent
    expect((await failure(sdk.client().collection('users').confirmPasswordReset(token, 'a third password 3', 'a third password 3'))).status).toBe(400);
  });

  it('sendRecordVerification mails a token that verifies the record', async () => {
    const u = await newUser('verify@example.com');
    await send('verify', u.id);
    const token = tokenIn((await mailTo('verify@example.com', /verify/i)).html, 'confirm-verification');
    await sdk.client().collection('users').confirmVerification(token);
    expect((await sdk.admin.collection('users').getOne(u.id)).verified).toBe(true);
  });

  it('sendRecordChangeEmail mails the new address a token that changes the e-mail', async () => {
    const u = await newUser('old@example.com');
    await send('change', u.id, { newEmail: 'new@example.com' });
    const token = tokenIn((await mailTo('new@example.com', /confirm/i)).html, 'confirm-email-change');
    await sdk.client().collection('users').confirmEmailChange(token, PASSWORD);
    expect((await sdk.admin.collection('users').getOne(u.id)).email).toBe('new@example.com');
    // a bad address is a 400 naming it, nothing sent
    const err = await failure(send('change', u.id, { newEmail: 'not an address' }));
    expect(err.status).toBe(400);
    expect(err.message).toContain('not an address');
  });

  it('sendRecordOTP mails the code and id the hook gives; sendRecordAuthAlert the alert template', async () => {
    const u = await newUser('otp@example.com');
    await send('otp', u.id);
    const otp = await mailTo('otp@example.com', /OTP/i);
    expect(otp.html).toContain('918273');
    await send('alert', u.id);
    const alert = await mailTo('otp@example.com', /login|sign|new/i);
    expect(alert.html).toContain('a sign-in from a hook');
  });

  it('refuses an unsaved record and an unknown one in the envelope', async () => {
    const unsaved = await failure(send('unsaved', 'x'));
    expect(unsaved.status).toBe(400);
    expect(unsaved.message).toBe('Something went wrong while processing your request.');
    const missing = await failure(send('verify', 'nosuchrecord123'));
    expect(missing.status).toBe(404);
  });

  it('inside a record write: the mail goes after the commit, and not at all when the write rolls back', async () => {
    const u = await newUser('welcome@example.com', { name: 'welcome' });
    const token = tokenIn((await mailTo('welcome@example.com', /verify/i)).html, 'confirm-verification');
    await sdk.client().collection('users').confirmVerification(token);
    expect((await sdk.admin.collection('users').getOne(u.id)).verified).toBe(true);

    const err = await failure(newUser('rollback@example.com', { name: 'rollback' }));
    expect(err.status).toBe(400);
    await new Promise((r) => setTimeout(r, 300));
    expect((await mails()).some((m) => m.to === 'rollback@example.com')).toBe(false);
    expect((await sdk.admin.collection('users').getList(1, 1, { filter: 'email = "rollback@example.com"' })).totalItems).toBe(0);
  });
});
