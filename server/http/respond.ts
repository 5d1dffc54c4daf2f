// Small response helpers shared by the routes: JSON with extra headers, and 204.
import { HTTPResponse } from 'h3';

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
