// Realtime subscriptions as PocketBase reads them (tools/subscriptions): `COLLECTION/*`,
// `COLLECTION/RECORD_ID` (and the deprecated bare `COLLECTION`, the same as `/*`), each with an optional
// `?options={"query":{...},"headers":{...}}` as the SDK appends it. The whole string is the event name the
// client listens for. The form's limits are PocketBase's: 1,000 subscriptions of 2,500 characters.
import { badRequest, fieldError, type ErrorData } from '../../errors.js';
import { isRecord } from '../../json-object.js';
import { setOwn } from '../own-keys.js';

export const MAX_SUBSCRIPTIONS = 1000;
export const MAX_TOPIC_LENGTH = 2500;

/**
 * A subscription's options: the `query` options (filter, expand, fields...) as strings and the
 * `headers` snake_cased. One object per distinct options string, shared by every subscription that
 * sends it (the broker interns them), so a thousand topics with the same options hold them once.
 */
export interface SubscriptionOptions {
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  /** The options as one string: subscribers with the same one (and identity) share a rule check. */
  readonly key: string;
}

export interface Subscription {
  /** As the client sent it: the SSE event name of its messages. */
  readonly raw: string;
  /** The topic without options: `posts/*`, `posts/abc`, or `posts`. */
  readonly topic: string;
  /** `*` for the whole collection (listRule), else a record id (viewRule). */
  readonly recordId: string;
  readonly options: SubscriptionOptions;
}

/** PocketBase's cast.ToString for option values: strings as they are, numbers and booleans spelled out. */
function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

function stringMap(v: unknown, key: (k: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(v)) for (const [k, value] of Object.entries(v)) setOwn(out, key(k), asString(value));
  return out;
}

/** `X-Token` → `x_token`, as PocketBase's inflector.Snakecase and our rule headers. */
const snake = (k: string): string => k.toLowerCase().replace(/-/g, '_');

export function parseSubscription(raw: string, intern: (options: SubscriptionOptions) => SubscriptionOptions = (o) => o): Subscription {
  const q = raw.indexOf('?');
  const topic = q < 0 ? raw : raw.slice(0, q);
  let options: unknown = null;
  if (q >= 0) {
    // options that do not parse are ignored, as PocketBase does (the subscription itself stands)
    try {
      const text = new URLSearchParams(raw.slice(q + 1)).get('options');
      if (text) options = JSON.parse(text);
    } catch {
      options = null;
    }
  }
  const query = stringMap(isRecord(options) ? options.query : null, (k) => k);
  const headers = stringMap(isRecord(options) ? options.headers : null, snake);
  const slash = topic.indexOf('/');
  return {
    raw, topic, recordId: slash < 0 ? '*' : topic.slice(slash + 1),
    options: intern({ query, headers, key: JSON.stringify([query, headers]) }),
  };
}

// eslint-disable-next-line no-control-regex -- a newline in a name would end the SSE event line early
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The POST body: `{clientId, subscriptions}`, checked as PocketBase's form, with its field errors. The
 * subscriptions come back as the distinct non-empty strings sent (parsed by the broker, which interns
 * their options and charges them to the client's subscription limits).
 */
export function parseSubscribeForm(body: Record<string, unknown>): { clientId: string; subscriptions: string[] } {
  const errors: ErrorData = {};
  const clientId = body.clientId;
  if (typeof clientId !== 'string' || clientId === '') errors.clientId = fieldError('validation_required', 'Cannot be blank.');
  else if (clientId.length > 255) errors.clientId = fieldError('validation_length_out_of_range', 'The length must be between 1 and 255.');
  const subs = body.subscriptions ?? [];
  if (!Array.isArray(subs) || subs.some((s) => typeof s !== 'string')) {
    errors.subscriptions = fieldError('validation_invalid_value', 'Must be a list of strings.');
  } else if (subs.length > MAX_SUBSCRIPTIONS) {
    errors.subscriptions = fieldError('validation_length_too_long', `The length must be no more than ${MAX_SUBSCRIPTIONS}.`);
  } else {
    const bad: ErrorData = {};
    subs.forEach((s: string, i) => {
      if (s.length > MAX_TOPIC_LENGTH) bad[i] = fieldError('validation_length_out_of_range', `The length must be between 0 and ${MAX_TOPIC_LENGTH}.`);
      else if (CONTROL.test(s)) bad[i] = fieldError('validation_invalid_value', 'Must not contain control characters.');
    });
    if (Object.keys(bad).length > 0) errors.subscriptions = bad;
  }
  if (Object.keys(errors).length > 0) throw badRequest('An error occurred while validating the submitted data.', errors);
  const list = (subs as string[]).filter((s) => s !== ''); // empty ones are skipped, as PocketBase does
  return { clientId: clientId as string, subscriptions: [...new Set(list)] };
}
