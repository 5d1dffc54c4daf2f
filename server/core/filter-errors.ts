// What a client gets for a filter, sort or rule that does not compile: decided here and nowhere else.
// PocketBase answers all three with its generic 400 (no detail, so a rule's text does not leak);
// superusers (the admin UI) also get the parser's message with its position under `data.filter` /
// `data.sort` (`validation_invalid_filter` / `validation_invalid_sort`).
import { badRequest, fieldError } from '../errors.js';
import { FilterError } from '../filter/filter-error.js';
import { isSuperuser, type RequestInfo } from '../model/types.js';

/** The client parameter a compiled source came from; none for a stored rule. */
export interface ClientSource {
  param: 'filter' | 'sort';
  request: RequestInfo;
}

/** A FilterError as the client's 400; any other error as it is. */
export function asClientError(err: unknown, source?: ClientSource): unknown {
  if (!(err instanceof FilterError)) return err;
  if (source === undefined || !isSuperuser(source.request.auth)) return badRequest();
  return badRequest(undefined, { [source.param]: fieldError(`validation_invalid_${source.param}`, err.message) });
}

/** Runs a compilation, turning its FilterError into the client's 400. */
export function compiling<T>(compile: () => T, source?: ClientSource): T {
  try {
    return compile();
  } catch (err) {
    throw asClientError(err, source);
  }
}
