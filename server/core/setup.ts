// First-time setup: while no superuser exists, a one-time setup token (printed in the server log,
// valid one hour, issued at most once a minute) lets POST /setup create the first superuser.
import { timingSafeEqual } from 'node:crypto';
import { ApiError, badRequest, fieldError, notFound, type ErrorData } from '../errors.js';
import type { Store } from '../store/db.js';
import { isRecord } from './fields/common.js';
import { newToken } from './ids.js';
import type { RecordWrites } from './records-write.js';
import type { Registry } from './registry.js';
import { ident } from '../filter/sql.js';
import type { Row } from './types.js';
import { SUPERUSERS_ID } from './types.js';

export const SETUP_TOKEN_MS = 60 * 60 * 1000;
export const SETUP_REISSUE_MS = 60 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createSetup(store: Store, registry: Registry, writes: RecordWrites, onToken: (token: string) => void, now: () => number = Date.now) {
  let current: { token: string; issued: number } | null = null;
  let completing = false;

  const required = (): boolean => {
    const su = registry.get(SUPERUSERS_ID);
    return !su || store.get(`SELECT 1 AS x FROM ${ident(su.name)} LIMIT 1`) === undefined;
  };

  /** Issues a new token unless one was issued less than a minute ago; returns the live token. */
  function issue(): string | null {
    if (!required()) return null;
    const t = now();
    if (current && t - current.issued < SETUP_REISSUE_MS) return current.token;
    current = { token: newToken(), issued: t };
    onToken(current.token);
    return current.token;
  }

  function valid(token: unknown): boolean {
    if (!current || typeof token !== 'string' || now() - current.issued >= SETUP_TOKEN_MS) return false;
    const a = Buffer.from(token);
    const b = Buffer.from(current.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  return {
    required,
    issue,
    /** The live token, if any (the desktop app hands it straight to its window). */
    token: (): string | null => (current && now() - current.issued < SETUP_TOKEN_MS && required() ? current.token : null),

    async complete(body: unknown): Promise<Row> {
      if (!required() || completing) throw notFound();
      const b = isRecord(body) ? body : {};
      if (!valid(b.token)) {
        issue(); // an expired token is replaced (at most once a minute) so the log has a fresh one
        throw new ApiError(403, 'Invalid or expired setup token. Check the server logs for a new one.');
      }
      const errors: ErrorData = {};
      const email = typeof b.email === 'string' ? b.email.trim() : '';
      const password = typeof b.password === 'string' ? b.password : '';
      if (email === '') errors.email = fieldError('validation_required', 'Cannot be blank.');
      else if (email.length > 255 || !EMAIL.test(email)) errors.email = fieldError('validation_is_email', 'Must be a valid email address.');
      if (password === '') errors.password = fieldError('validation_required', 'Cannot be blank.');
      else if (password.length < 8 || password.length > 71) {
        errors.password = fieldError('validation_length_out_of_range', 'The length must be between 8 and 71.');
      }
      if (Object.keys(errors).length > 0) throw badRequest('Failed to create superuser.', errors);
      const su = registry.get(SUPERUSERS_ID);
      if (!su) throw notFound();
      completing = true; // two concurrent requests cannot both create a "first" superuser
      try {
        const row = await writes.create(su, { email, password, passwordConfirm: password }, { auth: null, method: 'POST', context: 'default', body: {}, query: {}, headers: {} }, { system: true });
        current = null;
        return row;
      } catch (err) {
        if (err instanceof ApiError && err.status === 400) throw badRequest('Failed to create superuser.', err.data);
        throw err;
      } finally {
        completing = false;
      }
    },
  };
}

export type Setup = ReturnType<typeof createSetup>;
