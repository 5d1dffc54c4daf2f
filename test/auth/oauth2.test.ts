// OAuth2 sign-in as PocketBase's, against a real OpenID provider (oidc-provider) on loopback, driven
// through the official SDK: auth-methods' providers (state, PKCE), the code + PKCE exchange
// (authWithOAuth2Code), sign-up with mapped fields, linking an existing account only by a VERIFIED
// e-mail, a bad verifier or provider refused, `_externalAuths` listed and unlinked, and the options:
// the client secret never answered, what Deskbase cannot honour refused naming it.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { failure, sdkSuite, startSdkServer } from '../support/sdk-server.js';
import { startIdp, type TestIdp } from '../support/oidc.js';
import { eventually, tokenIn } from '../support/smtp.js';

const sdk = sdkSuite();
let idp: TestIdp;

const provider = () => ({
  name: 'oidc', clientId: idp.clientId, clientSecret: idp.clientSecret, displayName: 'Test IdP',
  authURL: `${idp.issuer}/auth`, tokenURL: `${idp.issuer}/token`, userInfoURL: `${idp.issuer}/me`,
});

beforeAll(async () => {
  idp = await startIdp([`${sdk.server.url}/api/oauth2-redirect`]);
  idp.accounts.set('alice', { email: 'alice@example.com', email_verified: true, name: 'Alice Liddell', preferred_username: 'alice_l', picture: 'https://example.com/a.png' });
  idp.accounts.set('bob', { email: 'bob@example.com', email_verified: true, name: 'Bob' });
  idp.accounts.set('mallory', { email: 'carol@example.com', email_verified: false, name: 'Mallory' });
  const users = await sdk.admin.collections.getOne('users');
  await sdk.admin.collections.update('users', {
    fields: [...users.fields, { name: 'nick', type: 'text' }, { name: 'picture', type: 'url' }],
    oauth2: { enabled: true, providers: [provider()], mappedFields: { name: 'name', username: 'nick', avatarURL: 'picture' } },
  });
});
afterAll(async () => { await idp?.close(); });

/** The SDK's listAuthMethods, the provider's login followed, the SDK's authWithOAuth2Code. */
async function signIn(pb: PocketBase, account: string, tamper?: (p: { codeVerifier: string }) => string) {
  const methods = await pb.collection('users').listAuthMethods();
  const p = methods.oauth2.providers.find((x) => x.name === 'oidc')!;
  const back = await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), account);
  expect(back.searchParams.get('state')).toBe(p.state);
  return pb.collection('users').authWithOAuth2Code('oidc', back.searchParams.get('code')!, tamper ? tamper(p) : p.codeVerifier, idp.redirectURL, { emailVisibility: true });
}

describe('auth-methods', () => {
  it('lists the provider with a fresh state and PKCE pair, its auth URL ending in an empty redirect_uri', async () => {
    const [a, b] = [await sdk.client().collection('users').listAuthMethods(), await sdk.client().collection('users').listAuthMethods()];
    expect(a.oauth2.enabled).toBe(true);
    const p = a.oauth2.providers[0]!;
    expect(p).toMatchObject({ name: 'oidc', displayName: 'Test IdP', codeChallengeMethod: 'S256' });
    expect(p.state).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(p.codeVerifier).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(p.codeChallenge).toBe(createHash('sha256').update(p.codeVerifier).digest('base64url'));
    expect(b.oauth2.providers[0]!.state).not.toBe(p.state);
    const url = new URL(p.authURL);
    expect(url.origin + url.pathname).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: idp.clientId, response_type: 'code', scope: 'openid email profile', state: p.state, code_challenge: p.codeChallenge, redirect_uri: '' });
    expect(p.authURL.endsWith('&redirect_uri=')).toBe(true);
  });
});

