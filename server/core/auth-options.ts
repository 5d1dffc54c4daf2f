// PocketBase's auth collection options (core/collection_model_auth_options.go): password sign-in,
// OAuth2, OTP, MFA, new-login alerts, token durations and e-mail templates. Every option is stored with
// the collection and answered in PocketBase's shape; what Deskbase does not do yet cannot be turned on
// (a 400 naming the key: "not supported yet"), so no one believes MFA is on when it is not:
//   - passwordAuth: always enabled; its identityFields are the collection's `identityFields`;
//   - oauth2: taken (oauth2.ts), providers as oauth2-providers.ts has them (others refused, naming them);
//   - otp takes effect (account-mail.ts: request-otp, auth-with-otp; its code's length, lifetime, template);
//   - mfa takes effect (sign-in.ts `finish`: a second method with the mfaId; its rule and duration), for
//     every method: password, OTP and OAuth2 (oauth2.ts ends in sign-in.ts `complete`);
//   - authAlert takes effect (account-mail.ts `authAlert`: the new-device mail, also after an OAuth2
//     sign-in); on in new auth collections, as PocketBase's;
//   - authToken: Deskbase's sessions last 7 days, extended on refresh (session-store.ts); fileToken: 3
//     minutes (file-tokens.ts): any other duration is refused;
//   - passwordResetToken, emailChangeToken, verificationToken and verificationTemplate,
//     resetPasswordTemplate, confirmEmailChangeTemplate take effect: the e-mail flows of
//     account-mail.ts read them (token lifetimes, the messages mail/templates.ts makes).
// Token secrets are never stored; OAuth2 client secrets are stored and never answered (shownAuthOptions).
import { fieldError, type ErrorData, type FieldError } from '../errors.js';
import { isRecord } from '../json-object.js';
import { FILE_TOKEN_SECONDS } from './file-tokens.js';
import { SESSION_SECONDS } from './session-store.js';
import type { AuthOptions, Collection, EmailTemplate, OAuth2ProviderConfig, TokenConfig } from '../model/types.js';
import { POCKETBASE_ONLY_PROVIDERS, PROVIDERS } from './oauth2-providers.js';

export type { AuthOptions };

export const AUTH_OPTION_KEYS = [
  'authAlert', 'oauth2', 'passwordAuth', 'mfa', 'otp',
  'authToken', 'passwordResetToken', 'emailChangeToken', 'verificationToken', 'fileToken',
  'verificationTemplate', 'resetPasswordTemplate', 'confirmEmailChangeTemplate',
] as const satisfies readonly (keyof AuthOptions)[];

/** What the collection stores: every option but passwordAuth (always enabled; its identityFields are the collection's). */
export const STORED_AUTH_OPTION_KEYS = AUTH_OPTION_KEYS.filter((k): k is Exclude<keyof AuthOptions, 'passwordAuth'> => k !== 'passwordAuth');

type TokenKey = 'authToken' | 'passwordResetToken' | 'emailChangeToken' | 'verificationToken' | 'fileToken';
type TemplateKey = 'verificationTemplate' | 'resetPasswordTemplate' | 'confirmEmailChangeTemplate';
const TOKEN_KEYS: readonly TokenKey[] = ['authToken', 'passwordResetToken', 'emailChangeToken', 'verificationToken', 'fileToken'];
const TEMPLATE_KEYS: readonly TemplateKey[] = ['verificationTemplate', 'resetPasswordTemplate', 'confirmEmailChangeTemplate'];

/** Token durations Deskbase keeps whatever is configured: only these values are accepted. */
const FIXED_DURATIONS: Partial<Record<TokenKey, { seconds: number; what: string }>> = {
  authToken: { seconds: SESSION_SECONDS, what: 'sessions last 7 days and are extended on each refresh' },
  fileToken: { seconds: FILE_TOKEN_SECONDS, what: 'file tokens last 3 minutes' },
};

/** The longest OTP code (auth-with-otp takes passwords of 1 to 71 characters, as PocketBase). */
export const OTP_MAX_LENGTH = 71;

const signature = (app = '{APP_NAME}') => `<p>\n  Thanks,<br/>\n  ${app} team\n</p>`;

