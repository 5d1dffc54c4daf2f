// The OAuth2 providers Deskbase signs in with, as PocketBase's tools/auth: each one's published
// endpoints, scopes, PKCE default, and how its user info becomes PocketBase's AuthUser. `email` is only
// ever a VERIFIED address (empty when the provider does not vouch for it): auth-with-oauth2 links an
// existing account by e-mail only then (oauth2.ts), so no one takes over an account by registering its
// address at a provider. The generic `oidc` (and `oidc2`, `oidc3`) has no endpoints of its own: the
// collection's provider config gives them (PocketBase does no discovery either); without a
// userInfoURL it reads the id_token (oauth2.ts idTokenClaims, with `extra.jwksURL` and `extra.issuers`).
import { isRecord } from '../json-object.js';

/** PocketBase's AuthUser, as its `meta` answers it (with `isNew` added by the caller). */
export interface OAuth2User {
  id: string;
  name: string;
  username: string;
  /** Verified only, else ''. */
  email: string;
  avatarURL: string;
  rawUser: Record<string, unknown>;
  accessToken: string;
  refreshToken: string;
  /** The access token's expiry, PocketBase's DateTime text ('' when the provider gave none). */
  expiry: string;
}

export interface ProviderSpec {
  displayName: string;
  authURL: string;
  tokenURL: string;
  userInfoURL: string;
  scopes: string[];
  pkce: boolean;
  /** Providers read from the id_token (no userInfoURL): the keys and issuers it is checked against. */
  jwksURL?: string;
  issuers?: string[];
  /**
   * The user info as PocketBase reads it; `get` fetches another of the provider's URLs with the token
   * (GitHub's e-mails); `idToken` the claims of the id_token the token endpoint answered (Microsoft's e-mail).
   */
  user(raw: Record<string, unknown>, get: (url: string) => Promise<unknown>, idToken?: () => Record<string, unknown>, extra?: Record<string, unknown>): Promise<Omit<OAuth2User, 'rawUser' | 'accessToken' | 'refreshToken' | 'expiry'>>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
/** Go's cast.ToBool: true, "true", "1", 1. */
const truthy = (v: unknown): boolean => v === true || v === 1 || (typeof v === 'string' && ['1', 't', 'true'].includes(v.toLowerCase()));

const oidc = (): ProviderSpec => ({
  displayName: 'OIDC', authURL: '', tokenURL: '', userInfoURL: '', scopes: ['openid', 'email', 'profile'], pkce: true,
  user: async (raw) => ({
    id: str(raw.sub), name: str(raw.name), username: str(raw.preferred_username), avatarURL: str(raw.picture),
    email: truthy(raw.email_verified) ? str(raw.email) : '',
  }),
});

export const PROVIDERS: Readonly<Record<string, () => ProviderSpec>> = {
  oidc, oidc2: oidc, oidc3: oidc,
  google: () => ({
    displayName: 'Google', pkce: true,
    authURL: 'https://accounts.google.com/o/oauth2/v2/auth', tokenURL: 'https://oauth2.googleapis.com/token', userInfoURL: 'https://www.googleapis.com/oauth2/v3/userinfo',
    scopes: ['https://www.googleapis.com/auth/userinfo.profile', 'https://www.googleapis.com/auth/userinfo.email'],
    user: async (raw) => ({ id: str(raw.sub), name: str(raw.name), username: '', avatarURL: str(raw.picture), email: raw.email_verified === true ? str(raw.email) : '' }),
  }),
  github: () => {
    const userInfoURL = 'https://api.github.com/user';
    return {
      displayName: 'GitHub', pkce: true,
      authURL: 'https://github.com/login/oauth/authorize', tokenURL: 'https://github.com/login/oauth/access_token', userInfoURL,
      scopes: ['read:user', 'user:email'],
      user: async (raw, get) => {
        // the profile's e-mail may be unverified: the primary verified address of /user/emails, as PocketBase
        const emails = await get(`${userInfoURL}/emails`);
        const primary = Array.isArray(emails) ? emails.find((e) => isRecord(e) && e.verified === true && e.primary === true) : undefined;
        return { id: str(raw.id), name: str(raw.name), username: str(raw.login), avatarURL: str(raw.avatar_url), email: isRecord(primary) ? str(primary.email) : '' };
      },
    };
  },
  gitlab: () => ({
    displayName: 'GitLab', pkce: true,
    authURL: 'https://gitlab.com/oauth/authorize', tokenURL: 'https://gitlab.com/oauth/token', userInfoURL: 'https://gitlab.com/api/v4/user',
    scopes: ['read_user'],
    // PocketBase trusts the e-mail of an account whose address GitLab confirmed
    user: async (raw) => ({ id: str(raw.id), name: str(raw.name), username: str(raw.username), avatarURL: str(raw.avatar_url), email: str(raw.confirmed_at) !== '' ? str(raw.email) : '' }),
  }),
  // Apple has no user-info URL: the id_token, checked against Apple's keys (PocketBase's apple.go; the
  // name Apple posts once to the redirect is kept a minute for the sign-in: oauth2.ts keepRedirectName)
  apple: () => ({
    displayName: 'Apple', pkce: true,
    authURL: 'https://appleid.apple.com/auth/authorize', tokenURL: 'https://appleid.apple.com/auth/token', userInfoURL: '',
    jwksURL: 'https://appleid.apple.com/auth/keys', issuers: ['https://appleid.apple.com'],
    scopes: ['name', 'email'],
    user: async (raw) => ({ id: str(raw.sub), name: '', username: '', avatarURL: '', email: truthy(raw.email_verified) ? str(raw.email) : '' }),
  }),
  // Microsoft: Graph's /me; its `mail` is not a verified address (an organisation sets it), so unlike
  // PocketBase's default the e-mail comes only from the id_token's verified claims (PocketBase's
  // `extra.idTokenEmailClaim`: any_verified by default, verified_primary_email, email_and_xms_edov)
  microsoft: () => ({
    displayName: 'Microsoft', pkce: true,
    authURL: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize', tokenURL: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    userInfoURL: 'https://graph.microsoft.com/v1.0/me',
    scopes: ['User.Read', 'openid'],
    user: async (raw, _get, idToken, extra) => {
      const claims = idToken ? (() => { try { return idToken(); } catch { return {}; } })() : {};
      const primary = str(claims.verified_primary_email);
      const edov = truthy(claims.xms_edov) ? str(claims.email) : '';
      const mode = str(extra?.idTokenEmailClaim) || 'any_verified';
      const email = mode === 'verified_primary_email' ? primary : mode === 'email_and_xms_edov' ? edov : primary || edov;
      return { id: str(raw.id), name: str(raw.displayName), username: '', avatarURL: '', email };
    },
  }),
  discord: () => ({
    displayName: 'Discord', pkce: true,
    authURL: 'https://discord.com/api/oauth2/authorize', tokenURL: 'https://discord.com/api/oauth2/token', userInfoURL: 'https://discord.com/api/users/@me',
    scopes: ['identify', 'email'],
    user: async (raw) => {
      const id = str(raw.id);
      const avatar = str(raw.avatar);
      const discriminator = str(raw.discriminator);
      // PocketBase: the global name, else the username with a legacy (non-"0") discriminator
      let name = str(raw.global_name);
      if (name === '') name = discriminator !== '' && discriminator !== '0' ? `${str(raw.username)}#${discriminator}` : str(raw.username);
      return {
        id, name, username: str(raw.username),
        avatarURL: avatar !== '' ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : '',
        email: raw.verified === true ? str(raw.email) : '',
      };
    },
  }),
};

/**
 * Providers PocketBase has that Deskbase does not (yet): configuring one is refused with a 400 naming it.
 */
export const POCKETBASE_ONLY_PROVIDERS = new Set([
  'facebook', 'instagram2', 'twitter', 'spotify', 'kakao', 'twitch', 'strava', 'gitee', 'gitea',
  'livechat', 'bitbucket', 'patreon', 'mailcow', 'vk', 'yandex', 'planningcenter', 'notion', 'monday', 'wakatime',
  'linear', 'box', 'lark', 'trakt',
]);