describe('auth-with-oauth2', () => {
  it('signs up a new user with the mapped fields, verified, linked; the next sign-in finds the link', async () => {
    const pb = sdk.client();
    const first = await signIn(pb, 'alice');
    expect(first.meta).toMatchObject({ isNew: true, id: 'alice', email: 'alice@example.com', name: 'Alice Liddell', username: 'alice_l', avatarURL: 'https://example.com/a.png' });
    expect(first.meta?.rawUser).toMatchObject({ sub: 'alice', email_verified: true });
    expect(typeof first.meta?.accessToken).toBe('string');
    expect(first.record).toMatchObject({ email: 'alice@example.com', name: 'Alice Liddell', nick: 'alice_l', picture: 'https://example.com/a.png', verified: true, emailVisibility: true });
    expect(pb.authStore.isValid).toBe(true);
    const links = await pb.collection('_externalAuths').getFullList({ filter: pb.filter('recordRef = {:id}', { id: first.record.id }) });
    expect(links.map((l) => [l.provider, l.providerId])).toEqual([['oidc', 'alice']]);
    const again = await signIn(sdk.client(), 'alice');
    expect(again.meta?.isNew).toBe(false);
    expect(again.record.id).toBe(first.record.id);
  });

  it('signs up with createData\'s e-mail when it gives one, verified only when it is the provider\'s (PocketBase\'s oauth2Submit)', async () => {
    const signUpWith = async (account: string, createData: Record<string, unknown>) => {
      idp.accounts.set(account, { email: `${account}@example.com`, email_verified: true, name: account });
      const pb = sdk.client();
      const p = (await pb.collection('users').listAuthMethods()).oauth2.providers.find((x) => x.name === 'oidc')!;
      const back = await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), account);
      return pb.collection('users').authWithOAuth2Code('oidc', back.searchParams.get('code')!, p.codeVerifier, idp.redirectURL, createData);
    };
    // another address than the provider's: the record's, unverified (the provider vouched for its own only)
    const pia = await signUpWith('pia', { email: 'pia.work@example.com' });
    expect(pia.meta).toMatchObject({ isNew: true, email: 'pia@example.com' });
    expect(pia.record).toMatchObject({ email: 'pia.work@example.com', verified: false });
    // the link signs in to it again, still unverified
    const again = await signIn(sdk.client(), 'pia');
    expect(again.record).toMatchObject({ id: pia.record.id, email: 'pia.work@example.com', verified: false });
    // the provider's own address given: verified; an empty one: the provider's, verified
    expect((await signUpWith('quinn', { email: 'quinn@example.com' })).record).toMatchObject({ email: 'quinn@example.com', verified: true });
    expect((await signUpWith('rosa', { email: '' })).record).toMatchObject({ email: 'rosa@example.com', verified: true });
    // one that is no e-mail is refused, not replaced by the provider's
    for (const email of [42, 'not an e-mail']) {
      const err = await failure(signUpWith('sami', { email }));
      expect([err.status, err.message], JSON.stringify(email)).toEqual([400, 'Failed to authenticate.']);
      expect(Object.keys(err.response.data)).toEqual(['email']);
    }
    expect(await sdk.admin.collection('users').getList(1, 1, { filter: 'email = "sami@example.com"' })).toMatchObject({ totalItems: 0 });
  });

  it('leaves out a mapped username the field would refuse (its pattern), as PocketBase, and signs up anyway', async () => {
    const users = await sdk.admin.collections.getOne('users');
    const withPattern = (pattern: string) => users.fields.map((f: { name: string }) => (f.name === 'nick' ? { ...f, pattern } : f));
    await sdk.admin.collections.update('users', { fields: withPattern('^[a-z_]+$') });
    try {
      idp.accounts.set('nora', { email: 'nora@example.com', email_verified: true, name: 'Nora', preferred_username: 'Nora Smith!' });
      idp.accounts.set('olga', { email: 'olga@example.com', email_verified: true, name: 'Olga', preferred_username: 'olga_k' });
      const nora = await signIn(sdk.client(), 'nora');
      expect(nora.meta?.isNew).toBe(true);
      expect(nora.record).toMatchObject({ email: 'nora@example.com', name: 'Nora', nick: '' });
      expect((await signIn(sdk.client(), 'olga')).record.nick).toBe('olga_k');
    } finally {
      await sdk.admin.collections.update('users', { fields: withPattern('') });
    }
  });

  it('links an existing account by the provider\'s verified e-mail, and its unverified password stops working', async () => {
    const bob = await sdk.admin.collection('users').create({ email: 'bob@example.com', password: 'bobs-password', passwordConfirm: 'bobs-password' });
    const res = await signIn(sdk.client(), 'bob');
    expect(res.meta?.isNew).toBe(false);
    expect(res.record.id).toBe(bob.id);
    expect(res.record.verified).toBe(true);
    // whoever registered the address before (unverified) loses that password, as PocketBase
    expect((await failure(sdk.client().collection('users').authWithPassword('bob@example.com', 'bobs-password'))).status).toBe(400);
    expect((await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${bob.id}"` })).length).toBe(1);
  });

  it('an unverified account claimed by the provider\'s verified e-mail keeps no link its first registrant made (no pre-hijack)', async () => {
    // a second provider (the same IdP under PocketBase's `oidc2`), for Eve's link
    const users = await sdk.admin.collections.getOne('users');
    await sdk.admin.collections.update('users', { oauth2: { providers: [...users.oauth2.providers, { ...provider(), name: 'oidc2' }] } });
    const viaSecond = async (pb: PocketBase, account: string) => {
      const p = (await pb.collection('users').listAuthMethods()).oauth2.providers.find((x) => x.name === 'oidc2')!;
      const back = await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), account);
      return pb.collection('users').authWithOAuth2Code('oidc2', back.searchParams.get('code')!, p.codeVerifier, idp.redirectURL);
    };
    try {
      // Eve registers Victor's address (unverified), signs in and links her own provider account to it
      idp.accounts.set('eve', { email: 'eve@example.com', email_verified: true, name: 'Eve' });
      idp.accounts.set('victor', { email: 'victor@example.com', email_verified: true, name: 'Victor' });
      const eve = sdk.client();
      const planted = await eve.collection('users').create({ email: 'victor@example.com', password: 'eves-password', passwordConfirm: 'eves-password' });
      await eve.collection('users').authWithPassword('victor@example.com', 'eves-password');
      const linked = await viaSecond(eve, 'eve');
      expect(linked.record.id).toBe(planted.id);
      expect(linked.record.verified).toBe(false);
      // Victor signs in with his provider account: the address is his, so is the account now
      const victor = await signIn(sdk.client(), 'victor');
      expect(victor.record.id).toBe(planted.id);
      expect(victor.record.verified).toBe(true);
      // Eve's provider account no longer signs in as it (a new account of her own instead)
      const again = await viaSecond(sdk.client(), 'eve');
      expect(again.record.id).not.toBe(planted.id);
      const links = await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${planted.id}"` });
      expect(links.map((l) => `${l.provider} ${l.providerId}`)).toEqual(['oidc victor']);
    } finally {
      await sdk.admin.collections.update('users', { oauth2: { providers: users.oauth2.providers } });
    }
  });

  it('an unverified account whose password is reset through its e-mail keeps no link its first registrant made (no pre-hijack)', async () => {
    // Mallory registers Walt's address (unverified), signs in and links her own provider account to it
    idp.accounts.set('mallory2', { email: 'mallory2@example.com', email_verified: true, name: 'Mallory' });
    const mallory = sdk.client();
    const planted = await mallory.collection('users').create({ email: 'walt@example.com', password: 'mallorys-password', passwordConfirm: 'mallorys-password' });
    await mallory.collection('users').authWithPassword('walt@example.com', 'mallorys-password');
    expect((await signIn(mallory, 'mallory2')).record.id).toBe(planted.id);
    // Walt, told the address is taken, resets the password through the mail to it
    await sdk.client().collection('users').requestPasswordReset('walt@example.com');
    const mail = await eventually(async () => {
      const items = ((await sdk.admin.send('/api/mails', {})) as { items: { to: string; html: string }[] }).items.filter((m) => m.to === 'walt@example.com');
      expect(items).toHaveLength(1);
      return items[0]!;
    });
    await sdk.client().collection('users').confirmPasswordReset(tokenIn(mail.html, 'confirm-password-reset'), 'walts-password', 'walts-password');
    expect((await sdk.client().collection('users').authWithPassword('walt@example.com', 'walts-password')).record.verified).toBe(true);
    // Mallory's provider account no longer signs in as it
    expect((await signIn(sdk.client(), 'mallory2')).record.id).not.toBe(planted.id);
    expect(await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${planted.id}"` })).toEqual([]);
  });

  it('a signed-in user linking a second account of a provider it has a link of is PocketBase\'s 400, not a 500', async () => {
    idp.accounts.set('zed', { email: 'zed@example.com', email_verified: true, name: 'Zed' });
    idp.accounts.set('zed2', { email: 'zed2@example.com', email_verified: true, name: 'Zed' });
    const zed = sdk.client();
    const first = await signIn(zed, 'zed');
    const err = await failure(signIn(zed, 'zed2'));
    expect({ status: err.status, message: err.message }).toEqual({ status: 400, message: 'Failed to authenticate.' });
    const links = await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${first.record.id}"` });
    expect(links.map((l) => l.providerId)).toEqual(['zed']);
  });

  it('never links an account by an e-mail the provider does not vouch for (no takeover)', async () => {
    const carol = await sdk.admin.collection('users').create({ email: 'carol@example.com', password: 'carols-password', passwordConfirm: 'carols-password', verified: true });
    const outcome = await signIn(sdk.client(), 'mallory').catch((e: unknown) => e as Error);
    if (!(outcome instanceof Error)) {
      expect(outcome.record.id).not.toBe(carol.id);
      expect(outcome.record.email).not.toBe('carol@example.com');
    }
    expect(await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${carol.id}"` })).toEqual([]);
    await sdk.client().collection('users').authWithPassword('carol@example.com', 'carols-password');
  });

  it('refuses a wrong PKCE verifier, a reused code and an unknown provider', async () => {
    const err = await failure(signIn(sdk.client(), 'alice', () => 'x'.repeat(43)));
    expect(err.status).toBe(400);
    expect(err.message).toBe('Failed to fetch OAuth2 token.');
    // a code is good once
    const p = (await sdk.client().collection('users').listAuthMethods()).oauth2.providers[0]!;
    const code = (await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), 'alice')).searchParams.get('code')!;
    await sdk.client().collection('users').authWithOAuth2Code('oidc', code, p.codeVerifier, idp.redirectURL);
    expect((await failure(sdk.client().collection('users').authWithOAuth2Code('oidc', code, p.codeVerifier, idp.redirectURL))).message).toBe('Failed to fetch OAuth2 token.');
    const bad = await failure(sdk.client().collection('users').authWithOAuth2Code('github', 'code', 'v', idp.redirectURL));
    expect(bad.status).toBe(400);
    expect(bad.response.data.provider.code).toBe('validation_invalid_provider');
    const blank = await failure(sdk.client().collection('users').authWithOAuth2Code('oidc', '', 'v', ''));
    expect(Object.keys(blank.response.data).sort()).toEqual(['code', 'redirectURL']);
  });

  it('the same new account signing in twice at once gets one record and one link', async () => {
    idp.accounts.set('gina', { email: 'gina@example.com', email_verified: true, name: 'Gina' });
    const grants = await Promise.all([0, 1].map(async () => {
      const p = (await sdk.client().collection('users').listAuthMethods()).oauth2.providers[0]!;
      return { p, code: (await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), 'gina')).searchParams.get('code')! };
    }));
    const both = await Promise.all(grants.map(({ p, code }) => sdk.client().collection('users').authWithOAuth2Code('oidc', code, p.codeVerifier, idp.redirectURL)));
    expect(both[0]!.record.id).toBe(both[1]!.record.id);
    expect(both.map((r) => r.meta?.isNew).sort()).toEqual([false, true]);
    expect((await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${both[0]!.record.id}"` })).length).toBe(1);
  });

  it('answers 403 for a collection without OAuth2', async () => {
    const err = await failure(sdk.client().collection('_superusers').authWithOAuth2Code('oidc', 'c', 'v', idp.redirectURL));
    expect(err.status).toBe(403);
  });
});

