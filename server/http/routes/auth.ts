// Sign-in and refresh for any auth collection.
import type { H3 } from 'h3';
import { ApiError } from '../../errors.js';
import type { Core } from '../../core/index.js';
import { requestInfo, param, stateOf } from '../request.js';
import { AUTH_BODY_BYTES, readBodyObject } from '../body.js';
import { sameOrigin, sessionCookie } from '../auth.js';
import { expandParam, json, picked } from '../respond.js';

export function registerAuth(app: H3, core: Core): void {
  // what the PocketBase SDK's listAuthMethods() reads: password sign-in only
  app.get('/api/collections/:collection/auth-methods', (event) => {
    const c = core.auth.authCollection(param(event, 'collection'));
    const identityFields = c.identityFields ?? ['email'];
    return picked(event, {
      password: { enabled: true, identityFields },
      oauth2: { enabled: false, providers: [] },
      mfa: { enabled: false, duration: 0 },
      otp: { enabled: false, duration: 0 },
    });
  });

  app.post('/api/collections/:collection/auth-with-password', async (event) => {
    const body = await readBodyObject(event, AUTH_BODY_BYTES);
    const cookie = body.cookie === true;
    if (cookie && !sameOrigin(event)) {
      throw new ApiError(400, 'Cookie sign-in requires an Origin header naming this site.');
    }
    const req = requestInfo(event, body);
    const signIn = await core.auth.signInWithPassword(param(event, 'collection'), body, req, event.req.headers.get('user-agent') ?? '');
    const viewerReq = { ...req, auth: { collection: signIn.collection, record: signIn.record, sessionId: signIn.session.id } };
    const [record] = core.records.present(signIn.collection, [signIn.record], viewerReq, expandParam(event), true);
    const pickedRecord = picked(event, record);
    if (cookie) return json({ record: pickedRecord }, { headers: { 'set-cookie': sessionCookie(signIn.token) } });
    return { token: signIn.token, record: pickedRecord };
  });

  app.post('/api/collections/:collection/auth-refresh', async (event) => {
    const req = requestInfo(event);
    const { auth } = await core.auth.refresh(param(event, 'collection'), req);
    const [record] = core.records.present(auth.collection, [auth.record], req, expandParam(event), true);
    const state = stateOf(event);
    if (state.viaCookie) {
      // cookie sessions get a renewed cookie and no token; the session row keeps its token hash
      const cookie = event.req.headers.get('cookie') ?? '';
      const token = /(?:^|;\s*)service_session=([^;]+)/.exec(cookie)?.[1] ?? '';
      return json({ record: picked(event, record) }, { headers: { 'set-cookie': sessionCookie(token) } });
    }
    return { token: state.bearer, record: picked(event, record) };
  });
}
