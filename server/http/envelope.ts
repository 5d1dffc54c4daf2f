// The spec's error envelope `{status, message, data}` and the generic messages of each status, for the
// two places that answer errors: the app's onError (app.ts) and node:http's refusals before the app
// sees a request (client-error.ts).

export const GENERIC_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Something went wrong while processing your request.',
  401: 'Missing or invalid authentication.',
  403: 'You are not allowed to perform this request.',
  404: 'Not found.',
  405: 'Not found.',
  408: 'Request timeout.',
  413: 'Request entity too large.',
  414: 'Request URL too long.',
  415: 'Unsupported media type.',
  429: 'Too Many Requests.',
  431: 'Request header fields too large.',
};

export function envelopeJson(status: number, message: string, data: object = {}): string {
  return JSON.stringify({ status, message, data });
}