describe('with the other sign-in options', () => {
  it('with MFA on, an OAuth2 sign-in is one of the two methods: its 401 {mfaId}, then a password or OTP completes it, and the other way round', async () => {
    const mfaIdOf = async (promise: Promise<unknown>) => {
      const e = await failure(promise);
      expect(e.status).toBe(401);
      expect(Object.keys(e.response)).toEqual(['mfaId']); // PocketBase's answer: no token, no record
      return e.response.mfaId as string;
    };
    const codeOf = async (email: string) => {
      const { items } = (await sdk.admin.send('/api/mails', {})) as { items: { to: string; html: string }[] };
      return (/<strong>([0-9]+)<\/strong>/.exec(items.find((m) => m.to === email)!.html) as RegExpExecArray)[1]!;
    };
    idp.accounts.set('kim', { email: 'kim@example.com', email_verified: true, name: 'Kim' });
    const kim = (await signIn(sdk.client(), 'kim')).record; // linked before MFA
    await sdk.admin.collection('users').update(kim.id, { password: 'kims-password', passwordConfirm: 'kims-password' });
    await sdk.admin.collections.update('users', { otp: { enabled: true }, mfa: { enabled: true } });
    try {
      // OAuth2 first: no session, then the password with the mfaId
      const pb = sdk.client();
      const mfaId = await mfaIdOf(signIn(pb, 'kim'));
      expect(pb.authStore.isValid).toBe(false);
      expect((await sdk.admin.collection('users').getOne(kim.id)).id).toBe(kim.id);
      // the same method again is not a second factor
      const p = (await sdk.client().collection('users').listAuthMethods()).oauth2.providers[0]!;
      const back = await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), 'kim');
      const same = await failure(sdk.client().collection('users').authWithOAuth2Code('oidc', back.searchParams.get('code')!, p.codeVerifier, idp.redirectURL, {}, { mfaId }));
      expect([same.status, same.message], JSON.stringify(same.response)).toEqual([400, 'A different authentication method is required.']);
      const done = await pb.collection('users').authWithPassword('kim@example.com', 'kims-password', { mfaId });
      expect(done.record.id).toBe(kim.id);
      expect(pb.authStore.isValid).toBe(true);

      // the password first, then OAuth2 with the mfaId (a query parameter, as the SDK's options send it)
      const second = await mfaIdOf(sdk.client().collection('users').authWithPassword('kim@example.com', 'kims-password'));
      const p2 = (await sdk.client().collection('users').listAuthMethods()).oauth2.providers[0]!;
      const back2 = await idp.signIn(p2.authURL + encodeURIComponent(idp.redirectURL), 'kim');
      const viaOAuth2 = await sdk.client().collection('users').authWithOAuth2Code('oidc', back2.searchParams.get('code')!, p2.codeVerifier, idp.redirectURL, {}, { mfaId: second });
      expect(viaOAuth2.record.id).toBe(kim.id);
      expect(viaOAuth2.meta?.isNew).toBe(false);

      // a new user signing up through OAuth2: created and linked, then the MFA step (OTP: it has no password it knows)
      idp.accounts.set('lou', { email: 'lou@example.com', email_verified: true, name: 'Lou' });
      const louMfa = await mfaIdOf(signIn(sdk.client(), 'lou'));
      const lou = await sdk.admin.collection('users').getFirstListItem('email = "lou@example.com"');
      expect(lou.verified).toBe(true);
      const { otpId } = await sdk.client().collection('users').requestOTP('lou@example.com');
      const code = await expect.poll(() => codeOf('lou@example.com').catch(() => '')).not.toBe('').then(() => codeOf('lou@example.com'));
      const louIn = await sdk.client().collection('users').authWithOTP(otpId, code, { mfaId: louMfa });
      expect(louIn.record.id).toBe(lou.id);
    } finally {
      await sdk.admin.collections.update('users', { mfa: { enabled: false }, otp: { enabled: false } });
    }
  });

  it('an OAuth2 sign-in from a new device sends the auth alert, as a password sign-in does', async () => {
    await sdk.admin.collections.update('users', { authAlert: { enabled: true } });
    idp.accounts.set('dora', { email: 'dora@example.com', email_verified: true, name: 'Dora' });
    const mails = async () => ((await sdk.admin.send('/api/mails', {})) as { items: { to: string; subject: string }[] }).items.filter((m) => m.to === 'dora@example.com');
    try {
      await signIn(sdk.client(), 'dora'); // the first device: no alert
      const pb = sdk.client();
      pb.beforeSend = (url, options) => ({ url, options: { ...options, headers: { ...options.headers, 'user-agent': 'Another Phone' } } });
      await signIn(pb, 'dora');
      await expect.poll(mails).toHaveLength(1);
      expect((await mails())[0].subject).toBe('Login from a new location');
    } finally {
      await sdk.admin.collections.update('users', { authAlert: { enabled: false } });
    }
  });
});

