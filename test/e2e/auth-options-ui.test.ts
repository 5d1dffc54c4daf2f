// An auth collection's options in the collection editor (issue 26), in Chromium against a real server:
// token durations and the verification template changed, saved and read back through the API and after a
// reload; only the options touched are sent; an option the server refuses shows its words by its input
// and nothing of the save is stored; OAuth2 client secrets are never shown back.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { browserSuite, shot } from './helpers.js';
import type { Seeder } from './api-seed.js';

const suite = browserSuite({ shots: 'failed-auth-options' });
let seeder: Seeder;
let page: Page;

interface Options {
  otp: { enabled: boolean; duration: number; length: number };
  mfa: { duration: number; rule: string };
  authToken: { duration: number };
  verificationToken: { duration: number };
  passwordResetToken: { duration: number };
  verificationTemplate: { subject: string; body: string };
  resetPasswordTemplate: { subject: string; body: string };
}
const users = async () => (await seeder.send('GET', '/collections/users')).body as Options;
const toast = (text: string) => page.locator('.toast', { hasText: text }).last();

/** The PATCH bodies the page sends to the collections API, as they left the browser. */
const patches: Record<string, unknown>[] = [];
const watch = (r: Request) => {
  if (r.method() === 'PATCH' && /\/api\/collections\/[^/]+$/.test(r.url())) patches.push(r.postDataJSON() as Record<string, unknown>);
};

beforeAll(async () => {
  ({ seeder } = suite);
  page = await suite.open('#/collections/users/settings', { width: 1280, height: 900 });
  page.on('request', watch);
  await page.getByRole('heading', { name: 'Token durations' }).waitFor();
});

