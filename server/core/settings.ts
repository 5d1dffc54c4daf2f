// The application settings (PocketBase's core/settings_model.go): `GET`/`PATCH /api/settings`.
// Stored as one JSON row of `_params` (key `settings`, as PocketBase keeps them), read from the
// database at each use so every node of a team server sees the same settings. What Deskbase honours:
//   - meta (appName, appURL, senderName, senderAddress): the mails' sender and links (mail/);
//   - smtp: sending through an SMTP server (mail/mailer.ts); off, mails go to the outbox;
//   - batch, rateLimits, trustedProxy: answered with what Deskbase does; a different value is a 400
//     naming the key (Deskbase's batch has fixed limits, its own bounds instead of PocketBase's
//     rate-limit rules, and believes no proxy header yet), never stored and ignored;
//   - logs (maxDays, minLevel, logIP, logAuthId): what the request and hook logs keep (server/logs/);
//   - meta.hideControls: only false (the admin UI has no such mode); s3, backups: refused.
// The SMTP password is never answered (PocketBase omits it); a PATCH without it keeps the stored one.
import type { CoreEnv } from './env.js';
import { badRequest, fieldError, type ErrorData, type FieldError } from '../errors.js';
import { isRecord } from '../json-object.js';
import { MAX_BATCH_REQUESTS } from './batch.js';

export interface Settings {
  meta: { appName: string; appURL: string; senderName: string; senderAddress: string; hideControls: boolean };
  smtp: { enabled: boolean; port: number; host: string; username: string; password: string; authMethod: string; tls: boolean; localName: string };
  batch: { enabled: boolean; maxRequests: number; timeout: number; maxBodySize: number };
  rateLimits: { enabled: boolean; rules: { label: string; audience: string; maxRequests: number; duration: number }[] };
  trustedProxy: { headers: string[]; useLeftmostIP: boolean };
  logs: LogsSettings;
}

/** PocketBase's LogsConfig: days kept (0: no logs), the lowest level kept, and what a request's log holds. */
export type LogsSettings = { maxDays: number; minLevel: number; logIP: boolean; logAuthId: boolean };

const SETTINGS_KEY = 'settings';

/** Deskbase's batch as it is (core/batch.ts; 128 MiB is the HTTP layer's multipart batch body limit). */
const BATCH = { enabled: true, maxRequests: MAX_BATCH_REQUESTS, timeout: 0, maxBodySize: 128 * 1024 * 1024 };

/** PocketBase's default rules, answered off: Deskbase bounds clients its own way (docs/architecture.md). */
const RATE_LIMITS: Settings['rateLimits'] = {
  enabled: false,
  rules: [
    { label: '*:auth', audience: '', maxRequests: 2, duration: 3 },
    { label: '*:create', audience: '', maxRequests: 20, duration: 5 },
    { label: '/api/batch', audience: '', maxRequests: 3, duration: 1 },
    { label: '/api/', audience: '', maxRequests: 300, duration: 10 },
  ],
};

export function defaultSettings(): Settings {
  return {
    meta: { appName: 'Acme', appURL: 'http://localhost:8090', senderName: 'Support', senderAddress: 'support@example.com', hideControls: false },
    smtp: { enabled: false, port: 587, host: 'smtp.example.com', username: '', password: '', authMethod: '', tls: false, localName: '' },
    batch: { ...BATCH },
    rateLimits: structuredClone(RATE_LIMITS),
    trustedProxy: { headers: [], useLeftmostIP: false },
    logs: { maxDays: 5, minLevel: 0, logIP: true, logAuthId: false },
  };
}

/** What a client is shown: the SMTP password left out (PocketBase's masking). */
export function maskedSettings(s: Settings): unknown {
  const { password: _password, ...smtp } = s.smtp;
  return { ...s, smtp };
}

const invalid = (message = 'Invalid value.'): FieldError => fieldError('validation_invalid_value', message);
const required = (): FieldError => fieldError('validation_required', 'Cannot be blank.');
const notSupported = (what: string): FieldError => fieldError('validation_not_supported', `${what} is not supported yet.`);