describe('the SDK\'s all-in-one authWithOAuth2 over realtime, through /api/oauth2-redirect', () => {
  it('signs in: the provider\'s redirect reaches the waiting realtime client, which completes the code exchange', async () => {
    idp.accounts.set('frank', { email: 'frank@example.com', email_verified: true, name: 'Frank' });
    const pb = sdk.client();
    let page = '';
    const res = await pb.collection('users').authWithOAuth2({
      provider: 'oidc',
      urlCallback: async (url) => {
        // the browser: the provider's login, then its redirect to Deskbase's /api/oauth2-redirect
        const back = await idp.signIn(url, 'frank', `${sdk.server.url}/api/oauth2-redirect`);
        page = await (await fetch(back)).text();
      },
    });
    expect(page).toMatch(/Auth completed/);
    expect(res.record.email).toBe('frank@example.com');
    expect(res.meta?.isNew).toBe(true);
    expect(pb.authStore.record?.id).toBe(res.record.id);
  });

  it('a redirect naming no waiting client (a forged state) forwards nothing', async () => {
    const forged = await fetch(`${sdk.server.url}/api/oauth2-redirect?state=nobody-waits-here&code=abc`);
    expect(forged.status).toBe(200);
    expect(await forged.text()).toMatch(/Failed to authenticate/);
    const posted = await fetch(`${sdk.server.url}/api/oauth2-redirect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'state=&code=abc' });
    expect(await posted.text()).toMatch(/Failed to authenticate/);
  });
});

describe('/api/oauth2-redirect with the admin UI built', () => {
  it('sends the browser to the UI\'s success or failure page (307 after a GET, 303 after a POST), and keeps Apple\'s posted name for its code', async () => {
    const ui = mkdtempSync(join(tmpdir(), 'deskbase-ui-'));
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Deskbase</title>');
    const withUi = await startSdkServer({ uiDir: ui });
    try {
      await withUi.admin.collections.update('users', { oauth2: { enabled: true, providers: [provider()] } });
      const forged = await fetch(`${withUi.server.url}/api/oauth2-redirect?state=nobody&code=abc`, { redirect: 'manual' });
      expect([forged.status, forged.headers.get('location')]).toEqual([307, '../_/#/auth/oauth2-redirect-failure']);
      expect(new URL(forged.headers.get('location')!, forged.url).pathname).toBe('/_/');

      const pb = withUi.client();
      let answer: Response | null = null;
      const signIn = pb.collection('users').authWithOAuth2({
        provider: 'oidc',
        urlCallback: async (url) => {
          // a provider that posts its answer (Apple's form_post) with the user's name beside the code
          const state = new URL(url).searchParams.get('state')!;
          const body = new URLSearchParams({ state, code: 'code-from-apple', user: JSON.stringify({ name: { firstName: 'Ann', lastName: 'Apple' }, email: 'ann@example.com' }) });
          answer = await fetch(`${withUi.server.url}/api/oauth2-redirect`, { method: 'POST', body, redirect: 'manual' });
        },
      });
      expect((await failure(signIn)).message).toBe('Failed to fetch OAuth2 token.'); // the code is no real one
      expect([answer!.status, answer!.headers.get('location')]).toEqual([303, '../_/#/auth/oauth2-redirect-success']);
      // kept for that code's sign-in, once (an Apple sign-in reads it when the id_token names no one)
      expect(withUi.server.core.oauth2.takeRedirectName('code-from-apple')).toBe('Ann Apple');
      expect(withUi.server.core.oauth2.takeRedirectName('code-from-apple')).toBe('');
    } finally {
      await withUi.server.close();
      rmSync(ui, { recursive: true, force: true });
    }
  });
});

describe('an OpenID provider without a user-info URL: the id_token', () => {
  it('signs in from the id_token\'s claims, checked against the provider\'s keys and issuer; a wrong issuer is refused', async () => {
    const byToken = (issuers: string[]) => ({ ...provider(), name: 'oidc2', userInfoURL: '', extra: { jwksURL: `${idp.issuer}/jwks`, issuers } });
    const signInWith = async (account: string) => {
      const pb = sdk.client();
      const p = (await pb.collection('users').listAuthMethods()).oauth2.providers.find((x) => x.name === 'oidc2')!;
      const back = await idp.signIn(p.authURL + encodeURIComponent(idp.redirectURL), account);
      return pb.collection('users').authWithOAuth2Code('oidc2', back.searchParams.get('code')!, p.codeVerifier, idp.redirectURL);
    };
    try {
      await sdk.admin.collections.update('users', { oauth2: { providers: [provider(), byToken([idp.issuer])] } });
      idp.accounts.set('jane', { email: 'jane@example.com', email_verified: true, name: 'Jane' });
      const jane = await signInWith('jane');
      expect(jane.record).toMatchObject({ email: 'jane@example.com', name: 'Jane', verified: true });
      expect(jane.meta?.rawUser).toMatchObject({ iss: idp.issuer, aud: idp.clientId, sub: 'jane' });
      await sdk.admin.collections.update('users', { oauth2: { providers: [provider(), byToken(['https://another.example.com'])] } });
      expect((await failure(signInWith('jane'))).message).toBe('Failed to fetch OAuth2 user.');
    } finally {
      await sdk.admin.collections.update('users', { oauth2: { providers: [provider()] } });
    }
  });
});

describe('an avatar mapped to a file field', () => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  /** A server of this machine that is not the provider: no sign-up may make Deskbase ask it anything. */
  let inside: Server;
  let insidePort = 0;
  const insideAsked: string[] = [];
  let redirectsAnswered = 0;
  beforeAll(async () => {
    inside = createServer((req, res) => {
      insideAsked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
    insidePort = (inside.address() as AddressInfo).port;
    // pictures the provider hosts (on loopback, as the admin configured it)
    const picture = (body: Buffer | string, type = 'image/png') => (_req: unknown, res: ServerResponse) => { res.writeHead(200, { 'content-type': type }).end(body); };
    idp.pages.set('/pictures/hank.png', picture(png));
    idp.pages.set('/pictures/huge.png', picture(Buffer.concat([png, Buffer.alloc(6 << 20)])));
    // a page claiming to be a picture
    idp.pages.set('/pictures/page.png', picture('<html><body>not a picture</body></html>'));
    idp.pages.set('/pictures/moved.png', (_req, res) => {
      redirectsAnswered++;
      res.writeHead(302, { location: `http://127.0.0.1:${insidePort}/secret.png` }).end();
    });
    // /pictures/hops-N: N redirects on the provider's host, then the picture
    for (let n = 0; n <= 4; n++) idp.pages.set(`/pictures/hops-${n}`, n === 0 ? picture(png) : (_req, res) => { res.writeHead(302, { location: `/pictures/hops-${n - 1}` }).end(); });
    await sdk.admin.collections.update('users', { oauth2: { mappedFields: { avatarURL: 'avatar' } } });
  });
  afterAll(async () => {
    await sdk.admin.collections.update('users', { oauth2: { mappedFields: { avatarURL: 'picture' } } });
    inside.closeAllConnections();
    await new Promise<void>((resolve) => inside.close(() => resolve()));
  });

  /** A new provider account whose picture is at `picture`, signed up. */
  const signUp = async (account: string, picture: string) => {
    idp.accounts.set(account, { email: `${account}@example.com`, email_verified: true, picture });
    const res = await signIn(sdk.client(), account);
    expect(res.meta?.isNew).toBe(true);
    return res.record;
  };
  /** The users collection's avatar field with `mimeTypes` while `run` runs. */
  const withAvatarTypes = async (mimeTypes: string[], run: () => Promise<void>) => {
    const users = await sdk.admin.collections.getOne('users');
    const fields = (types: unknown) => users.fields.map((f: { name: string }) => (f.name === 'avatar' ? { ...f, mimeTypes: types } : f));
    const before = users.fields.find((f: { name: string }) => f.name === 'avatar')!.mimeTypes as string[];
    await sdk.admin.collections.update('users', { fields: fields(mimeTypes) });
    try {
      await run();
    } finally {
      await sdk.admin.collections.update('users', { fields: fields(before) });
    }
  };

  it('is downloaded from the provider into it (bounded by the field\'s maxSize); one too large is left out and the sign-up goes on', async () => {
    const hank = await signUp('hank', `${idp.issuer}/pictures/hank.png`);
    expect(hank.avatar).toMatch(/^hank_\w+\.png$/);
    const file = await fetch(`${sdk.server.url}/api/files/users/${hank.id}/${hank.avatar}`);
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
    expect((await signUp('ida', `${idp.issuer}/pictures/huge.png`)).avatar).toBe('');
  });

  it('never asks another server of this machine, named or through a redirect of the provider (SSRF); the sign-up goes on without it', async () => {
    for (const [account, picture] of [
      ['ivan', `http://127.0.0.1:${insidePort}/secret.png`], // the provider's address, another port
      ['jack', `http://localhost:${insidePort}/secret.png`], // a name resolving to loopback
      ['kate', `${idp.issuer}/pictures/moved.png`], // the provider's page, redirecting inside
    ]) expect((await signUp(account!, picture!)).avatar, picture).toBe('');
    expect(redirectsAnswered).toBe(1);
    expect(insideAsked).toEqual([]);
  });

  it('follows 3 redirects at most', async () => {
    expect((await signUp('otto', `${idp.issuer}/pictures/hops-3`)).avatar).toMatch(/^hops_3_\w+\.png$/);
    expect((await signUp('pete', `${idp.issuer}/pictures/hops-4`)).avatar).toBe('');
  });

  it('keeps only an image the field takes: another answer is left out and the sign-up goes on', async () => {
    expect((await signUp('liam', `${idp.issuer}/pictures/page.png`)).avatar).toBe('');
    // a field taking any type still gets no page
    await withAvatarTypes([], async () => {
      expect((await signUp('mona', `${idp.issuer}/pictures/page.png`)).avatar).toBe('');
    });
    // an image of a type the field does not take
    await withAvatarTypes(['image/jpeg'], async () => {
      expect((await signUp('nell', `${idp.issuer}/pictures/hank.png`)).avatar).toBe('');
    });
  });
});

