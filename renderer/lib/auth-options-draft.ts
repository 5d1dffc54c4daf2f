// An auth collection's options (PocketBase's "Options" tab: OTP, MFA, OAuth2, alerts, token durations,
// e-mail templates) as the editor holds them, and what a save sends of them: only the options the user
// changed, each only by the keys that changed, so an option left alone is never rewritten. The server
// owns what is valid (server/core/auth-options.ts); nothing here decides it. OAuth2 client secrets are
// never answered: a provider's secret is '' until the user types a new one, and '' is not sent (the
// server keeps the stored secret of a provider submitted without one).
import type { Collection } from '../api.js';
import type { AuthOptions, EmailTemplate } from '../../server/model/types.js';

export interface ProviderDraft {
  /** Local key for the list (providers have no id). */
  key: string;
  name: string;
  clientId: string;
  /** '' = keep the stored secret (answers never carry it). */
  clientSecret: string;
  /** Whether the server already has this provider (then its secret is stored). */
  stored: boolean;
  displayName: string;
  authURL: string;
  tokenURL: string;
  userInfoURL: string;
  /** What else the server answered for it (pkce, extra…), sent back as it came. */
  rest: Record<string, unknown>;
}

export type AuthOptionsDraft = Omit<AuthOptions, 'passwordAuth' | 'oauth2'> & {
  oauth2: Omit<AuthOptions['oauth2'], 'providers'> & { providers: ProviderDraft[] };
};

export const TOKEN_OPTIONS = [
  { key: 'authToken', label: 'Auth token' },
  { key: 'verificationToken', label: 'Verification token' },
  { key: 'passwordResetToken', label: 'Password reset token' },
  { key: 'emailChangeToken', label: 'E-mail change token' },
  { key: 'fileToken', label: 'Protected file access token' },
] as const;

export type TemplatePath = 'verificationTemplate' | 'resetPasswordTemplate' | 'confirmEmailChangeTemplate' | 'otp.emailTemplate' | 'authAlert.emailTemplate';

const RECORD = '{RECORD:*}';
/** The e-mail templates, with the placeholders each one fills in (PocketBase's mails/ package). */
export const TEMPLATES: ReadonlyArray<{ path: TemplatePath; label: string; placeholders: string[] }> = [
  { path: 'verificationTemplate', label: 'Verification', placeholders: ['{APP_NAME}', '{APP_URL}', '{TOKEN}', RECORD] },
  { path: 'resetPasswordTemplate', label: 'Password reset', placeholders: ['{APP_NAME}', '{APP_URL}', '{TOKEN}', RECORD] },
  { path: 'confirmEmailChangeTemplate', label: 'E-mail change', placeholders: ['{APP_NAME}', '{APP_URL}', '{TOKEN}', RECORD] },
  { path: 'otp.emailTemplate', label: 'One-time password', placeholders: ['{APP_NAME}', '{APP_URL}', '{OTP}', '{OTP_ID}', RECORD] },
  { path: 'authAlert.emailTemplate', label: 'Sign-in alert', placeholders: ['{APP_NAME}', '{APP_URL}', '{ALERT_INFO}', RECORD] },
];

/** The named providers PocketBase offers most (any other name is typed in; the server says what it takes). */
export const PROVIDER_NAMES = ['google', 'github', 'microsoft', 'apple', 'gitlab', 'discord', 'oidc'];

let nextKey = 0;
const providerKey = () => `p${++nextKey}`;

function providerFrom(raw: unknown): ProviderDraft {
  const p = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const { name, clientId, clientSecret: _secret, displayName, authURL, tokenURL, userInfoURL, ...rest } = p;
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    key: providerKey(), name: s(name), clientId: s(clientId), clientSecret: '', stored: true,
    displayName: s(displayName), authURL: s(authURL), tokenURL: s(tokenURL), userInfoURL: s(userInfoURL), rest,
  };
}

