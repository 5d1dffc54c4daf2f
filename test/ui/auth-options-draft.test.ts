// What the collection editor sends of an auth collection's options (renderer/lib/auth-options-draft.ts):
// nothing for options left alone, each changed option by its changed keys, and an OAuth2 client secret
// only when one was typed (the API never answers it; the server keeps the stored one when none is sent).
// The collection is built from the server's own defaults (server/core/auth-options.ts), as the API answers it.
import { describe, expect, it } from 'vitest';
import type { Collection } from '../../renderer/api.js';
import { authDraftFrom, authOptionsBody, durationWords, newProvider } from '../../renderer/lib/auth-options-draft.js';
import { draftFromCollection, toBody } from '../../renderer/lib/collection-draft.js';
import { defaultAuthOptions } from '../../server/core/auth-options.js';

function users(providers: unknown[] = []): Collection {
  const { passwordAuth: _p, ...options } = defaultAuthOptions();
  return {
    id: 'pbc_users', name: 'users', type: 'auth', system: false, fields: [], indexes: [],
    listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, authRule: '', manageRule: null,
    identityFields: ['email'], created: '', updated: '',
    ...options,
    oauth2: { ...options.oauth2, providers },
  } as Collection;
}

const oidc = { name: 'oidc', clientId: 'desk', authURL: 'https://id.example.com/auth', tokenURL: 'https://id.example.com/token', userInfoURL: 'https://id.example.com/me', displayName: 'Company', pkce: null, extra: null };

describe('the auth options a save sends', () => {
  it('sends nothing of the options when none was touched', () => {
    const c = users([oidc]);
    const body = toBody(draftFromCollection(c), false, c);
    for (const key of ['otp', 'mfa', 'oauth2', 'authAlert', 'authToken', 'verificationToken', 'verificationTemplate']) expect(body).not.toHaveProperty(key);
  });

  it('sends a changed option by its changed keys only', () => {
    const c = users();
    const d = draftFromCollection(c);
    d.auth!.otp.duration = 300;
    d.auth!.verificationTemplate.subject = 'Hi';
    d.auth!.mfa.enabled = true;
    expect(authOptionsBody(authDraftFrom(c), d.auth)).toEqual({
      otp: { duration: 300 },
      mfa: { enabled: true },
      verificationTemplate: { subject: 'Hi' },
    });
  });

  it('leaves a stored client secret alone unless a new one is typed', () => {
    const c = users([oidc]);
    const d = draftFromCollection(c);
    expect(d.auth!.oauth2.providers[0].clientSecret).toBe('');
    d.auth!.oauth2.providers[0].clientId = 'desk2';
    const sent = authOptionsBody(authDraftFrom(c), d.auth).oauth2 as { providers: Record<string, unknown>[] };
    expect(sent.providers).toEqual([{ ...oidc, clientId: 'desk2' }]);
    expect(sent.providers[0]).not.toHaveProperty('clientSecret');

    d.auth!.oauth2.providers[0].clientSecret = 'new-secret';
    d.auth!.oauth2.providers.push({ ...newProvider('github'), clientId: 'gh', clientSecret: 'gh-secret' });
    const again = authOptionsBody(authDraftFrom(c), d.auth).oauth2 as { providers: Record<string, unknown>[] };
    expect(again.providers.map((p) => [p.name, p.clientSecret])).toEqual([['oidc', 'new-secret'], ['github', 'gh-secret']]);
  });

  it('removing every provider sends an empty list', () => {
    const c = users([oidc]);
    const d = draftFromCollection(c);
    d.auth!.oauth2.providers = [];
    expect(authOptionsBody(authDraftFrom(c), d.auth)).toEqual({ oauth2: { providers: [] } });
  });

  it('says durations in words', () => {
    expect([durationWords(259200), durationWords(1800), durationWords(180), durationWords(90), durationWords(0)]).toEqual(['3 days', '30 minutes', '3 minutes', '90 seconds', '']);
  });
});
