// PocketBase's rate-limit rules (settings `rateLimits`; its apis/middlewares_rate_limit.go and
// core/settings_model.go FindRateLimitRule), when `enabled`: each request is matched against the rules
// by its labels, first the collection's tags (`users:auth`, then `*:auth`), then `METHOD /path` and
// `/path` (a label ending in `/` is a path prefix), the first rule of the request's audience wins
// (`""` everyone, `@guest` signed out, `@auth` signed in; superusers are never limited), and the
// client (its address as `clientOf` reads it, trusted proxy included) gets `maxRequests` per `duration`
// seconds of that rule: PocketBase's fixed window, refilled once `duration` seconds have passed since
// the last request it let through. Past it, the request is PocketBase's 429.
// The counters are in memory, per server: on a team server each node counts its own requests (a
// client spread over three nodes may make up to three times the rule). Every bound Deskbase keeps on
// its own (connections per address, the sign-in block, account-mail's per-client requests) stays on
// whether or not these rules are.
import { ApiError } from '../errors.js';
import type { Settings } from './settings.js';

export type RateLimitRule = Settings['rateLimits']['rules'][number];

/** A request as the rules see it. */
export interface RateLimitRequest {
  method: string;
  path: string;
  /** Signed in (any record but a superuser, who is never limited). */
  signedIn: boolean;
  /** The client's key (http/request.ts clientOf). */
  client: string;
  /**
   * A collection route's collection and its action tags (`['authWithPassword', 'auth']`), else null;
   * `alsoGlobal`: the path's own rule is counted too (PocketBase's record routes and batch sub-requests
   * check their tags in the handler, after its global middleware).
   */
  collection: { id: string; name: string; route: string; tags: string[]; alsoGlobal: boolean } | null;
}

/** PocketBase's FindRateLimitRule: exact labels in order, a `/`-ending label as a prefix of the first. */
export function findRule(rules: readonly RateLimitRule[], labels: readonly string[], audiences: readonly string[]): RateLimitRule | null {
  const prefixes: RateLimitRule[] = [];
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    for (const rule of rules) {
      if (label === rule.label && audiences.includes(rule.audience)) return rule;
      if (i === 0 && rule.label.endsWith('/')) prefixes.push(rule);
    }
    for (const rule of prefixes) {
      if ((label + '/').startsWith(rule.label) && audiences.includes(rule.audience)) return rule;
    }
  }
  return null;
}

interface Window {
  available: number;
  /** Seconds (Unix) of the last request let through. */
  last: number;
}

/** Clients kept per rule, at most: a bound on memory, whatever the number of addresses a client has. */
const MAX_CLIENTS = 50_000;

/**
 * A rule's clients in two generations: new clients go into `recent`; once it holds half of MAX_CLIENTS
 * it becomes `older` and the previous `older` is dropped whole (no scan: no request pays for the
 * others'). A client found in `older` moves back into `recent`. So the clients seen least recently go
 * first, and a dropped one starts afresh, as one whose window has passed does.
 */
class Clients {
  private recent = new Map<string, Window>();
  private older = new Map<string, Window>();

  get(key: string): Window {
    let w = this.recent.get(key);
    if (w) return w;
    w = this.older.get(key);
    if (w) this.older.delete(key);
    else w = { available: 0, last: 0 };
    if (this.recent.size >= MAX_CLIENTS / 2) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, w);
    return w;
  }
}

export function createRateLimiter(now: () => number) {
  /** Per limiter id (the rule's label and audience, or the collection route's), per client. */
  const limiters = new Map<string, { rule: RateLimitRule; clients: Clients }>();
  let rulesSeen: readonly RateLimitRule[] | null = null;

  const consume = (id: string, rule: RateLimitRule, client: string): boolean => {
    let limiter = limiters.get(id);
    if (!limiter || limiter.rule !== rule) {
      limiter = { rule, clients: new Clients() };
      limiters.set(id, limiter);
    }
    const t = Math.floor(now() / 1000);
    const w = limiter.clients.get(client);
    if (t - w.last >= rule.duration) w.available = rule.maxRequests;
    if (w.available <= 0) return false;
    w.available--;
    w.last = t;
    return true;
  };

  return {
    /** Throws PocketBase's 429 when the request is over its rule (nothing when the rules are off). */
    check(settings: Settings['rateLimits'], req: RateLimitRequest): void {
      if (!settings.enabled || req.client === '') return;
      // new rules start every count again, as PocketBase's reset on a settings change
      if (rulesSeen !== settings.rules) {
        rulesSeen = settings.rules;
        limiters.clear();
      }
      const audiences = req.signedIn ? ['', '@auth'] : ['', '@guest'];
      const paths = [`${req.method.toUpperCase()} ${req.path}`, req.path];
      const limit = (id: string, rule: RateLimitRule | null) => {
        if (rule !== null && !consume(`${id}${rule.audience}`, rule, req.client)) throw new ApiError(429, 'Too Many Requests.');
      };
      // PocketBase's global middleware: the request's path labels, counted per rule; a route binding its
      // collection's tags replaces it, except the record routes, whose handlers check their tags besides
      if (!req.collection || req.collection.alsoGlobal) {
        const rule = findRule(settings.rules, paths, audiences);
        limit(rule?.label ?? '', rule);
      }
      if (req.collection) {
        const { name, tags } = req.collection;
        const rule = findRule(settings.rules, [...tags.map((t) => `${name}:${t}`), ...tags.map((t) => `*:${t}`), ...paths], audiences);
        limit(`${req.collection.id}${req.collection.route}${tags.join('')}`, rule);
      }
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
