// Small response helpers shared by the routes: JSON with extra headers, 204, and the `fields` picker.
import { HTTPResponse, type H3Event } from 'h3';
import { parseFields, pick, pickAll, topLevelNames } from '../core/pick-fields.js';
import { queryOf } from './request.js';

// h3's HTTPResponse (not the global Response) keeps srvx on its direct write path instead of
// streaming the body.
export function json(value: unknown, init: { status?: number; headers?: Record<string, string> } = {}): HTTPResponse {
  return new HTTPResponse(JSON.stringify(value), {
    status: init.status ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...init.headers },
  });
}

export function noContent(headers: Record<string, string> = {}): HTTPResponse {
  return new HTTPResponse(null, { status: 204, headers });
}

/** Applies `?fields=` to one object. */
export function picked(event: H3Event, value: unknown): unknown {
  const fields = queryOf(event).fields;
  return fields ? pick(value, parseFields(fields)) : value;
}

/** Applies `?fields=` to each item of a page; the page keys are always kept. */
export function pickedPage<T extends { items: unknown[] }>(event: H3Event, page: T): T {
  const fields = queryOf(event).fields;
  if (!fields) return page;
  return { ...page, items: pickAll(page.items, parseFields(fields)) };
}

/** The top-level fields `?fields=` picks (null: all), so that a list reads only those columns. */
export function pickedNames(event: H3Event): Set<string> | null {
  const fields = queryOf(event).fields;
  return fields ? topLevelNames(parseFields(fields)) : null;
}

export function expandParam(event: H3Event): string | undefined {
  const e = queryOf(event).expand;
  return e === undefined || e.trim() === '' ? undefined : e;
}
