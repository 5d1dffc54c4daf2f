// The caller's own sessions: GET/DELETE /session, GET /sessions, DELETE /sessions/{id}; and, for
// superusers only, any auth record's sessions: GET/DELETE /collections/{c}/records/{id}/sessions[/{sid}].
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import type { SessionRow } from '../../core/session-store.js';
import { authOf, clearedCookie, requireAuth, requireSuperuser } from '../caller.js';
import { param, stateOf } from '../request.js';
import { json, noContent } from '../respond.js';

export function registerSessions(app: H3, core: Core): void {
  const view = (s: SessionRow, currentId: string) => ({
    id: s.id, created: s.created, expires: s.expires, lastActive: core.sessions.lastActive(s), userAgent: s.userAgent, current: s.id === currentId,
  });

  app.get('/api/session', async (event) => {
    const auth = authOf(event);
    const s = auth ? await core.auth.getSession(auth) : undefined;
    if (!auth || !s) return json(null);
    const email = typeof auth.record.email === 'string' ? auth.record.email : '';
    return { ...view(s, auth.sessionId), record: { collectionName: auth.collection.name, id: String(auth.record.id), email } };
  });

  app.delete('/api/session', async (event) => {
    await core.auth.endSession(authOf(event));
    return noContent(stateOf(event).viaCookie || event.req.headers.has('cookie') ? { 'set-cookie': clearedCookie() } : {});
  });

  app.get('/api/sessions', async (event) => {
    const auth = requireAuth(event);
    return { items: (await core.auth.listSessions(auth)).map((s) => view(s, auth.sessionId)) };
  });

  app.delete('/api/sessions/:id', async (event) => {
    const auth = requireAuth(event);
    const id = param(event, 'id');
    await core.auth.revoke(auth, id);
    const clear = id === auth.sessionId && stateOf(event).viaCookie;
    return noContent(clear ? { 'set-cookie': clearedCookie() } : {});
  });

  const ofRecord = '/api/collections/:collection/records/:id/sessions';
  app.get(ofRecord, async (event) => {
    const auth = requireSuperuser(event);
    return { items: (await core.auth.sessionsOf(param(event, 'collection'), param(event, 'id'))).map((s) => view(s, auth.sessionId)) };
  });

  app.delete(`${ofRecord}/:sessionId`, async (event) => {
    const auth = requireSuperuser(event);
    const id = param(event, 'sessionId');
    await core.auth.revokeOf(param(event, 'collection'), param(event, 'id'), id);
    // A superuser ending its own current cookie session from its record: the cookie goes too.
    return noContent(id === auth.sessionId && stateOf(event).viaCookie ? { 'set-cookie': clearedCookie() } : {});
  });
}
