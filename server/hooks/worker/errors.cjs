'use strict';
// PocketBase's API errors for hooks: `throw new BadRequestError("message", data)` answers that status in
// the spec's envelope. Messages are sentenized as PocketBase's router does (first letter upper case, a
// final period); an empty message takes the status's default. Any other thrown value answers 400
// "Something went wrong while processing your request." (PocketBase's ToApiError).

/** PocketBase's inflector.Sentenize. */
function sentenize(text) {
  const s = String(text ?? '').trim();
  if (s === '') return '';
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

const STATUS_TEXT = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' };

class ApiError extends Error {
  constructor(status, message, data) {
    const code = Number(status) || 400;
    super(sentenize(message || STATUS_TEXT[code] || 'Something went wrong while processing your request.'));
    this.name = 'ApiError';
    this.status = code;
    this.data = data && typeof data === 'object' ? data : {};
  }
}

const withDefault = (status, fallback, name) =>
  class extends ApiError {
    constructor(message, data) {
      super(status, message || fallback, data);
      this.name = name;
    }
  };

const BadRequestError = withDefault(400, 'Something went wrong while processing your request.', 'BadRequestError');
const NotFoundError = withDefault(404, "The requested resource wasn't found.", 'NotFoundError');
const ForbiddenError = withDefault(403, 'You are not allowed to perform this request.', 'ForbiddenError');
const UnauthorizedError = withDefault(401, 'Missing or invalid authentication.', 'UnauthorizedError');
const TooManyRequestsError = withDefault(429, 'Too Many Requests.', 'TooManyRequestsError');
const InternalServerError = withDefault(500, 'Something went wrong while processing your request.', 'InternalServerError');

exports.install = (g, rt) => {
  Object.assign(g, { ApiError, BadRequestError, NotFoundError, ForbiddenError, UnauthorizedError, TooManyRequestsError, InternalServerError });
  // a host error keeps its status and data (and its identity, so the host answers its own error object)
  rt.toError = (error) => {
    const err = new ApiError(error.status || 400, error.message, error.data);
    err.message = error.message; // the host's text as is
    err.hostErrorId = error.hostErrorId;
    return err;
  };
};
exports.ApiError = ApiError;
