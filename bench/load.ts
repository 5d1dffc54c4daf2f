// One load run with autocannon, in this (the runner's) process, against a server in a child process.
// Latencies are taken from autocannon's per-response event in fractional milliseconds (its own
// histogram keeps whole milliseconds, too coarse for sub-millisecond answers).
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  /** Paths visited in turn, one per request (rotating ids). */
  paths: string[];
  /** Each path's method, when they differ (a mixed case); else `method` for all. */
  methods?: ('GET' | 'POST')[];
  /** A header of each request's own (`x-bench-request: <n>`): no answer is kept between requests (cases.ts). */
  computed?: boolean;
  /** JSON bodies sent in turn (rotating identities), if any. */
  bodies?: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  /** Responses with a 2xx status. */
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  seconds: number;
}

/** A run's figures with its raw latencies, so that several runs can be pooled. */
export interface LoadRun extends LoadResult {
  latencies: Float64Array;
}

/** At most this many latencies are kept (bounded memory whatever the rate). */
const MAX_SAMPLES = 2_000_000;

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function summary(latencies: Float64Array, ok: number, errors: number, non2xx: number, seconds: number): LoadRun {
  const sorted = latencies.slice().sort();
  return { ok, rps: ok / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors, non2xx, seconds, latencies };
}

/** Several runs as one: counts and durations added, latencies pooled. */
export function pool(runs: LoadRun[]): LoadRun {
  const all = new Float64Array(runs.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.latencies.length;
  }
  const sum = (key: 'ok' | 'errors' | 'non2xx' | 'seconds') => runs.reduce((n, r) => n + r[key], 0);
  return summary(all, sum('ok'), sum('errors'), sum('non2xx'), sum('seconds'));
}

/** The figures without the raw latencies (for printing and JSON). */
export function figures(run: LoadRun): LoadResult {
  const { latencies: _latencies, ...rest } = run;
  return rest;
}

/**
 * The `x-bench-request` of computed cases, counted across every load of the run: a value never repeats,
 * so no slice meets an answer an earlier slice or warm-up left kept.
 */
let computedRequests = 0;

/** A header no earlier request carried: its answer is computed, never one kept between requests (cases.ts). */
export function computedHeader(): Record<string, string> {
  return { 'x-bench-request': String(computedRequests++) };
}

export function runLoad(spec: LoadSpec): Promise<LoadRun> {
  const latencies = new Float64Array(MAX_SAMPLES); // zero pages: only what is written is resident
  let kept = 0;
  let ok = 0;
  let next = 0;
  const bodies = spec.bodies ?? [];
  const headers = { ...spec.headers, ...(bodies.length === 0 ? {} : { 'content-type': 'application/json' }) };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.seconds,
        timeout: 10,
        requests: [
          {
            method: spec.method,
            headers,
            setupRequest: (request) => {
              const i = next++;
              const path = spec.paths[i % spec.paths.length];
              const method = spec.methods?.[i % spec.paths.length] ?? spec.method;
              if (spec.computed === true) return { ...request, path, headers: { ...headers, ...computedHeader() } };
              if (spec.methods === undefined) return bodies.length === 0 ? { ...request, path } : { ...request, path, body: bodies[i % bodies.length] };
              // a mixed case: headers of each request's own (autocannon would keep a body's length on a GET)
              return method === 'GET' ? { ...request, method, path, body: undefined, headers: { ...spec.headers } } : { ...request, method, path, body: bodies[i % bodies.length], headers: { ...headers } };
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        resolve(summary(latencies.slice(0, kept), ok, result.errors + result.timeouts, result.non2xx, result.duration));
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status < 200 || status >= 300) return;
      ok++;
      if (kept < MAX_SAMPLES) latencies[kept++] = ms;
    });
  });
}
