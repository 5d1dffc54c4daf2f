// The application settings (PocketBase's core/settings_model.go): `GET`/`PATCH /api/settings`.
// Stored as one JSON row of `_params` (key `settings`, as PocketBase keeps them), read from the
// database at each use so every node of a team server sees the same (and, for what every request reads,
// `cached()`: at most CACHE_MS old). What Deskbase honours:
//   - meta (appName, appURL, senderName, senderAddress): the mails' sender and links (mail/);
//   - smtp: sending through an SMTP server (mail/mailer.ts); off, mails go to the outbox;
//   - rateLimits: PocketBase's rules, counted by core/rate-limits.ts for every request (http/app.ts);
//   - trustedProxy: the headers whose client address is believed (http/request.ts clientOf);
//   - batch: answered with what Deskbase does; a different value is a 400 naming the key (Deskbase's
//     batch has fixed limits), never stored and ignored;
//   - logs (maxDays, minLevel, logIP, logAuthId): what the request and hook logs keep (server/logs/);
//   - meta.hideControls: only false (the admin UI has no such mode); s3, backups: refused.
// The SMTP password is never answered (PocketBase omits it); a PATCH without it keeps the stored one.
import type { CoreEnv } from './env.js';
import type { WriteTx } from '../store/db.js';
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

/** PocketBase's default rules, off as in PocketBase (core/rate-limits.ts counts them once on). */
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
  const rateLimits = group(input.rateLimits, current.rateLimits, errors, 'rateLimits');

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
  if (errors.rateLimits === undefined) {
    const r = checkRateLimits(rateLimits);
    if (r) errors.rateLimits = r;
  }
  if (errors.trustedProxy === undefined) {
    const t = checkTrustedProxy(trustedProxy);
    if (t) errors.trustedProxy = t;
  }
  for (const [k, v] of Object.entries(errors)) if (isRecord(v) && !('code' in v) && Object.keys(v).length === 0) delete errors[k];
  if (Object.keys(errors).length > 0) throw badRequest('An error occurred while submitting the form.', errors);
  // each rule with its four keys, audience "" when left out
  const rules = rateLimits.rules.map((rule) => ({ label: rule.label, audience: rule.audience ?? '', duration: rule.duration, maxRequests: rule.maxRequests }));
  return { meta, smtp, batch, rateLimits: { ...rateLimits, rules }, trustedProxy: { ...trustedProxy, headers: [...trustedProxy.headers] }, logs };
}

/** PocketBase's RateLimitRule label: a tag, `collection:action`, `*:action`, a path or path prefix, `METHOD /path`. */
const RULE_LABEL = /^(\w+ \/[\w/-]*|\/[\w/-]*|\w+:\w+|\*:\w+|\w+)$/;
const AUDIENCES = ['', '@guest', '@auth'];
/** Rules matched per request (each a few string comparisons): a bound on that work. */
export const MAX_RATE_LIMIT_RULES = 500;
const RULE_KEYS = ['label', 'audience', 'duration', 'maxRequests'];

