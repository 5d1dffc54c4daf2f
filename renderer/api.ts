// The only way the admin UI talks to the server: one small typed fetch client over the spec's API.
// Same-origin by default (the UI is served by the server at /_/), bearer token kept in storage so a
// session survives a reload, every non-2xx answer thrown as an ApiError carrying the envelope.
import type { MaintainedIndex } from '../server/core/maintained-indexes.js';
import type { Collection as StoredCollection, Field, IndexDef } from '../server/model/types.js';
import { filenameFromDisposition } from './lib/save-file.js';
import { hasFiles, toFormData } from './lib/form-body.js';
import type { SchemaImportResult } from '../server/core/transfer/schema-import.js';
import type { PocketBaseImportResult } from '../server/core/transfer/pocketbase-folder.js';
import type { StoredMail } from '../server/core/mail/mailer.js';

/** A collection as the schema API returns it; `maintainedIndexes` are the ones Deskbase keeps itself. */
export type Collection = StoredCollection & { maintainedIndexes?: MaintainedIndex[] };
export type { Field, IndexDef, MaintainedIndex };
export type { TransferNote } from '../server/core/transfer/transfer-notes.js';
export type { CollectionDiff } from '../server/core/transfer/schema-diff.js';
export type { SchemaImportResult } from '../server/core/transfer/schema-import.js';
export type { PocketBaseImportResult } from '../server/core/transfer/pocketbase-folder.js';

export interface FieldErrorDetail {
  code: string;
  message: string;
}

/** The envelope's `data`: per-key details, nested for nested errors (`fields.2.name`). */
export interface ErrorData {
  [key: string]: FieldErrorDetail | ErrorData;
}

/** What a request that got no answer says (ApiError status 0). */
export const UNREACHABLE = 'Cannot reach the server. Check that Deskbase is running, then try again.';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: ErrorData = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

// the page envelope is the server's own type (renderer imports nothing from server/ but types)
export type { Page } from '../server/core/request-params.js';
import type { Page } from '../server/core/request-params.js';

export interface RecordModel {
  id: string;
  collectionId: string;
  collectionName: string;
  expand?: Record<string, RecordModel | RecordModel[]>;
  [field: string]: unknown;
}

/** The settings as the server answers them (the SMTP password never included). */
export interface AppSettings {
  meta: { appName: string; appURL: string; senderName: string; senderAddress: string; hideControls: boolean };
  smtp: { enabled: boolean; host: string; port: number; username: string; authMethod: string; tls: boolean; localName: string };
  rateLimits: { enabled: boolean; rules: RateLimitRule[] };
  trustedProxy: { headers: string[]; useLeftmostIP: boolean };
  [group: string]: unknown;
}

/** One of PocketBase's rate-limit rules (settings `rateLimits.rules`). */
export interface RateLimitRule { label: string; audience: string; maxRequests: number; duration: number }
/** One log (GET /api/logs): PocketBase's shape; `level` is slog's (-4 debug, 0 info, 4 warn, 8 error). */
export interface LogItem {
  id: string;
  created: string;
  data: Record<string, unknown>;
  message: string;
  level: number;
}

/** Logs per hour (GET /api/logs/stats). */
export interface LogsStat {
  date: string;
  total: number;
}

/** What the server keeps of its logs (settings.logs, PocketBase's LogsConfig). */
export interface LogsSettings {
  maxDays: number;
  minLevel: number;
  logIP: boolean;
  logAuthId: boolean;
}

/** A cron job (GET /api/crons, PocketBase's shape). */
export interface CronJob {
  id: string;
  expression: string;
}

/** A message in the outbox: SMTP off, or a send that failed (the server's own type). */
export type KeptMail = StoredMail;

/** One zip of the backups folder. */
export interface BackupFile {
  key: string;
  size: number;
  modified: string;
}

export interface SessionInfo {
  id: string;
  created: string;
  expires: string;
  /** The last request the session made (or its last sign-in or refresh); absent from older servers. */
  lastActive?: string;
  userAgent: string;
  current: boolean;
  record?: { collectionName: string; id: string; email: string };
}

export interface AuthResponse {
  token: string;
  record: RecordModel;
}

export interface ListParams {
  page?: number;
  perPage?: number;
  sort?: string;
  filter?: string;
  expand?: string;
  skipTotal?: boolean;
}

/** What a collection create/update accepts (fields may omit ids: new fields get one from the server). */
export type CollectionInput = Partial<Omit<Collection, 'fields'>> & { fields?: Array<Partial<Field>> };

/** A file the server sent as an attachment. */
export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/** Where the bearer token lives between reloads. */
export interface TokenStore {
  get(): string | null;
  set(token: string | null): void;
}