export function newProvider(name: string): ProviderDraft {
  return { key: providerKey(), name, clientId: '', clientSecret: '', stored: false, displayName: '', authURL: '', tokenURL: '', userInfoURL: '', rest: {} };
}

/** The options as the server answered them, or undefined when it answered none (a new collection). */
export function authDraftFrom(c: Collection | undefined): AuthOptionsDraft | undefined {
  if (!c || c.type !== 'auth' || !c.otp || !c.mfa || !c.oauth2 || !c.authAlert) return undefined;
  const o = structuredClone(c) as unknown as AuthOptions;
  return {
    authAlert: o.authAlert,
    oauth2: { enabled: o.oauth2.enabled, mappedFields: o.oauth2.mappedFields, providers: (o.oauth2.providers ?? []).map(providerFrom) },
    mfa: o.mfa,
    otp: o.otp,
    authToken: o.authToken,
    passwordResetToken: o.passwordResetToken,
    emailChangeToken: o.emailChangeToken,
    verificationToken: o.verificationToken,
    fileToken: o.fileToken,
    verificationTemplate: o.verificationTemplate,
    resetPasswordTemplate: o.resetPasswordTemplate,
    confirmEmailChangeTemplate: o.confirmEmailChangeTemplate,
  };
}

/** A provider as submitted: its secret only when a new one was typed. */
function providerBody(p: ProviderDraft): Record<string, unknown> {
  const body: Record<string, unknown> = { ...p.rest, name: p.name, clientId: p.clientId, displayName: p.displayName };
  if (p.clientSecret !== '') body.clientSecret = p.clientSecret;
  if (p.name === 'oidc' || p.authURL || p.tokenURL || p.userInfoURL) Object.assign(body, { authURL: p.authURL, tokenURL: p.tokenURL, userInfoURL: p.userInfoURL });
  return body;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The keys of `now` that differ from `before` (templates whole: subject and body go together). */
function changedKeys(before: Record<string, unknown>, now: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(now)) if (!same(before[k], now[k])) out[k] = now[k];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What a save sends: each changed option, by its changed keys; nothing for what was left alone. */
export function authOptionsBody(before: AuthOptionsDraft | undefined, now: AuthOptionsDraft | undefined): Record<string, unknown> {
  if (!before || !now) return {};
  const body: Record<string, unknown> = {};
  const { oauth2: o2Before, ...restBefore } = before;
  const { oauth2: o2Now, ...restNow } = now;
  for (const key of Object.keys(restNow) as (keyof typeof restNow)[]) {
    const a = restBefore[key] as unknown as Record<string, unknown>;
    const b = restNow[key] as unknown as Record<string, unknown>;
    const changed = changedKeys(a, b);
    if (changed) body[key] = changed;
  }
  const oauth2: Record<string, unknown> = {};
  if (o2Before.enabled !== o2Now.enabled) oauth2.enabled = o2Now.enabled;
  const mapped = changedKeys(o2Before.mappedFields, o2Now.mappedFields);
  if (mapped) oauth2.mappedFields = mapped;
  const plain = (list: ProviderDraft[]) => list.map(({ key: _key, ...p }) => p);
  if (!same(plain(o2Before.providers), plain(o2Now.providers))) oauth2.providers = o2Now.providers.map(providerBody);
  if (Object.keys(oauth2).length > 0) body.oauth2 = oauth2;
  return body;
}

/** The template at `path` of a draft. */
export function templateAt(d: AuthOptionsDraft, path: TemplatePath): EmailTemplate {
  if (path === 'otp.emailTemplate') return d.otp.emailTemplate;
  if (path === 'authAlert.emailTemplate') return d.authAlert.emailTemplate;
  return d[path];
}

/** A duration in seconds, in words beside its input ("3 days", "30 minutes"). */
export function durationWords(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '';
  const units: Array<[number, string]> = [[86400, 'day'], [3600, 'hour'], [60, 'minute'], [1, 'second']];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  const [size, name] = units.find(([size]) => seconds >= size) ?? [1, 'second'];
  return `about ${Math.round(seconds / size)} ${name}s`;
}