/**
 * PocketBase's defaults (core/collection_model_auth_templates.go) for what a collection has not stored;
 * the new-login alert off here (an older folder's collection stored without it keeps sending none), and
 * on in every auth collection Deskbase makes, as PocketBase's (collections-defaults.ts newCollection).
 */
export function defaultAuthOptions(identityFields: string[] = ['email']): AuthOptions {
  return {
    authAlert: {
      enabled: false,
      emailTemplate: {
        subject: 'Login from a new location',
        body: `<p>Hello,</p>\n<p>We noticed a login to your {APP_NAME} account from a new location:</p>\n<p><em>{ALERT_INFO}</em></p>\n<p><strong>If this wasn't you, you should immediately change your {APP_NAME} account password to revoke access from all other locations.</strong></p>\n<p>If this was you, you may disregard this email.</p>\n${signature()}`,
      },
    },
    oauth2: { enabled: false, mappedFields: { id: '', name: '', username: '', avatarURL: '' }, providers: [] },
    passwordAuth: { enabled: true, identityFields: [...identityFields] },
    mfa: { enabled: false, duration: 1800, rule: '' },
    otp: {
      enabled: false, duration: 180, length: 8,
      emailTemplate: {
        subject: 'OTP for {APP_NAME}',
        body: `<p>Hello,</p>\n<p>Your one-time password is: <strong>{OTP}</strong></p>\n<p><i>If you didn't ask for the one-time password, you can ignore this email.</i></p>\n${signature()}`,
      },
    },
    authToken: { duration: SESSION_SECONDS },
    passwordResetToken: { duration: 1800 },
    emailChangeToken: { duration: 1800 },
    verificationToken: { duration: 259200 },
    fileToken: { duration: FILE_TOKEN_SECONDS },
    verificationTemplate: {
      subject: 'Verify your {APP_NAME} email',
      body: `<p>Hello,</p>\n<p>Thank you for joining us at {APP_NAME}.</p>\n<p>Click on the button below to verify your email address.</p>\n<p>\n  <a class="btn" href="{APP_URL}/_/#/auth/confirm-verification/{TOKEN}" target="_blank" rel="noopener">Verify</a>\n</p>\n${signature()}`,
    },
    resetPasswordTemplate: {
      subject: 'Reset your {APP_NAME} password',
      body: `<p>Hello,</p>\n<p>Click on the button below to reset your password.</p>\n<p>\n  <a class="btn" href="{APP_URL}/_/#/auth/confirm-password-reset/{TOKEN}" target="_blank" rel="noopener">Reset password</a>\n</p>\n<p><i>If you didn't ask to reset your password, you can ignore this email.</i></p>\n${signature()}`,
    },
    confirmEmailChangeTemplate: {
      subject: 'Confirm your {APP_NAME} new email address',
      body: `<p>Hello,</p>\n<p>Click on the button below to confirm your new email address.</p>\n<p>\n  <a class="btn" href="{APP_URL}/_/#/auth/confirm-email-change/{TOKEN}" target="_blank" rel="noopener">Confirm new email</a>\n</p>\n<p><i>If you didn't ask to change your email address, you can ignore this email.</i></p>\n${signature()}`,
    },
  };
}