export function storageTokenStore(storage: Storage, key = 'deskbase.token'): TokenStore {
  return {
    get: () => storage.getItem(key),
    set: (token) => (token === null ? storage.removeItem(key) : storage.setItem(key, token)),
  };
}

export interface ApiOptions {
  /** Default `/api` (same origin). */
  baseUrl?: string;
  store: TokenStore;
  fetch?: typeof fetch;
  /** Called once an answer shows the session is gone (401, or GET /session null): the UI goes to sign-in. */
  onUnauthorized?: () => void;
}

type Query = Record<string, string | number | boolean | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** A file sent as it is (records import, a PocketBase data.db), with its media type. */
  raw?: { blob: Blob; type: string };
}

const enc = encodeURIComponent;

export function createApi(options: ApiOptions) {
  const base = (options.baseUrl ?? '/api').replace(/\/$/, '');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  /** Sends one request and throws the envelope of any non-2xx answer; the body is left to the caller. */
  async function send(method: string, path: string, opts: RequestOptions = {}, accept = 'application/json'): Promise<Response> {
    const headers: Record<string, string> = { accept };
    const token = options.store.get();
    if (token) headers.authorization = `Bearer ${token}`;
    // FormData (files) goes as it is (the browser sets its boundary), a raw Blob with its type, the rest as JSON
    const form = opts.body instanceof FormData;
    if (opts.raw !== undefined) headers['content-type'] = opts.raw.type;
    else if (opts.body !== undefined && !form) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(base + path + queryString(opts.query), {
        method,
        headers,
        body: opts.raw !== undefined ? opts.raw.blob : opts.body === undefined ? undefined : form ? (opts.body as FormData) : JSON.stringify(opts.body),
      });
    } catch {
      // No answer at all (server stopped, network down): the browser's "Failed to fetch" says nothing
      // useful, so it becomes an ApiError of status 0 in words (pages keep what they showed).
      throw new ApiError(0, UNREACHABLE);
    }
    if (!res.ok) {
      const payload = await readJson(res);
      if (token && (res.status === 401 || res.status === 403) && (res.status === 401 || !(await sessionAlive(token)))) sessionEnded(token);
      throw toApiError(res, payload);
    }
    return res;
  }

  /**
   * The one place that notices a session is gone. A revoked or expired token acts as a guest, so the
   * server may answer 403 ("Only superusers…") rather than 401: a 403 is checked against
   * GET /session, and a null there means the session ended too.
   */
  async function sessionAlive(token: string): Promise<boolean> {
    try {
      const res = await doFetch(`${base}/session`, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
      return !res.ok || (await readJson(res)) !== null;
    } catch {
      return true;
    }
  }
  function sessionEnded(token: string): void {
    // Only if it is still the token in use: a sign-in meanwhile must not be undone.
    if (options.store.get() !== token) return;
    options.store.set(null);
    options.onUnauthorized?.();
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await readJson(await send(method, path, opts))) as T;
  }

  const records = (c: string) => `/collections/${enc(c)}/records`;

  /** A GET answered with a file (Content-Disposition names it). */
  async function download(path: string, query: Query, accept: string, fallback: string): Promise<DownloadedFile> {
    const res = await send('GET', path, { query }, accept);
    return { blob: await res.blob(), filename: filenameFromDisposition(res.headers.get('content-disposition')) ?? fallback };
  }

  return {
    request,
    token: () => options.store.get(),
    setToken: (token: string | null) => options.store.set(token),

    health: () => request<{ status: string }>('GET', '/health'),
    setupStatus: () => request<{ required: boolean }>('GET', '/setup'),
    setup: (body: { token: string; email: string; password: string }) => request<RecordModel>('POST', '/setup', { body }),

    async authWithPassword(collection: string, identity: string, password: string): Promise<AuthResponse> {
      const res = await request<AuthResponse>('POST', `/collections/${enc(collection)}/auth-with-password`, {
        body: { identity, password },
      });
      options.store.set(res.token);
      return res;
    },
    /** The caller's session; null (signed out elsewhere, expired) also ends it here. */
    async getSession(): Promise<SessionInfo | null> {
      const token = options.store.get();
      const s = await request<SessionInfo | null>('GET', '/session');
      if (s === null && token) sessionEnded(token);
      return s;
    },
    async signOut(): Promise<void> {
      try {
        await request<void>('DELETE', '/session');
      } finally {
        options.store.set(null);
      }
    },
    listSessions: () => request<{ items: SessionInfo[] }>('GET', '/sessions'),

    // the application settings and mail (server/core/settings.ts, server/core/mail/mailer.ts)
    getSettings: () => request<AppSettings>('GET', '/settings'),
    updateSettings: (body: { meta?: Partial<AppSettings['meta']>; smtp?: Partial<AppSettings['smtp']> & { password?: string }; rateLimits?: AppSettings['rateLimits']; trustedProxy?: AppSettings['trustedProxy']; logs?: Partial<LogsSettings> }) =>
      request<AppSettings>('PATCH', '/settings', { body }),
    listLogs: (query: { page: number; perPage: number; filter?: string; sort?: string }) => request<Page<LogItem>>('GET', '/logs', { query }),
    logsStats: (filter: string) => request<LogsStat[]>('GET', '/logs/stats', { query: filter ? { filter } : {} }),
    getLog: (id: string) => request<LogItem>('GET', `/logs/${enc(id)}`),
    listCrons: () => request<CronJob[]>('GET', '/crons'),
    runCron: (id: string) => request<void>('POST', `/crons/${enc(id)}`),
    testEmail: (body: { email: string; template: string; collection: string }) => request<void>('POST', '/settings/test/email', { body }),
    listMails: () => request<{ items: KeptMail[] }>('GET', '/mails'),
    revokeSession: (id: string) => request<void>('DELETE', `/sessions/${enc(id)}`),
    /** Superusers: the sessions of any auth record, and ending one of them. */
    listRecordSessions: (c: string, id: string) => request<{ items: SessionInfo[] }>('GET', `${records(c)}/${enc(id)}/sessions`),
    revokeRecordSession: (c: string, id: string, sessionId: string) => request<void>('DELETE', `${records(c)}/${enc(id)}/sessions/${enc(sessionId)}`),

    listCollections: () => request<Page<Collection>>('GET', '/collections', { query: { perPage: 1000 } }),
    getCollection: (idOrName: string) => request<Collection>('GET', `/collections/${enc(idOrName)}`),
    createCollection: (body: CollectionInput) => request<Collection>('POST', '/collections', { body }),
    updateCollection: (idOrName: string, body: CollectionInput) =>
      request<Collection>('PATCH', `/collections/${enc(idOrName)}`, { body }),
    deleteCollection: (idOrName: string) => request<void>('DELETE', `/collections/${enc(idOrName)}`),

    listRecords: (c: string, params: ListParams = {}) => request<Page<RecordModel>>('GET', records(c), { query: { ...params } }),
    getRecord: (c: string, id: string, expand?: string) => request<RecordModel>('GET', `${records(c)}/${enc(id)}`, { query: { expand } }),
    createRecord: (c: string, body: Record<string, unknown>, expand?: string) =>
      request<RecordModel>('POST', records(c), { body: hasFiles(body) ? toFormData(body) : body, query: { expand } }),
    updateRecord: (c: string, id: string, body: Record<string, unknown>, expand?: string) =>
      request<RecordModel>('PATCH', `${records(c)}/${enc(id)}`, { body: hasFiles(body) ? toFormData(body) : body, query: { expand } }),
    /** The URL of a stored file (`thumb`: one of the field's sizes, or 100x100). */
    fileUrl: (collectionId: string, recordId: string, name: string, thumb?: string) =>
      `${base}/files/${enc(collectionId)}/${enc(recordId)}/${enc(name)}${thumb ? `?thumb=${enc(thumb)}` : ''}`,
    /** GET /backups: the zips of the data folder's backups/, newest first (PocketBase's backups API). */
    listBackups: () => request<BackupFile[]>('GET', '/backups'),
    /** POST /backups: writes a backup of everything now into backups/ (`name` or deskbase-<time>.zip). */
    createBackup: (name?: string) => request<void>('POST', '/backups', { body: name ? { name } : {} }),
    deleteBackup: (key: string) => request<void>('DELETE', `/backups/${enc(key)}`),
    /** POST /backups/{key}/restore: swaps that backup in (the data it replaces is kept as a zip too). */
    restoreBackupKey: (key: string) => request<{ missingFiles: string[]; previous: string }>('POST', `/backups/${enc(key)}/restore`),
    /** A backup's download link, opened with a file token (a plain link, as large as the backup). */
    backupUrl: (key: string, token: string) => `${base}/backups/${enc(key)}?token=${enc(token)}`,
    /** POST /files/token: a short-lived token that opens protected files (and backup downloads). */
    fileToken: async () => (await request<{ token: string }>('POST', '/files/token')).token,
    /** POST /backup/restore: swaps a backup zip in; answers what it lacked and where the previous data went. */
    restoreBackup: (archive: Blob) => request<{ missingFiles: string[]; previous: string }>('POST', '/backup/restore', { raw: { blob: archive, type: 'application/zip' } }),
    deleteRecord: (c: string, id: string) => request<void>('DELETE', `${records(c)}/${enc(id)}`),
    /** POST /batch: deletes these records in one transaction (all or none), each under the collection's rules. */
    deleteRecords: (c: string, ids: string[]) =>
      request<Array<{ status: number }>>('POST', '/batch', { body: { requests: ids.map((id) => ({ method: 'DELETE', url: `/api${records(c)}/${enc(id)}` })) } }),

    truncateCollection: (idOrName: string) => request<void>('DELETE', `/collections/${enc(idOrName)}/truncate`),
    /** The schema as PocketBase's collections JSON (every collection but the system ones, or those named). */
    exportSchema: (only?: string[]) => request<Record<string, unknown>[]>('GET', '/collections/meta/export', { query: { collections: only?.join(',') } }),
    importSchema: (collections: unknown[], deleteMissing: boolean, dryRun: boolean) =>
      request<SchemaImportResult>('PUT', '/collections/import', { body: { collections, deleteMissing, dryRun } }),
    downloadTypes: () => download('/collections/types.ts', {}, 'text/plain', 'pocketbase-types.ts'),
    /** The records the filter and sort select (`ids`: only those of them, at most 500), as CSV, JSON or NDJSON. */
    exportRecords: (c: string, format: 'csv' | 'json' | 'ndjson', params: { filter?: string; sort?: string; ids?: readonly string[] } = {}) =>
      download(`${records(c)}/export`, { format, filter: params.filter, sort: params.sort, ids: params.ids?.join(',') }, '*/*', `${c}.${format}`),
    importRecords: (c: string, file: Blob, format: 'csv' | 'json' | 'ndjson') =>
      request<{ imported: number }>('POST', `${records(c)}/import`, { query: { format }, raw: { blob: file, type: format === 'csv' ? 'text/csv' : 'application/json' } }),
    /**
     * A PocketBase backup zip or its pb_data/data.db, uploaded as it is (the server tells them apart by
     * their first bytes); `dryRun`: what the import would change, nothing applied.
     */
    importPocketBase: (file: Blob, dryRun = false) =>
      request<PocketBaseImportResult>('POST', '/import/pocketbase', { query: dryRun ? { dryRun: 'true' } : {}, raw: { blob: file, type: 'application/octet-stream' } }),
    /**
     * Realtime, as the PocketBase SDK speaks it: an event stream (GET /realtime) whose PB_CONNECT names
     * the client, then its topics posted with the token (again after each reconnect, which the browser's
     * EventSource does by itself). Calls `onEvent` with each message's data; returns the function that stops.
     */
    subscribe(topics: string[], onEvent: (topic: string, data: unknown) => void): () => void {
      if (typeof EventSource === 'undefined') return () => undefined;
      const source = new EventSource(`${base}/realtime`);
      source.addEventListener('PB_CONNECT', (e) => {
        const clientId = (e as MessageEvent).lastEventId;
        send('POST', '/realtime', { body: { clientId, subscriptions: topics } }).catch(() => undefined);
      });
      for (const topic of topics) {
        source.addEventListener(topic, (e) => onEvent(topic, JSON.parse(String((e as MessageEvent).data)) as unknown));
      }
      return () => source.close();
    },

    /** GET /backup: the database and the files as one zip, named as the server suggests. */
    async downloadBackup(): Promise<DownloadedFile> {
      const res = await send('GET', '/backup', {}, 'application/zip, application/octet-stream');
      const filename = filenameFromDisposition(res.headers.get('content-disposition')) ?? 'deskbase-backup.zip';
      return { blob: await res.blob(), filename };
    },
  };
}