/** PocketBase's RateLimitsConfig.Validate: each rule's label, audience, numbers, and no two conflicting. */
function checkRateLimits(r: Settings['rateLimits']): ErrorData | null {
  if (r.enabled && r.rules.length === 0) return { rules: required() };
  if (r.rules.length > MAX_RATE_LIMIT_RULES) return { rules: fieldError('validation_length_too_long', `At most ${MAX_RATE_LIMIT_RULES} rules.`, { max: MAX_RATE_LIMIT_RULES }) };
  const errors: ErrorData = {};
  const seen: string[] = [];
  r.rules.forEach((rule: unknown, i) => {
    if (!isRecord(rule)) {
      errors[i] = invalid('Must be an object.');
      return;
    }
    const e: ErrorData = {};
    for (const k of Object.keys(rule)) if (!RULE_KEYS.includes(k)) e[k] = fieldError('validation_unknown_option', `Unknown option "${k}".`);
    const { label, audience = '', duration, maxRequests } = rule;
    if (typeof label !== 'string' || label === '') e.label = typeof label === 'string' || label === undefined ? required() : invalid();
    else if (!RULE_LABEL.test(label)) e.label = fieldError('validation_match_invalid', 'Must be in a valid format.');
    for (const [k, v] of [['duration', duration], ['maxRequests', maxRequests]] as const) {
      if (v === undefined || v === 0) e[k] = required();
      else if (typeof v !== 'number' || !Number.isSafeInteger(v)) e[k] = invalid();
      else if (v < 1) e[k] = fieldError('validation_min_greater_equal_than_required', 'Must be no less than 1.', { threshold: 1 });
    }
    if (typeof audience !== 'string' || !AUDIENCES.includes(audience)) e.audience = fieldError('validation_in_invalid', 'Must be a valid value.');
    if (Object.keys(e).length > 0) {
      errors[i] = e;
      return;
    }
    const key = `${label as string}@@${audience as string}`;
    if (seen.some((k) => k.startsWith(key) || key.startsWith(k))) {
      errors[i] = { label: fieldError('validation_conflicting_rate_limit_rule', `Rate limit rule configuration with label ${label as string} already exists or conflicts with another rule.`, { label }) };
    } else seen.push(key);
  });
  return Object.keys(errors).length > 0 ? { rules: errors } : null;
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
const MAX_PROXY_HEADERS = 20;

function checkTrustedProxy(t: Settings['trustedProxy']): ErrorData | null {
  if (t.headers.length > MAX_PROXY_HEADERS) return { headers: fieldError('validation_length_too_long', `At most ${MAX_PROXY_HEADERS} headers.`, { max: MAX_PROXY_HEADERS }) };
  const errors: ErrorData = {};
  t.headers.forEach((h: unknown, i) => {
    if (typeof h !== 'string' || !HEADER_NAME.test(h)) errors[i] = fieldError('validation_invalid_header', 'Must be an HTTP header name.');
  });
  return Object.keys(errors).length > 0 ? { headers: errors } : null;
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
  // checked again as a PATCH would (a row from another version, or edited by hand, falls back to the defaults)
  for (const key of ['rateLimits', 'trustedProxy'] as const) {
    if (!isRecord(stored[key])) continue;
    try {
      // over the defaults, so only this key's own checks decide (never another group's stored values)
      (out as unknown as Record<string, unknown>)[key] = mergeSettings(defaultSettings(), { [key]: stored[key] })[key];
    } catch {
      // the default stays
    }
  }
  return out;
}

/**
 * A collection renamed: the rate-limit rules naming it (`<old>:<tag>`) name it by its new name, in the
 * rename's transaction (PocketBase's settings hook on collection update). Other nodes read it within CACHE_MS.
 */
export async function renameRateLimitLabels(tx: WriteTx, from: string, to: string): Promise<void> {
  if (from === to) return;
  const row = await tx.get<{ value: unknown }>('SELECT "value" FROM "_params" WHERE "key" = ?', [SETTINGS_KEY]);
  if (typeof row?.value !== 'string') return;
  let stored: unknown;
  try {
    stored = JSON.parse(row.value);
  } catch {
    return;
  }
  if (!isRecord(stored) || !isRecord(stored.rateLimits) || !Array.isArray(stored.rateLimits.rules)) return;
  let changed = false;
  for (const rule of stored.rateLimits.rules) {
    if (isRecord(rule) && typeof rule.label === 'string' && rule.label.startsWith(`${from}:`)) {
      rule.label = `${to}:${rule.label.slice(from.length + 1)}`;
      changed = true;
    }
  }
  if (changed) await tx.run('UPDATE "_params" SET "value" = ? WHERE "key" = ?', [JSON.stringify(stored), SETTINGS_KEY]);
}

/** How old the settings every request reads (`cached()`: rate limits, trusted proxy) may be: another node's change shows within it. */
export const CACHE_MS = 1000;

export function createSettings(env: Pick<CoreEnv, 'store' | 'dialect' | 'report'>) {
  const { store, dialect } = env;
  const upsert = dialect.upsert('_params', ['key', 'value'], ['key']);
  const read = async (): Promise<unknown> => (await store.get<{ value: unknown }>('SELECT "value" FROM "_params" WHERE "key" = ?', [SETTINGS_KEY]))?.value;
  const get = async (): Promise<Settings> => parseStored(await read());
  let current = defaultSettings();
  /** The stored text `current` was parsed from: the same text keeps the same object (rate-limits.ts counts per rules object). */
  let currentText: unknown;
  let readAt = Number.NEGATIVE_INFINITY;
  /** Moves with each update this node makes: a read begun before it is older than what `current` holds. */
  let generation = 0;
  let reading: Promise<void> | null = null;
  const refresh = (): Promise<void> => {
    if (reading !== null) return reading;
    const began = generation;
    return reading = read()
    .then((text) => {
      if (began !== generation) return; // an update of ours came meanwhile: this read may predate it
      if (text !== currentText || readAt === Number.NEGATIVE_INFINITY) {
        current = parseStored(text);
        currentText = text;
      }
      readAt = performance.now();
    }, (err: unknown) => {
      // the copy kept (an outage: nothing newer can be read), read again once CACHE_MS old, so a request
      // waits for such a read at most once per CACHE_MS
      readAt = performance.now();
      env.report(err);
    })
    .finally(() => { reading = null; });
  };
  // One node alone (the desktop): every change of the settings is its own, in memory from its commit, so
  // its copy is never behind; it is read again in the background, and no request waits for that read
  // (on the desktop a read waits for an open write: a hook looping in one would hold every request).
  const alone = dialect.name !== 'postgres';
  const ifFresh = (): Settings | null => {
    if (performance.now() - readAt < CACHE_MS) return current;
    void refresh();
    return alone ? current : null;
  };
  // what follows the settings in memory (the logs' settings, server/logs/): told after each update stored here
  const listeners: ((settings: Settings) => void)[] = [];
  return {
    /** Hears the settings as each update this node makes commits (other nodes' updates: read them with `get`). */
    onUpdate(listener: (settings: Settings) => void): void {
      listeners.push(listener);
    },

    /** The settings as stored now (one indexed row: every node reads the same). */
    get,

    /** Reads the settings into `cached()` now (at start-up). */
    refresh,

    /**
     * The settings for a request's start (http/app.ts, the fast paths): the copy in memory while it is
     * less than CACHE_MS old, else, on a team server, null after starting a read (`fresh()` waits for
     * it), so a request never holds to a copy older than that (an idle node's copy may be hours old); on
     * the desktop the copy (never behind: see `alone`). This node's own changes at once.
     */
    ifFresh,

    /** As `ifFresh`, waiting for the read when the copy is older (a failed read keeps the copy, reported). */
    fresh(): Settings | Promise<Settings> {
      return ifFresh() ?? refresh().then(() => current);
    },

    /**
     * The settings without waiting, for what a request reads after its start (the rate limits, a batch's
     * sub-requests): its start read them with `fresh()`; an older copy is answered while a fresh one is read.
     */
    cached(): Settings {
      if (performance.now() - readAt >= CACHE_MS) void refresh();
      return current;
    },

    /** PATCH: the body merged over the stored settings, validated, stored; answers them masked. */
    async update(input: Record<string, unknown>): Promise<unknown> {
      // what this node held before (kept from the first attempt: a team server's write may run its
      // transaction again), put back if the change is not stored after all
      let previous: { current: Settings; currentText: unknown } | null = null;
      let mine: Settings | null = null;
      const hold = (settings: Settings, text: unknown): void => {
        generation++;
        current = settings;
        currentText = text;
        for (const listener of listeners) {
          try {
            listener(settings);
          } catch (err) {
            env.report(err);
          }
        }
      };
      return store.write(async (tx) => {
        const row = await tx.get<{ value: unknown }>('SELECT "value" FROM "_params" WHERE "key" = ?', [SETTINGS_KEY]);
        const next = mergeSettings(parseStored(row?.value), input);
        // what Deskbase keeps per installation: batch is fixed
        const text = JSON.stringify({ meta: next.meta, smtp: next.smtp, rateLimits: next.rateLimits, trustedProxy: next.trustedProxy, logs: next.logs });
        await tx.run(upsert, [SETTINGS_KEY, text]);
        // in effect from the commit, not from when it is on disk: a read of the stored settings (which
        // sees the commit at once) never shows settings that requests are not yet held to
        previous ??= { current, currentText };
        mine = next;
        hold(next, text);
        readAt = performance.now();
        return next;
      }).then((next) => maskedSettings(next), (err: unknown) => {
        // not stored after all (its commit or journal write failed): back to what the store holds
        if (previous !== null && current === mine) {
          hold(previous.current, previous.currentText);
          readAt = Number.NEGATIVE_INFINITY;
        }
        throw err;
      });
    },
  };
}

export type SettingsService = ReturnType<typeof createSettings>;
