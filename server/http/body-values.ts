// A body's parts → the object a route reads: forms' values type-inferred as PocketBase does, repeated
// keys collected, `@jsonPayload` parts merged in; JSON parsed on the app's parser (body-worker.ts).
import { badRequest } from '../errors.js';
import { isRecord } from '../json-object.js';
import { setOwn } from '../core/own-keys.js';
import { JsonShape } from './body-shape.js';
import type { BodyKind, BodyParser, Parsed } from './body-worker.js';

export const invalidBody = () => badRequest('Failed to load the submitted data due to invalid formatting.');

/** Multipart and urlencoded values are type-inferred as PocketBase does. */
function inferValue(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  // no longer number round-trips to the same text: the length test spares the regex a huge value
  if (v !== '' && v.length <= 32 && /^-?\d+(\.\d+)?$/.test(v) && String(Number(v)) === v) return Number(v);
  return v;
}

/**
 * Form entries as an object. Every `@jsonPayload` entry is merged in, in order, as PocketBase does; their
 * keys and values count together against the JSON body limits (one shape for all of them: 2,000 payloads
 * each under the limits used to merge 4 million keys, 16 s of the loop), and each is parsed in a turn of
 * the loop of its own, large ones on the parser thread.
 */
export async function formToObject(entries: Iterable<[string, unknown]>, parser: BodyParser): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const repeated = new Set<string>();
  const payloads = new JsonShape();
  for (const [k, raw] of entries) {
    if (typeof raw !== 'string') continue; // files are read apart (multipart.ts)
    if (k === '@jsonPayload') {
      const extra = await parseJson(new TextEncoder().encode(raw), payloads, parser);
      if (isRecord(extra)) for (const key of Object.keys(extra)) setOwn(out, key, extra[key]);
      continue;
    }
    const v = inferValue(raw);
    // a repeated key collects its values in order (pushed: copying the list each time was quadratic)
    if (!Object.hasOwn(out, k)) setOwn(out, k, v);
    else if (repeated.has(k)) (out[k] as unknown[]).push(v);
    else {
      setOwn(out, k, [out[k], v]);
      repeated.add(k);
    }
  }
  return out;
}

/**
 * A JSON text: its shape added to `shape` in slices, each in a turn of the loop of its own (others are
 * served in between), then parsed.
 */
async function parseJson(bytes: Uint8Array, shape: JsonShape, parser: BodyParser): Promise<unknown> {
  const SLICE = 256 * 1024;
  for (let at = 0; at < bytes.length; at += SLICE) {
    await new Promise((resolve) => setImmediate(resolve));
    shape.push(bytes.subarray(at, at + SLICE));
  }
  const parsed = await parseBody(parser, 'json', bytes);
  return 'value' in parsed ? parsed.value : undefined;
}

/** Parses a body whose shape is already bounded; what does not parse is the client's 400. */
export async function parseBody(parser: BodyParser, kind: BodyKind, bytes: Uint8Array): Promise<Parsed> {
  try {
    return await parser.parse(kind, bytes);
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof TypeError) throw invalidBody();
    throw err;
  }
}