export type Api = ReturnType<typeof createApi>;

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    params.set(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toApiError(res: Response, payload: unknown): ApiError {
  if (isObject(payload)) {
    const message = typeof payload.message === 'string' ? payload.message : res.statusText;
    const data = isObject(payload.data) ? (payload.data as ErrorData) : {};
    return new ApiError(res.status, message || `Request failed (${res.status}).`, data);
  }
  return new ApiError(res.status, res.statusText || `Request failed (${res.status}).`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `data.<path>.message` when the server reported an error at that key path (`fields.2.name`). */
export function errorAt(data: ErrorData | undefined, path: string): string | undefined {
  let node: unknown = data;
  for (const key of path.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return isObject(node) && typeof node.message === 'string' ? node.message : undefined;
}

/** A readable message for any thrown value. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError || err instanceof Error) return err.message;
  return String(err);
}

/** The first message found at or below `path` (index errors may be nested one level deeper). */
export function errorUnder(data: ErrorData | undefined, path: string): string | undefined {
  let node: unknown = data;
  for (const key of path.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  const find = (n: unknown): string | undefined => {
    if (!isObject(n)) return undefined;
    if (typeof n.message === 'string') return n.message;
    for (const v of Object.values(n)) {
      const m = find(v);
      if (m) return m;
    }
    return undefined;
  };
  return find(node);
}