describe('auth collection options in the collection editor', () => {
  it('shows the options the API answers', async () => {
    const before = await users();
    expect(await page.inputValue('#auth-verificationToken-duration')).toBe(String(before.verificationToken.duration));
    expect(await page.inputValue('#auth-otp-length')).toBe(String(before.otp.length));
    expect(await page.inputValue('#auth-tpl-subject')).toBe(before.verificationTemplate.subject);
    expect(await page.inputValue('#auth-tpl-body')).toBe(before.verificationTemplate.body);
    // every sign-in method is offered, whether or not this server takes it yet
    for (const id of ['#auth-otp-enabled', '#auth-mfa-enabled', '#auth-oauth2-enabled', '#auth-authAlert-enabled']) expect(await page.locator(id).count()).toBe(1);
    await page.locator('#auth-tokens-title').scrollIntoViewIfNeeded();
    await shot(page, 'auth-options-wide');
  });

  it('saves token durations and the verification template; the API and a reload show them', async () => {
    const before = await users();
    await page.fill('#auth-verificationToken-duration', '7200');
    await page.fill('#auth-passwordResetToken-duration', '900');
    expect(await page.locator('.form-field', { has: page.locator('#auth-verificationToken-duration') }).textContent()).toContain('2 hours');
    await page.fill('#auth-tpl-subject', 'Welcome to {APP_NAME}');
    await page.fill('#auth-tpl-body', '<p>Hello {RECORD:email}, confirm: ');
    // a placeholder clicked goes in at the caret
    await page.locator('.placeholders button', { hasText: '{TOKEN}' }).click();
    expect(await page.inputValue('#auth-tpl-body')).toBe('<p>Hello {RECORD:email}, confirm: {TOKEN}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await toast('Changes saved.').waitFor();

    const after = await users();
    expect(after.verificationToken.duration).toBe(7200);
    expect(after.passwordResetToken.duration).toBe(900);
    expect(after.verificationTemplate).toEqual({ subject: 'Welcome to {APP_NAME}', body: '<p>Hello {RECORD:email}, confirm: {TOKEN}' });
    // what was not touched is as it was, and was not even sent
    expect(after.otp).toEqual(before.otp);
    expect(after.mfa).toEqual(before.mfa);
    expect(after.resetPasswordTemplate).toEqual(before.resetPasswordTemplate);
    const sent = patches.at(-1) ?? {};
    expect(sent).toMatchObject({ verificationToken: { duration: 7200 }, passwordResetToken: { duration: 900 }, verificationTemplate: { subject: 'Welcome to {APP_NAME}' } });
    for (const key of ['otp', 'mfa', 'oauth2', 'authAlert', 'authToken', 'fileToken', 'emailChangeToken', 'resetPasswordTemplate', 'confirmEmailChangeTemplate']) expect(sent).not.toHaveProperty(key);

    await page.reload();
    await page.getByRole('heading', { name: 'Token durations' }).waitFor();
    expect(await page.inputValue('#auth-verificationToken-duration')).toBe('7200');
    expect(await page.inputValue('#auth-passwordResetToken-duration')).toBe('900');
    expect(await page.inputValue('#auth-tpl-subject')).toBe('Welcome to {APP_NAME}');
  });

  it('edits each template on its own tab', async () => {
    const before = await users();
    await page.getByRole('tab', { name: 'Password reset' }).click();
    expect(await page.inputValue('#auth-tpl-subject')).toBe(before.resetPasswordTemplate.subject);
    await page.fill('#auth-tpl-subject', 'New password for {APP_NAME}');
    await page.getByRole('tab', { name: 'Verification' }).click();
    expect(await page.inputValue('#auth-tpl-subject')).toBe('Welcome to {APP_NAME}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await toast('Changes saved.').waitFor();
    expect((await users()).resetPasswordTemplate.subject).toBe('New password for {APP_NAME}');
    expect(Object.keys(patches.at(-1) ?? {}).filter((k) => k.endsWith('Template'))).toEqual(['resetPasswordTemplate']);
  });

  it('a refused option shows the server\'s message by its input, and nothing of the save is stored', async () => {
    // a fresh page: the collections' live update after the last save remounts the editor (see the report)
    await page.reload();
    await page.getByRole('heading', { name: 'Token durations' }).waitFor();
    const before = await users();
    await page.fill('#auth-authToken-duration', '3600');
    await page.fill('#auth-emailChangeToken-duration', '600');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const field = page.locator('.form-field.has-error', { has: page.locator('#auth-authToken-duration') });
    await field.waitFor();
    const { body } = await seeder.send('PATCH', '/collections/users', { authToken: { duration: 3600 } });
    const serverSays = (body as { data: { authToken: { duration: { message: string } } } }).data.authToken.duration.message;
    expect(await field.locator('.error-text').textContent()).toBe(serverSays);
    // only that input is marked
    expect(await page.locator('.form-field.has-error').count()).toBe(1);
    await field.scrollIntoViewIfNeeded();
    await shot(page, 'auth-options-refused');
    expect(await users()).toEqual(before);
  });

  it('a template refused while another is on screen opens with the server\'s message by its input', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Token durations' }).waitFor();
    const before = await users();
    await page.getByRole('tab', { name: 'E-mail change' }).click();
    await page.fill('#auth-tpl-subject', '');
    await page.getByRole('tab', { name: 'Verification' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.form-field.has-error', { has: page.locator('#auth-tpl-subject') }).getByText('Cannot be blank.').waitFor();
    expect(await page.getAttribute('#auth-tpl-tab-confirmEmailChangeTemplate', 'aria-selected')).toBe('true');
    expect(await users()).toEqual(before);
  });

  it('a refused sign-in method shows the server\'s message beside its switch', async () => {
    await page.fill('#auth-authToken-duration', String((await users()).authToken.duration));
    await page.locator('label.switch', { has: page.locator('#auth-mfa-enabled') }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const { status, body } = await seeder.send('PATCH', '/collections/users', { mfa: { enabled: true } });
    if (status === 200) {
      // MFA is taken by this server: the save went through
      await toast('Changes saved.').waitFor();
      await seeder.send('PATCH', '/collections/users', { mfa: { enabled: false } });
      return;
    }
    const message = (body as { data: { mfa: { enabled: { message: string } } } }).data.mfa.enabled.message;
    await page.locator('.auth-method.has-error', { has: page.locator('#auth-mfa-enabled') }).getByText(message).waitFor();
  });

  it('an OAuth2 provider\'s secret is typed, sent, and never shown back', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Token durations' }).waitFor();
    await page.locator('.provider-add button', { hasText: '+ oidc' }).click();
    // the generic OpenID provider asks for its endpoints
    for (const k of ['clientId', 'clientSecret', 'authURL', 'tokenURL', 'userInfoURL']) expect(await page.locator(`#auth-oauth2-0-${k}`).count()).toBe(1);
    expect(await page.getAttribute('#auth-oauth2-0-clientSecret', 'type')).toBe('password');
    await page.fill('#auth-oauth2-0-clientId', 'desk');
    await page.fill('#auth-oauth2-0-clientSecret', 's3cret-value');
    await page.fill('#auth-oauth2-0-authURL', 'https://id.example.com/auth');
    await page.fill('#auth-oauth2-0-tokenURL', 'https://id.example.com/token');
    await page.fill('#auth-oauth2-0-userInfoURL', 'https://id.example.com/me');
    await page.locator('.provider').scrollIntoViewIfNeeded();
    await shot(page, 'auth-options-provider');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => (patches.at(-1)?.oauth2 as { providers?: unknown[] } | undefined)?.providers?.length).toBe(1);
    expect(patches.at(-1)?.oauth2).toEqual({ providers: [{ name: 'oidc', clientId: 'desk', clientSecret: 's3cret-value', displayName: '', authURL: 'https://id.example.com/auth', tokenURL: 'https://id.example.com/token', userInfoURL: 'https://id.example.com/me' }] });
    // the server takes the provider or refuses it with its words; either way no secret is shown back
    await page.locator('.toast', { hasText: /Changes saved\.|Not saved/ }).last().waitFor();
    const stored = JSON.stringify((await seeder.send('GET', '/collections/users')).body);
    expect(stored).not.toContain('s3cret-value');
    if (stored.includes('"oidc"')) {
      await page.reload();
      await page.getByRole('heading', { name: 'Token durations' }).waitFor();
      expect(await page.inputValue('#auth-oauth2-0-clientSecret')).toBe('');
      expect(await page.content()).not.toContain('s3cret-value');
    } else {
      await page.locator('.has-error .error-text').first().waitFor();
    }
  });

  it('fits a narrow window', async () => {
    await page.setViewportSize({ width: 560, height: 900 });
    await page.locator('#auth-methods-title').scrollIntoViewIfNeeded();
    await shot(page, 'auth-options-narrow');
    await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
    await page.locator('#auth-templates-title').scrollIntoViewIfNeeded();
    await shot(page, 'auth-options-narrow-dark');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
