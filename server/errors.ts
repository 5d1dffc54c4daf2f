// The only error type handlers and core throw. `http/app.ts` maps it to the spec's envelope
// `{ status, message, data }`; anything else becomes a 500 with a generic message (and is logged).

export interface FieldError {
  code: string;
  message: string;
  params?: Record<string, unknown>;
  /** A failed batch sub-request's own error (PocketBase's `batch_request_failed`). */
  response?: { status: number; message: string; data: ErrorData };
}

/** Per-key details; nested for nested errors (for example `fields.2.name`). */
export type ErrorData = { [key: string]: FieldError | ErrorData };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: ErrorData = {},
  ) {
    super(normalizeMessage(message));
    this.name = 'ApiError';
  }

  toJSON(): { status: number; message: string; data: ErrorData } {
    return { status: this.status, message: this.message, data: this.data };
  }
}

/** PocketBase trims messages, upper-cases the first letter and ends them with a period. */
export function normalizeMessage(message: string): string {
  const m = message.trim();
  if (m === '') return m;
  const first = m[0].toUpperCase() + m.slice(1);
  return /[.?!]$/.test(first) ? first : `${first}.`;
}

export const badRequest = (message = 'Something went wrong while processing your request.', data: ErrorData = {}) =>
  new ApiError(400, message, data);
export const unauthorized = (message = 'The request requires valid record authorization token.') => new ApiError(401, message);
export const forbidden = (message = 'You are not allowed to perform this request.') => new ApiError(403, message);
export const notFound = (message = 'Not found.') => new ApiError(404, message);
export const tooLarge = () => new ApiError(413, 'Request entity too large.');
export const onlySuperusers = () => new ApiError(403, 'Only superusers can perform this action.');

/** A validation error for one field: `{ [key]: { code, message } }`. */
export function fieldError(code: string, message: string, params?: Record<string, unknown>): FieldError {
  return params === undefined ? { code, message: normalizeMessage(message) } : { code, message: normalizeMessage(message), params };
}