// ozzo's is.Host / is.EmailFormat / is.URL, near enough: a DNS name or an IP address; one @ between non-empty parts
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$|^\d{1,3}(?:\.\d{1,3}){3}$|^\[?[0-9a-fA-F:]+\]?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function isUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Reads one submitted group onto its current value: known keys of the right type, the rest errors. */
function group<T extends Record<string, unknown>>(input: unknown, current: T, errors: ErrorData, key: string): T {
  if (input === undefined || input === null) return current;
  if (!isRecord(input)) {
    errors[key] = invalid('Must be an object.');
    return current;
  }
  const out: Record<string, unknown> = { ...current };
  const e: ErrorData = {};
  for (const [k, v] of Object.entries(input)) {
    if (!Object.hasOwn(current, k)) e[k] = fieldError('validation_unknown_option', `Unknown option "${k}".`);
    else if (typeof v !== typeof current[k] || (typeof v === 'number' && !Number.isInteger(v))) e[k] = invalid();
    else if (Array.isArray(current[k]) !== Array.isArray(v)) e[k] = invalid();
    else out[k] = v;
  }
  if (Object.keys(e).length > 0) errors[key] = e;
  return out as T;
}

/** Equal as JSON values, whatever the order of their keys. */
function same(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown => Array.isArray(v) ? v.map(canon) : isRecord(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

/** The settings `input` makes of `current`, validated as PocketBase does; a 400 naming every problem. */
export function mergeSettings(current: Settings, input: Record<string, unknown>): Settings {
  const errors: ErrorData = {};
  const known = ['meta', 'smtp', 'batch', 'rateLimits', 'trustedProxy', 'logs'];
  for (const key of Object.keys(input)) {
    if (known.includes(key)) continue;
    errors[key] = ['s3', 'backups'].includes(key)
      ? notSupported(`The "${key}" settings`)
      : fieldError('validation_unknown_option', `Unknown option "${key}".`);
  }
  const meta = group(input.meta, current.meta, errors, 'meta');
  const smtp = group(input.smtp, current.smtp, errors, 'smtp');
  const batch = group(input.batch, current.batch, errors, 'batch');
  const trustedProxy = group(input.trustedProxy, current.trustedProxy, errors, 'trustedProxy');
  const logs = group(input.logs, current.logs, errors, 'logs');
  let rateLimits = current.rateLimits;
  if (input.rateLimits !== undefined && input.rateLimits !== null) {
    if (!isRecord(input.rateLimits)) errors.rateLimits = invalid('Must be an object.');
    else rateLimits = { ...current.rateLimits, ...input.rateLimits } as Settings['rateLimits'];
  }

  const sub = (key: string): ErrorData => (errors[key] ??= {}) as ErrorData;
  if (errors.meta === undefined) {
    const m = sub('meta');
    if (meta.appName === '') m.appName = required();
    else if (meta.appName.length > 255) m.appName = fieldError('validation_length_out_of_range', 'The length must be between 1 and 255.', { min: 1, max: 255 });
    if (meta.appURL === '') m.appURL = required();
    else if (!isUrl(meta.appURL)) m.appURL = fieldError('validation_is_url', 'Must be a valid URL.');
    if (meta.senderName === '') m.senderName = required();
    else if (meta.senderName.length > 255) m.senderName = fieldError('validation_length_out_of_range', 'The length must be between 1 and 255.', { min: 1, max: 255 });
    if (meta.senderAddress === '') m.senderAddress = required();
    else if (!EMAIL.test(meta.senderAddress)) m.senderAddress = fieldError('validation_is_email', 'Must be a valid email address.');
    if (meta.hideControls) m.hideControls = notSupported('Hiding the admin UI controls');
  }
  if (errors.smtp === undefined) {
    const s = sub('smtp');
    if (smtp.enabled && smtp.host === '') s.host = required();
    else if (smtp.host !== '' && !HOST.test(smtp.host)) s.host = fieldError('validation_is_host', 'Must be a valid hostname or IP address.');
    if (smtp.enabled && smtp.port === 0) s.port = required();
    else if (smtp.port < 0 || smtp.port > 65535) s.port = fieldError('validation_max_less_equal_than_required', 'Must be no greater than 65535.', { threshold: 65535 });
    if (!['', 'PLAIN', 'LOGIN'].includes(smtp.authMethod)) s.authMethod = fieldError('validation_in_invalid', 'Must be a valid value.');
    if (smtp.localName !== '' && !HOST.test(smtp.localName)) s.localName = fieldError('validation_is_host', 'Must be a valid hostname or IP address.');
  }
  if (errors.logs === undefined) {
    const l = sub('logs');
    if (logs.maxDays < 0) l.maxDays = fieldError('validation_min_greater_equal_than_required', 'Must be no less than 0.', { threshold: 0 });
  }
  if (errors.batch === undefined && !same(batch, BATCH)) {
    errors.batch = notSupported(`Changing the batch settings (Deskbase's batch is always on, up to ${MAX_BATCH_REQUESTS} requests and 128 MiB)`);
  }
  if (errors.rateLimits === undefined && !same(rateLimits, RATE_LIMITS)) {
    errors.rateLimits = notSupported('Rate-limit rules (Deskbase bounds each client by its own limits)');
  }
  if (errors.trustedProxy === undefined && (trustedProxy.headers.length > 0 || trustedProxy.useLeftmostIP)) {
    errors.trustedProxy = notSupported('Trusting proxy headers');
  }
  for (const [k, v] of Object.entries(errors)) if (isRecord(v) && !('code' in v) && Object.keys(v).length === 0) delete errors[k];
  if (Object.keys(errors).length > 0) throw badRequest('An error occurred while submitting the form.', errors);
  return { meta, smtp, batch, rateLimits, trustedProxy, logs };
}

/** The stored settings over the defaults (a folder from before settings has none). */
function parseStored(value: unknown): Settings {
  const out = defaultSettings();
  let stored: unknown;
  try {
    stored = typeof value === 'string' ? JSON.parse(value) : null;
  } catch {
    stored = null;
  }
  if (!isRecord(stored)) return out;
  if (isRecord(stored.meta)) out.meta = { ...out.meta, ...(stored.meta as Partial<Settings['meta']>) };
  if (isRecord(stored.smtp)) out.smtp = { ...out.smtp, ...(stored.smtp as Partial<Settings['smtp']>) };
  if (isRecord(stored.logs)) out.logs = { ...out.logs, ...(stored.logs as Partial<Settings['logs']>) };
  return out;
}

export function createSettings(env: Pick<CoreEnv, 'store' | 'dialect'>) {
  const { store, dialect } = env;
  const upsert = dialect.upsert('_params', ['key', 'value'], ['key']);
  // what follows the settings in memory (the logs' settings, server/logs/): told after each update stored here
  const listeners: ((settings: Settings) => void)[] = [];
  return {
    /** Hears the settings after each update this node stores (other nodes' updates: read them with `get`). */
    onUpdate(listener: (settings: Settings) => void): void {
      listeners.push(listener);
    },

    /** The settings as stored now (one indexed row: every node reads the same). */
    async get(): Promise<Settings> {
      const row = await store.get<{ value: unknown }>('SELECT "value" FROM "_params" WHERE "key" = ?', [SETTINGS_KEY]);
      return parseStored(row?.value);
    },

    /** PATCH: the body merged over the stored settings, validated, stored; answers them masked. */
    async update(input: Record<string, unknown>): Promise<unknown> {
      const next = await store.write(async (tx) => {
        const row = await tx.get<{ value: unknown }>('SELECT "value" FROM "_params" WHERE "key" = ?', [SETTINGS_KEY]);
        const merged = mergeSettings(parseStored(row?.value), input);
        // only what Deskbase keeps per installation: batch, rateLimits and trustedProxy are fixed
        await tx.run(upsert, [SETTINGS_KEY, JSON.stringify({ meta: merged.meta, smtp: merged.smtp, logs: merged.logs })]);
        return merged;
      });
      for (const listener of listeners) listener(next);
      return maskedSettings(next);
    },
  };
}

export type SettingsService = ReturnType<typeof createSettings>;