/** An auth collection's options as stored, defaults filled in (data folders older than the options have none). */
export function authOptionsOf(c: Collection): AuthOptions {
  const out = defaultAuthOptions(c.identityFields);
  for (const key of STORED_AUTH_OPTION_KEYS) if (c[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = structuredClone(c[key]);
  out.passwordAuth = { enabled: true, identityFields: [...(c.identityFields ?? ['email'])] };
  return out;
}

const notSupported = (what: string): FieldError => fieldError('validation_not_supported', `${what} is not supported yet.`);
const invalidValue = (message = 'Invalid or unsupported value type.'): FieldError => fieldError('validation_invalid_value', message);

/** Reads a submitted option object over the current one: the keys it names, nothing else (an unknown key is a 400). */
class OptionObject {
  readonly errors: ErrorData = {};
  constructor(readonly input: Record<string, unknown>, readonly known: readonly string[]) {
    for (const key of Object.keys(input)) if (!known.includes(key)) this.errors[key] = fieldError('validation_unknown_option', `Unknown option "${key}".`);
  }

  has(key: string): boolean {
    return Object.hasOwn(this.input, key);
  }

  bool(key: string, current: boolean): boolean {
    if (!this.has(key)) return current;
    const v = this.input[key];
    if (typeof v === 'boolean') return v;
    this.errors[key] = invalidValue();
    return current;
  }

  string(key: string, current: string): string {
    if (!this.has(key)) return current;
    const v = this.input[key];
    if (typeof v === 'string') return v;
    this.errors[key] = invalidValue();
    return current;
  }

  /** An integer within [min, max] (ozzo's Required, Min, Max when `checked`). */
  int(key: string, current: number, min: number, max: number, checked = true): number {
    if (!this.has(key)) return current;
    const v = this.input[key];
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      this.errors[key] = invalidValue('Must be a whole number of seconds (or characters).');
      return current;
    }
    if (checked && v === 0) this.errors[key] = fieldError('validation_required', 'Cannot be blank.');
    else if (checked && v < min) this.errors[key] = fieldError('validation_min_greater_equal_than_required', `Must be no less than ${min}.`, { threshold: min });
    else if (checked && v > max) this.errors[key] = fieldError('validation_max_less_equal_than_required', `Must be no greater than ${max}.`, { threshold: max });
    return v;
  }

  object(key: string): Record<string, unknown> | undefined {
    if (!this.has(key)) return undefined;
    const v = this.input[key];
    if (isRecord(v)) return v;
    this.errors[key] = invalidValue('Must be an object.');
    return undefined;
  }
}

function readTemplate(input: unknown, current: EmailTemplate, errors: ErrorData, key: string): EmailTemplate {
  if (input === undefined) return current;
  if (!isRecord(input)) {
    errors[key] = invalidValue('Must be an object.');
    return current;
  }
  const r = new OptionObject(input, ['subject', 'body']);
  const out = { subject: r.string('subject', current.subject), body: r.string('body', current.body) };
  // PocketBase validates every template, used or not
  if (r.errors.subject === undefined && out.subject === '') r.errors.subject = fieldError('validation_required', 'Cannot be blank.');
  if (r.errors.body === undefined && out.body === '') r.errors.body = fieldError('validation_required', 'Cannot be blank.');
  if (Object.keys(r.errors).length > 0) errors[key] = r.errors;
  return out;
}

function readToken(key: TokenKey, input: unknown, current: TokenConfig, errors: ErrorData): TokenConfig {
  if (!isRecord(input)) {
    errors[key] = invalidValue('Must be an object.');
    return current;
  }
  const r = new OptionObject(input, ['duration', 'secret']);
  // PocketBase's secret signs its JWTs; Deskbase's sessions are opaque, held on the server (session-store.ts)
  if (r.has('secret') && r.input.secret !== '' && r.input.secret !== null) r.errors.secret = notSupported('Setting a token secret (Deskbase sessions are opaque and kept on the server; end sessions instead)');
  const duration = r.int('duration', current.duration, 10, 94670856);
  const fixed = FIXED_DURATIONS[key];
  if (fixed && r.errors.duration === undefined && duration !== fixed.seconds) {
    r.errors.duration = notSupported(`A ${key} duration other than ${fixed.seconds} seconds (${fixed.what})`);
  }
  if (Object.keys(r.errors).length > 0) errors[key] = r.errors;
  return { duration };
}

const isHttpUrl = (v: string): boolean => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * One submitted OAuth2 provider config (PocketBase's OAuth2ProviderConfig with its validation). A
 * config submitted without `clientSecret` keeps the stored one of the provider of the same name (the
 * answers never carry it). What Deskbase cannot honour is refused naming it: a provider PocketBase has
 * and Deskbase not yet, `extra` settings other than an OpenID provider's jwksURL and issuers and
 * Microsoft's verified idTokenEmailClaim.
 */
function readProvider(input: unknown, stored: readonly OAuth2ProviderConfig[], errors: ErrorData, key: string): OAuth2ProviderConfig {
  const empty: OAuth2ProviderConfig = { name: '', clientId: '', clientSecret: '', authURL: '', tokenURL: '', userInfoURL: '', displayName: '', pkce: null, extra: null };
  if (!isRecord(input)) {
    errors[key] = invalidValue('Must be an object.');
    return empty;
  }
  const r = new OptionObject(input, ['name', 'clientId', 'clientSecret', 'authURL', 'tokenURL', 'userInfoURL', 'displayName', 'pkce', 'extra']);
  const name = r.string('name', '');
  const before = stored.find((p) => p.name === name);
  const p: OAuth2ProviderConfig = {
    name, clientId: r.string('clientId', ''), clientSecret: r.string('clientSecret', ''),
    authURL: r.string('authURL', ''), tokenURL: r.string('tokenURL', ''), userInfoURL: r.string('userInfoURL', ''),
    displayName: r.string('displayName', ''), pkce: null, extra: null,
  };
  if (p.clientSecret === '' && before) p.clientSecret = before.clientSecret;
  if (r.has('pkce') && r.input.pkce !== null) p.pkce = r.bool('pkce', false);
  if (r.has('extra') && r.input.extra !== null) {
    // only the id_token's checks read extra settings (oauth2.ts): an OpenID provider's jwksURL and issuers
    const extra = r.object('extra');
    if (extra) {
      const e = new OptionObject(extra, name.startsWith('oidc') ? ['jwksURL', 'issuers'] : name === 'microsoft' ? ['idTokenEmailClaim'] : []);
      const claim = e.string('idTokenEmailClaim', '');
      // "email" takes an address Microsoft does not vouch for: refused (an account takeover otherwise)
      if (e.errors.idTokenEmailClaim === undefined && !['', 'any_verified', 'verified_primary_email', 'email_and_xms_edov'].includes(claim)) {
        e.errors.idTokenEmailClaim = claim === 'email' ? notSupported('Taking the unverified "email" claim') : fieldError('validation_in_invalid', 'Must be a valid value.');
      }
      const jwks = e.string('jwksURL', '');
      if (e.errors.jwksURL === undefined && jwks !== '' && !isHttpUrl(jwks)) e.errors.jwksURL = fieldError('validation_is_url', 'Must be a valid URL.');
      if (e.has('issuers') && (!Array.isArray(e.input.issuers) || e.input.issuers.some((i) => typeof i !== 'string'))) e.errors.issuers = invalidValue('Must be a list of strings.');
      for (const key of Object.keys(e.errors)) if ((e.errors[key] as FieldError).code === 'validation_unknown_option') e.errors[key] = notSupported(`The provider extra setting "${key}"`);
      if (Object.keys(e.errors).length > 0) r.errors.extra = e.errors;
      else p.extra = extra;
    }
  }
  if (r.errors.name === undefined) {
    if (name === '') r.errors.name = fieldError('validation_required', 'Cannot be blank.');
    else if (POCKETBASE_ONLY_PROVIDERS.has(name)) r.errors.name = notSupported(`The ${name} provider`);
    else if (!Object.hasOwn(PROVIDERS, name)) r.errors.name = fieldError('validation_missing_provider', `Invalid or missing provider with name ${name}.`, { name });
  }
  for (const k of ['clientId', 'clientSecret'] as const) if (r.errors[k] === undefined && p[k] === '') r.errors[k] = fieldError('validation_required', 'Cannot be blank.');
  for (const k of ['authURL', 'tokenURL', 'userInfoURL'] as const) {
    if (r.errors[k] === undefined && p[k] !== '' && !isHttpUrl(p[k])) r.errors[k] = fieldError('validation_is_url', 'Must be a valid URL.');
  }
  const spec = r.errors.name === undefined ? PROVIDERS[name]!() : null;
  if (spec) {
    // the generic OpenID provider has no endpoints of its own
    for (const k of ['authURL', 'tokenURL'] as const) if (r.errors[k] === undefined && p[k] === '' && spec[k] === '') r.errors[k] = fieldError('validation_required', 'Cannot be blank.');
  }
  if (Object.keys(r.errors).length > 0) errors[key] = r.errors;
  return p;
}

/** What the API answers of an auth collection's options: every OAuth2 client secret left out (PocketBase's MarshalJSON). */
export function shownAuthOptions(c: Collection): AuthOptions {
  const o = authOptionsOf(c);
  o.oauth2.providers = o.oauth2.providers.map(({ clientSecret: _secret, ...rest }) => rest as OAuth2ProviderConfig);
  return o;
}

/**
 * The auth options of `input` over `current` (PATCH merges each submitted object onto the stored one,
 * as PocketBase binds JSON onto its struct), validated. `identityFields` is what
 * `passwordAuth.identityFields` sets: the caller validates it with the collection's own identityFields.
 */
export function readAuthOptions(input: Record<string, unknown>, current: AuthOptions, errors: ErrorData): { options: AuthOptions; identityFields?: unknown } {
  const out = structuredClone(current);
  let identityFields: unknown;
  const sub = (key: keyof AuthOptions, known: readonly string[]): OptionObject | undefined => {
    if (!Object.hasOwn(input, key) || input[key] === undefined || input[key] === null) return undefined; // null changes nothing (Go's JSON)
    const v = input[key];
    if (!isRecord(v)) {
      errors[key] = invalidValue('Must be an object.');
      return undefined;
    }
    return new OptionObject(v, known);
  };
  const done = (key: keyof AuthOptions, r: OptionObject) => {
    if (Object.keys(r.errors).length > 0) errors[key] = { ...(errors[key] as ErrorData | undefined), ...r.errors };
  };

  const password = sub('passwordAuth', ['enabled', 'identityFields']);
  if (password) {
    if (!password.bool('enabled', true)) password.errors.enabled = notSupported('Turning password sign-in off');
    if (password.has('identityFields')) identityFields = password.input.identityFields;
    done('passwordAuth', password);
  }

  const oauth2 = sub('oauth2', ['enabled', 'mappedFields', 'providers']);
  if (oauth2) {
    out.oauth2.enabled = oauth2.bool('enabled', out.oauth2.enabled);
    if (oauth2.has('providers') && oauth2.input.providers !== null) {
      const given = oauth2.input.providers;
      if (!Array.isArray(given)) oauth2.errors.providers = invalidValue('Must be an array.');
      else {
        const perr: ErrorData = {};
        out.oauth2.providers = given.map((p, i) => readProvider(p, current.oauth2.providers, perr, String(i)));
        const seen = new Set<string>();
        out.oauth2.providers.forEach((p, i) => {
          if (p.name !== '' && seen.has(p.name) && perr[String(i)] === undefined) {
            perr[String(i)] = { name: fieldError('validation_duplicated_provider', `The provider ${p.name} is already registered.`, { name: p.name }) };
          }
          seen.add(p.name);
        });
        if (Object.keys(perr).length > 0) oauth2.errors.providers = perr;
      }
    }
    const mapped = oauth2.object('mappedFields');
    if (mapped) {
      const m = new OptionObject(mapped, ['id', 'name', 'username', 'avatarURL']);
      out.oauth2.mappedFields = {
        id: m.string('id', out.oauth2.mappedFields.id), name: m.string('name', out.oauth2.mappedFields.name),
        username: m.string('username', out.oauth2.mappedFields.username), avatarURL: m.string('avatarURL', out.oauth2.mappedFields.avatarURL),
      };
      if (Object.keys(m.errors).length > 0) oauth2.errors.mappedFields = m.errors;
    }
    done('oauth2', oauth2);
  }

  const mfa = sub('mfa', ['enabled', 'duration', 'rule']);
  if (mfa) {
    out.mfa.enabled = mfa.bool('enabled', out.mfa.enabled);
    out.mfa.duration = mfa.int('duration', out.mfa.duration, 10, 86400, out.mfa.enabled);
    out.mfa.rule = mfa.string('rule', out.mfa.rule);
    done('mfa', mfa);
  }

  const otp = sub('otp', ['enabled', 'duration', 'length', 'emailTemplate']);
  if (otp) {
    out.otp.enabled = otp.bool('enabled', out.otp.enabled);
    // PocketBase checks duration and length only when OTP is on; a code longer than auth-with-otp's
    // 71 characters could never be redeemed, so Deskbase bounds the length there
    out.otp.duration = otp.int('duration', out.otp.duration, 10, 86400, out.otp.enabled);
    out.otp.length = otp.int('length', out.otp.length, 4, OTP_MAX_LENGTH, out.otp.enabled);
    out.otp.emailTemplate = readTemplate(otp.input.emailTemplate, out.otp.emailTemplate, otp.errors, 'emailTemplate');
    // turned on over values stored while off: they must hold too
    if (out.otp.enabled && otp.errors.duration === undefined && (out.otp.duration < 10 || out.otp.duration > 86400)) otp.errors.duration = invalidValue('Must be between 10 and 86400 seconds.');
    if (out.otp.enabled && otp.errors.length === undefined && (out.otp.length < 4 || out.otp.length > OTP_MAX_LENGTH)) otp.errors.length = invalidValue(`Must be between 4 and ${OTP_MAX_LENGTH}.`);
    done('otp', otp);
  }

  if (out.mfa.enabled) {
    const mfaErrors: ErrorData = { ...(errors.mfa as ErrorData | undefined) };
    // PocketBase: MFA needs at least 2 sign-in methods (password is always one here)
    if (!out.otp.enabled && !out.oauth2.enabled) mfaErrors.enabled ??= fieldError('validation_mfa_not_enough_auths', 'MFA requires at least 2 auth methods to be enabled.');
    if (mfaErrors.duration === undefined && (out.mfa.duration < 10 || out.mfa.duration > 86400)) mfaErrors.duration = invalidValue('Must be between 10 and 86400 seconds.');
    if (Object.keys(mfaErrors).length > 0) errors.mfa = mfaErrors;
  }

  const alert = sub('authAlert', ['enabled', 'emailTemplate']);
  if (alert) {
    out.authAlert.enabled = alert.bool('enabled', out.authAlert.enabled);
    out.authAlert.emailTemplate = readTemplate(alert.input.emailTemplate, out.authAlert.emailTemplate, alert.errors, 'emailTemplate');
    done('authAlert', alert);
  }

  const given = (key: keyof AuthOptions) => Object.hasOwn(input, key) && input[key] !== undefined && input[key] !== null;
  for (const key of TOKEN_KEYS) if (given(key)) out[key] = readToken(key, input[key], out[key], errors);
  for (const key of TEMPLATE_KEYS) if (given(key)) out[key] = readTemplate(input[key], out[key], errors, key);
  return { options: out, identityFields };
}

/**
 * Sets `options` on an auth collection (passwordAuth is not stored: see authOptionsOf). OAuth2 mapped
 * fields that name no field of the collection are unset, as PocketBase's unsetMissingOAuth2MappedFields.
 */
export function storeAuthOptions(c: Collection, options: AuthOptions): void {
  const mapped = options.oauth2.mappedFields;
  for (const k of Object.keys(mapped) as (keyof typeof mapped)[]) if (mapped[k] !== '' && !c.fields.some((f) => f.name === mapped[k])) mapped[k] = '';
  for (const key of STORED_AUTH_OPTION_KEYS) (c as unknown as Record<string, unknown>)[key] = options[key];
}

/** Auth options sent for a collection that is not an auth collection: refused, naming each key. */
export function refuseAuthOptions(input: Record<string, unknown>, errors: ErrorData): void {
  for (const key of AUTH_OPTION_KEYS) {
    if (Object.hasOwn(input, key) && input[key] !== undefined && input[key] !== null) errors[key] = fieldError('validation_auth_only', 'Only auth collections have this option.');
  }
}

/**
 * A foreign collection's auth options (PocketBase's export) as Deskbase can keep them: what Deskbase
 * cannot do is turned off (the import notes it), fixed token durations become Deskbase's (noted here),
 * secrets and OAuth2 providers are left out (OAuth2 stays on where the providers named are `setUp`, the
 * stored collection's), values of the wrong type are skipped (the defaults stay).
 */
export function importableAuthOptions(raw: Record<string, unknown>, note: (key: string, message: string) => void, setUp: readonly OAuth2ProviderConfig[] = []): Partial<Record<keyof AuthOptions, unknown>> {
  const out: Partial<Record<keyof AuthOptions, unknown>> = {};
  const obj = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
  const pickTyped = (v: unknown, keys: Record<string, 'string' | 'number'>): Record<string, unknown> => {
    const o = obj(v);
    const r: Record<string, unknown> = {};
    for (const [k, t] of Object.entries(keys)) if (typeof o[k] === t && (t !== 'number' || Number.isInteger(o[k]))) r[k] = o[k];
    return r;
  };
  const template = (v: unknown) => {
    const t = pickTyped(v, { subject: 'string', body: 'string' });
    return typeof t.subject === 'string' && t.subject !== '' && typeof t.body === 'string' && t.body !== '' ? t : undefined;
  };
  if (isRecord(raw.oauth2)) {
    // providers never travel (no export holds their client secrets): OAuth2 stays on only where every
    // provider the import names is set up here already (`setUp`: this collection's stored providers),
    // as when this collection's own export is imported back; a named provider's other settings that
    // differ from the stored ones are noted, never taken silently
    const given = Array.isArray(raw.oauth2.providers) ? raw.oauth2.providers.filter(isRecord) : [];
    const storedOf = (p: Record<string, unknown>) => setUp.find((s) => s.name === p.name);
    const missing = given.filter((p) => storedOf(p) === undefined).map((p) => String(p.name));
    const differs = (p: Record<string, unknown>, stored: OAuth2ProviderConfig) => Object.keys(p).some((k) => k === 'clientSecret'
      ? p.clientSecret !== '' && p.clientSecret !== stored.clientSecret
      : JSON.stringify(p[k]) !== JSON.stringify((stored as unknown as Record<string, unknown>)[k]));
    const changed = given.filter((p) => { const stored = storedOf(p); return stored !== undefined && differs(p, stored); }).map((p) => String(p.name));
    const on = raw.oauth2.enabled === true && setUp.length > 0 && missing.length === 0;
    if (missing.length > 0) note('OAuth2', `OAuth2 sign-in (${missing.join(', ')}) is off: a provider's client secret is in no export, so providers are not brought over; set ${missing.join(', ')} up here (the collection's OAuth2 options) and turn OAuth2 on.`);
    else if (raw.oauth2.enabled === true && !on) note('OAuth2', 'OAuth2 sign-in is off: no provider is set up here (the collection\'s OAuth2 options).');
    if (changed.length > 0) note('OAuth2 providers', `The settings of ${changed.join(', ')} here are kept: an import does not change OAuth2 providers (edit them in the collection's OAuth2 options).`);
    out.oauth2 = { enabled: on, mappedFields: pickTyped(raw.oauth2.mappedFields, { id: 'string', name: 'string', username: 'string', avatarURL: 'string' }) };
  }
  if (isRecord(raw.mfa)) out.mfa = { enabled: false, ...pickTyped(raw.mfa, { duration: 'number', rule: 'string' }) };
  if (isRecord(raw.otp)) {
    const emailTemplate = template(raw.otp.emailTemplate);
    const otp = pickTyped(raw.otp, { duration: 'number', length: 'number' });
    // OTP sign-in works: kept on when its values hold (PocketBase's checks), else off and noted
    const usable = (d: unknown, l: unknown) => typeof d === 'number' && d >= 10 && d <= 86400 && typeof l === 'number' && l >= 4 && l <= OTP_MAX_LENGTH;
    const on = raw.otp.enabled === true && usable(otp.duration ?? 180, otp.length ?? 8);
    if (raw.otp.enabled === true && !on) note('OTP', `One-time password sign-in is turned off: its duration must be 10 to 86400 seconds and its length 4 to ${OTP_MAX_LENGTH}.`);
    out.otp = { enabled: on, ...otp, ...(emailTemplate ? { emailTemplate } : {}) };
  }
  if (isRecord(raw.authAlert)) {
    const emailTemplate = template(raw.authAlert.emailTemplate);
    out.authAlert = { enabled: raw.authAlert.enabled === true, ...(emailTemplate ? { emailTemplate } : {}) };
  }
  for (const key of TOKEN_KEYS) {
    const duration = obj(raw[key]).duration;
    if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 10 || duration > 94670856) continue;
    const fixed = FIXED_DURATIONS[key];
    if (fixed && duration !== fixed.seconds) note(key, `A duration of ${duration} seconds is not supported yet: ${fixed.what} (${fixed.seconds} seconds).`);
    out[key] = { duration: fixed ? fixed.seconds : duration };
  }
  for (const key of TEMPLATE_KEYS) {
    const t = template(raw[key]);
    if (t) out[key] = t;
  }
  return out;
}