describe('_externalAuths', () => {
  it('the owner lists and unlinks its own links; others see none; deleting the user deletes them', async () => {
    idp.accounts.set('dave', { email: 'dave@example.com', email_verified: true, name: 'Dave' });
    const dave = sdk.client();
    const signed = await signIn(dave, 'dave');
    const other = sdk.client();
    await signIn(other, 'alice');
    const own = await dave.collection('_externalAuths').getFullList();
    expect(own.map((l) => l.recordRef)).toEqual([signed.record.id]);
    expect(await other.collection('_externalAuths').getFullList({ filter: `recordRef = "${signed.record.id}"` })).toEqual([]);
    expect((await failure(other.collection('_externalAuths').delete(own[0]!.id))).status).toBe(404);
    expect(await sdk.client().collection('_externalAuths').getFullList()).toEqual([]);
    await dave.collection('_externalAuths').delete(own[0]!.id);
    expect(await dave.collection('_externalAuths').getFullList()).toEqual([]);
    // linked again by the verified e-mail, then the user deleted: its links go with it
    const again = await signIn(sdk.client(), 'dave');
    expect(again.record.id).toBe(signed.record.id);
    await sdk.admin.collection('users').delete(signed.record.id);
    expect(await sdk.admin.collection('_externalAuths').getFullList({ filter: `recordRef = "${signed.record.id}"` })).toEqual([]);
  });
});

