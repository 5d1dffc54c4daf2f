// Sign-in and refresh for any auth collection.
import type { H3, H3Event } from 'h3';
import { getCookie, HTTPResponse } from 'h3';
import { MfaRequired, type SignIn } from '../../core/sign-in.js';
import { ApiError, forbidden } from '../../errors.js';
import type { Core } from '../../core/index.js';
import { clientOf, contextOf, param, stateOf } from '../request.js';
import { AUTH_BODY_BYTES, readBodyObject } from '../body.js';
import { authOf, COOKIE_NAME, sameOrigin, sessionCookie } from '../caller.js';
import { isSuperuser } from '../../model/types.js';
import { json, noContent } from '../respond.js';

/** A sign-in that needs a second method answers PocketBase's 401 `{mfaId}` (not the error envelope: the SDK reads `response.mfaId`). */
async function mfaStep<T extends SignIn>(signIn: () => Promise<T>): Promise<T | HTTPResponse> {
  try {
    return await signIn();
  } catch (err) {
    if (err instanceof MfaRequired) return json({ mfaId: err.mfaId }, { status: 401 });
    throw err;
  }
}

/** `hasUi`: the admin UI is built and served (its pages answer the OAuth2 redirect). */
export function registerAuth(app: H3, core: Core, hasUi = false): void {
  app.get('/api/collections/:collection/auth-methods', (event) => core.oauth2.methods(param(event, 'collection'), contextOf(event, core)));

  app.post('/api/collections/:collection/auth-with-password', async (event) => {
    const body = await readBodyObject(event, AUTH_BODY_BYTES);
    const cookie = body.cookie === true;
    if (cookie && !sameOrigin(event)) {
      throw new ApiError(400, 'Cookie sign-in requires an Origin header naming this site.');
    }
    const ctx = contextOf(event, core, body);
    const signIn = await mfaStep(() => core.auth.signInWithPassword(param(event, 'collection'), body, ctx, event.req.headers.get('user-agent') ?? ''));
    if (!('token' in signIn)) return signIn;
    if (cookie) return json({ record: signIn.record }, { headers: { 'set-cookie': sessionCookie(signIn.token) } });
    return { token: signIn.token, record: signIn.record };
  });

  app.post('/api/collections/:collection/auth-refresh', async (event) => {
    const state = stateOf(event);
    const presented = state.viaCookie ? (getCookie(event, COOKIE_NAME) ?? '') : (state.bearer ?? '');
    const { record, token } = await core.auth.refresh(param(event, 'collection'), contextOf(event, core), presented);
    // cookie sessions get a renewed cookie and no token in the body
    if (state.viaCookie) return json({ record }, { headers: { 'set-cookie': sessionCookie(token) } });
    return { token, record };
  });

  // one-time passwords (core/account-mail.ts): request-otp answers {otpId}, auth-with-otp signs in
  app.post('/api/collections/:collection/request-otp', async (event) =>
    core.accountMail.requestOTP(param(event, 'collection'), await readBodyObject(event, AUTH_BODY_BYTES), clientOf(event)));
  app.post('/api/collections/:collection/auth-with-otp', async (event) => {
    const body = await readBodyObject(event, AUTH_BODY_BYTES);
    const signIn = await mfaStep(() => core.accountMail.authWithOTP(param(event, 'collection'), body, contextOf(event, core, body), event.req.headers.get('user-agent') ?? ''));
    if (!('token' in signIn)) return signIn;
    return { token: signIn.token, record: signIn.record };
  });

  // the e-mail flows (core/account-mail.ts): each answers 204 on success
  const flow = (path: string, run: (name: string, body: Record<string, unknown>, event: H3Event) => Promise<void>) => {
    app.post(`/api/collections/:collection/${path}`, async (event) => {
      await run(param(event, 'collection'), await readBodyObject(event, AUTH_BODY_BYTES), event);
      return noContent();
    });
  };
  flow('request-verification', (name, body, event) => core.accountMail.requestVerification(name, body, clientOf(event)));
  flow('confirm-verification', (name, body) => core.accountMail.confirmVerification(name, body));
  flow('request-password-reset', (name, body, event) => core.accountMail.requestPasswordReset(name, body, clientOf(event)));
  flow('confirm-password-reset', (name, body) => core.accountMail.confirmPasswordReset(name, body));
  flow('request-email-change', (name, body, event) => core.accountMail.requestEmailChange(name, authOf(event), body, clientOf(event)));
  flow('confirm-email-change', (name, body, event) => core.accountMail.confirmEmailChange(name, body, clientOf(event)));

  // PocketBase's auth-with-oauth2 (core/oauth2.ts): the provider's code and PKCE verifier for a session
  app.post('/api/collections/:collection/auth-with-oauth2', async (event) => {
    const body = await readBodyObject(event, AUTH_BODY_BYTES);
    const ctx = contextOf(event, core, body);
    const signIn = await mfaStep(() => core.oauth2.signIn(param(event, 'collection'), body, ctx, event.req.headers.get('user-agent') ?? ''));
    if (!('token' in signIn)) return signIn;
    return { token: signIn.token, record: signIn.record, meta: signIn.meta };
  });

  // PocketBase's /api/oauth2-redirect (GET; POST for providers that post the answer, Apple's with the
  // user's name): forwards the provider's code and state to the realtime client waiting on `@oauth2`
  // (the SDK's authWithOAuth2), then sends the browser to the admin UI's page saying so (PocketBase's
  // `#/auth/oauth2-redirect-success` and `-failure`: 307 after a GET, 303 after a POST); without a
  // built admin UI, PocketBase's own texts.
  const oauth2Redirect = async (event: H3Event, data: Record<string, unknown>) => {
    const text = (k: string) => (typeof data[k] === 'string' ? (data[k] as string) : '');
    const form = { state: text('state'), code: text('code'), error: text('error') };
    const sent = form.state !== '' && core.realtime.broker.oauth2Redirect(form.state, clientOf(event), form);
    if (sent && form.error === '' && form.code !== '' && text('user') !== '') core.oauth2.keepRedirectName(form.code, text('user'));
    const ok = sent && form.error === '' && form.code !== '';
    if (hasUi) {
      return new HTTPResponse(null, {
        status: event.req.method === 'GET' ? 307 : 303,
        headers: { location: `../_/#/auth/oauth2-redirect-${ok ? 'success' : 'failure'}`, 'cache-control': 'no-store' },
      });
    }
    return new HTTPResponse(ok ? 'Auth completed. You can close this window and go back to the app.' : 'Failed to authenticate. You can close this window and go back to the app to try again.', {
      status: 200, headers: { 'content-type': `${ok ? 'text/html' : 'text/plain'}; charset=utf-8`, 'cache-control': 'no-store' },
    });
  };
  app.get('/api/oauth2-redirect', (event) => oauth2Redirect(event, Object.fromEntries(new URL(event.req.url).searchParams)));
  app.post('/api/oauth2-redirect', async (event) => oauth2Redirect(event, await readBodyObject(event, AUTH_BODY_BYTES)));

  // PocketBase's impersonate: superusers only (anyone else, signed out included, is its 403)
  app.post('/api/collections/:collection/impersonate/:id', async (event) => {
    const auth = authOf(event);
    if (!auth || !isSuperuser(auth)) throw forbidden();
    const body = await readBodyObject(event, AUTH_BODY_BYTES);
    const signIn = await core.auth.impersonate(param(event, 'collection'), param(event, 'id'), body, contextOf(event, core, body), event.req.headers.get('user-agent') ?? '');
    return { token: signIn.token, record: signIn.record };
  });
}
