// The named providers' user mapping (oauth2-providers.ts), on the user-info shapes their APIs publish:
// the e-mail is taken only when the provider vouches for it (Google's email_verified, GitHub's verified
// primary address, GitLab's confirmed_at, Discord's verified), as PocketBase's tools/auth. Their
// endpoints are the published ones; the flow itself is tested against a real OpenID provider (oauth2.test.ts).
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../server/core/oauth2-providers.js';

const noGet = async () => { throw new Error('no other request expected'); };

describe('named OAuth2 providers', () => {
  it('Google: the e-mail only when email_verified', async () => {
    const g = PROVIDERS.google!();
    expect(g.tokenURL).toBe('https://oauth2.googleapis.com/token');
    const raw = { sub: '1', name: 'G', picture: 'https://p', email: 'g@example.com' };
    expect(await g.user({ ...raw, email_verified: true }, noGet)).toMatchObject({ id: '1', name: 'G', avatarURL: 'https://p', email: 'g@example.com' });
    expect((await g.user({ ...raw, email_verified: false }, noGet)).email).toBe('');
  });

  it('GitHub: the verified primary address of /user/emails, never the profile\'s', async () => {
    const gh = PROVIDERS.github!();
    const raw = { id: 42, login: 'octo', name: 'Octo', avatar_url: 'https://a', email: 'profile@example.com' };
    let asked = '';
    const get = (list: unknown) => async (url: string) => { asked = url; return list; };
    const user = await gh.user(raw, get([{ email: 'x@example.com', verified: false, primary: true }, { email: 'y@example.com', verified: true, primary: true }]));
    expect(asked).toBe('https://api.github.com/user/emails');
    expect(user).toMatchObject({ id: '42', username: 'octo', name: 'Octo', avatarURL: 'https://a', email: 'y@example.com' });
    expect((await gh.user(raw, get([{ email: 'x@example.com', verified: false, primary: true }]))).email).toBe('');
  });

  it('GitLab: the e-mail of a confirmed account only', async () => {
    const gl = PROVIDERS.gitlab!();
    const raw = { id: 7, username: 'gl', name: 'GL', avatar_url: 'https://a', email: 'gl@example.com' };
    expect((await gl.user({ ...raw, confirmed_at: '2024-01-02T03:04:05Z' }, noGet)).email).toBe('gl@example.com');
    expect((await gl.user({ ...raw, confirmed_at: null }, noGet)).email).toBe('');
  });

  it('Discord: verified e-mail, avatar URL from the hash, legacy discriminator in the name', async () => {
    const d = PROVIDERS.discord!();
    const raw = { id: '9', username: 'dd', discriminator: '1234', avatar: 'abc', email: 'd@example.com' };
    expect(await d.user({ ...raw, verified: true }, noGet)).toMatchObject({ id: '9', name: 'dd#1234', username: 'dd', avatarURL: 'https://cdn.discordapp.com/avatars/9/abc.png', email: 'd@example.com' });
    expect(await d.user({ ...raw, global_name: 'D', verified: false }, noGet)).toMatchObject({ name: 'D', email: '' });
  });

  it('Apple: read from its id_token, checked against Apple\'s keys and issuer; email_verified as Apple sends it (a string)', async () => {
    const a = PROVIDERS.apple!();
    expect(a).toMatchObject({ userInfoURL: '', jwksURL: 'https://appleid.apple.com/auth/keys', issuers: ['https://appleid.apple.com'] });
    expect(await a.user({ sub: 'a1', email: 'a@privaterelay.appleid.com', email_verified: 'true' }, noGet)).toMatchObject({ id: 'a1', email: 'a@privaterelay.appleid.com' });
    expect((await a.user({ sub: 'a1', email: 'a@example.com', email_verified: 'false' }, noGet)).email).toBe('');
  });

  it('Microsoft: the e-mail only from the id_token\'s verified claims, never Graph\'s unverified mail', async () => {
    const m = PROVIDERS.microsoft!();
    const raw = { id: 'm1', displayName: 'M', mail: 'unverified@example.com' };
    const claims = (c: Record<string, unknown>) => () => c;
    expect(await m.user(raw, noGet, claims({}), {})).toMatchObject({ id: 'm1', name: 'M', email: '' });
    expect((await m.user(raw, noGet, claims({ verified_primary_email: 'p@example.com' }), {})).email).toBe('p@example.com');
    expect((await m.user(raw, noGet, claims({ email: 'e@example.com', xms_edov: true }), {})).email).toBe('e@example.com');
    expect((await m.user(raw, noGet, claims({ email: 'e@example.com', xms_edov: true }), { idTokenEmailClaim: 'verified_primary_email' })).email).toBe('');
    expect((await m.user(raw, noGet, claims({ email: 'e@example.com', xms_edov: false }), {})).email).toBe('');
  });

  it('OIDC: email_verified as a boolean or a string', async () => {
    const o = PROVIDERS.oidc!();
    expect((await o.user({ sub: 's', email: 'o@example.com', email_verified: 'true' }, noGet)).email).toBe('o@example.com');
    expect((await o.user({ sub: 's', email: 'o@example.com' }, noGet)).email).toBe('');
  });
});