describe('OAuth2 options', () => {
  it('never answers the client secret, and keeps it when a change leaves it out', async () => {
    const users = await sdk.admin.collections.getOne('users');
    expect(users.oauth2.providers[0]).not.toHaveProperty('clientSecret');
    expect(JSON.stringify(users)).not.toContain(idp.clientSecret);
    const { clientSecret: _s, ...withoutSecret } = provider();
    await sdk.admin.collections.update('users', { oauth2: { providers: [{ ...withoutSecret, displayName: 'Renamed' }] } });
    idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true });
    expect((await signIn(sdk.client(), 'erin')).meta?.isNew).toBe(true);
    expect((await sdk.client().collection('users').listAuthMethods()).oauth2.providers[0]!.displayName).toBe('Renamed');
  });

  it('refuses what Deskbase cannot honour, naming it, and keeps the stored options', async () => {
    const refused = async (oauth2: unknown) => (await failure(sdk.admin.collections.update('users', { oauth2 }))).response.data.oauth2;
    expect((await refused({ providers: [{ ...provider(), name: 'facebook' }] })).providers['0'].name.code).toBe('validation_not_supported');
    expect((await refused({ providers: [{ ...provider(), name: 'microsoft', extra: { idTokenEmailClaim: 'email' } }] })).providers['0'].extra.idTokenEmailClaim.code).toBe('validation_not_supported');
    expect((await refused({ providers: [{ ...provider(), name: 'nope' }] })).providers['0'].name.code).toBe('validation_missing_provider');
    expect((await refused({ providers: [{ ...provider(), extra: { prompt: 'x' } }] })).providers['0'].extra.prompt.code).toBe('validation_not_supported');
    expect((await refused({ providers: [{ ...provider(), name: 'google', extra: { jwksURL: 'https://x' } }] })).providers['0'].extra.jwksURL.code).toBe('validation_not_supported');
    expect((await refused({ providers: [provider(), provider()] })).providers['1'].name.code).toBe('validation_duplicated_provider');
    expect((await refused({ providers: [{ ...provider(), clientSecret: '', name: 'google' }] })).providers['0'].clientSecret.code).toBe('validation_required');
    expect((await sdk.admin.collections.getOne('users')).oauth2.providers.map((p: { name: string }) => p.name)).toEqual(['oidc']);
  });
});
