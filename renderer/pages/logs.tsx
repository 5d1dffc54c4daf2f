// The Logs page (PocketBase's Dashboard > Logs): requests per hour as a chart, the logs newest first with
// a search or filter (`data.status >= 400`, `level > 0`...), requests by superusers left out unless
// asked for, one log's details in a side panel, and the logs settings (days kept, lowest level, IPs,
// auth ids). Everything through GET /api/logs, /api/logs/stats, /api/logs/{id} and PATCH /api/settings.
import { createResource, createSignal, For, Show, type JSX } from 'solid-js';
import type { LogItem, LogsSettings, LogsStat } from '../api.js';
import { ApiError, errorUnder, messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { useToast } from '../components/toasts.js';
import { SidePanel } from '../components/side-panel.js';
import { FormField } from '../components/form-field.js';
import { Icon } from '../components/icon.js';
import { formatDate, isFilterExpression } from '../lib/format.js';

const PER_PAGE = 50;
const WITHOUT_SUPERUSERS = "data.auth != '_superusers'";
const SUPERUSERS_KEY = 'deskbase.logs.superuserRequests';

/** slog's levels as PocketBase names them. */
export const LEVELS: readonly { value: number; label: string }[] = [
  { value: -4, label: 'DEBUG' },
  { value: 0, label: 'INFO' },
  { value: 4, label: 'WARN' },
  { value: 8, label: 'ERROR' },
];

export function levelLabel(level: number): string {
  return LEVELS.find((l) => l.value === level)?.label ?? `LEVEL ${level}`;
}

const levelClass = (level: number) => (level >= 8 ? 'badge-error' : level >= 4 ? 'badge-warning' : level < 0 ? 'badge-muted' : 'badge-true');

/** A search term as a filter over the logs' text (PocketBase's search box does the same); a filter as it is. */
export function logsFilterOf(text: string): string {
  const t = text.trim();
  if (t === '') return '';
  if (isFilterExpression(t)) return t;
  const q = `'${t.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `message ~ ${q} || data.url ~ ${q} || data.error ~ ${q} || data.userAgent ~ ${q}`;
}

/** The list's filter: the box's, and superusers' requests left out unless they are asked for. */
function combined(box: string, withSuperusers: boolean): string {
  const parts = [box === '' ? '' : `(${box})`, withSuperusers ? '' : WITHOUT_SUPERUSERS].filter((p) => p !== '');
  return parts.join(' && ');
}

/** A refused filter says where it went wrong (the server's `data.filter`); anything else its message. */
function listError(err: unknown): string {
  if (err instanceof ApiError) {
    const detail = errorUnder(err.data, 'filter') ?? errorUnder(err.data, 'sort');
    if (detail !== undefined) return `Invalid filter: ${detail}`;
  }
  return messageOf(err);
}

export function LogsPage(): JSX.Element {
  const app = useApp();
  const [box, setBox] = createSignal('');
  const [applied, setApplied] = createSignal('');
  const [withSuperusers, setWithSuperusers] = createSignal(localStorage.getItem(SUPERUSERS_KEY) === '1');
  const [version, setVersion] = createSignal(0);
  const [extra, setExtra] = createSignal<LogItem[]>([]);
  const [page, setPage] = createSignal(1);
  const [selected, setSelected] = createSignal<LogItem | null>(null);
  const [settingsOpen, setSettingsOpen] = createSignal(false);
  const filter = () => combined(logsFilterOf(applied()), withSuperusers());

  const [list] = createResource(() => [filter(), version()] as const, async ([f]) => {
    setExtra([]);
    setPage(1);
    return app.api.listLogs({ page: 1, perPage: PER_PAGE, filter: f, sort: '-@rowid' });
  });
  const [stats] = createResource(() => [filter(), version()] as const, ([f]) => app.api.logsStats(f));
  // a resource in error throws when read: its last answer is shown only while it has none
  const current = () => (list.error ? undefined : list.latest);
  const items = () => [...(current()?.items ?? []), ...extra()];
  const total = () => current()?.totalItems ?? 0;
  const chartStats = () => (stats.error ? [] : (stats.latest ?? []));
  const [loadingMore, setLoadingMore] = createSignal(false);
  const more = async () => {
    setLoadingMore(true);
    try {
      const next = await app.api.listLogs({ page: page() + 1, perPage: PER_PAGE, filter: filter(), sort: '-@rowid' });
      setPage(page() + 1);
      setExtra([...extra(), ...next.items]);
    } finally {
      setLoadingMore(false);
    }
  };
  const refresh = () => setVersion(version() + 1);
  const toggleSuperusers = (on: boolean) => {
    localStorage.setItem(SUPERUSERS_KEY, on ? '1' : '0');
    setWithSuperusers(on);
  };
  const error = () => list.error ?? stats.error;

  return (
    <div class="page logs-page">
      <header class="page-header">
        <div class="page-title">
          <h1>Logs</h1>
        </div>
        <div class="logs-actions">
          <button type="button" class="btn" onClick={() => setSettingsOpen(true)}>
            <Icon name="settings" /> Logs settings
          </button>
          <button type="button" class="btn" onClick={refresh} aria-label="Refresh logs">
            <Icon name="refresh" /> Refresh
          </button>
        </div>
      </header>
      <div class="logs-toolbar">
        <form class="filter-box" classList={{ 'has-error': !!list.error }} role="search" onSubmit={(e) => (e.preventDefault(), setApplied(box()))}>
          <Icon name="search" />
          <input
            class="mono"
            type="text"
            aria-label="Search or filter logs"
            aria-invalid={!!list.error}
            placeholder="Search, or filter: level > 0, data.status >= 400"
            value={box()}
            onInput={(e) => setBox(e.currentTarget.value)}
          />
          <Show when={applied() !== ''}>
            <button type="button" class="btn-icon" aria-label="Clear filter" onClick={() => (setBox(''), setApplied(''))}>
              <Icon name="x" />
            </button>
          </Show>
        </form>
        <label class="check logs-superusers">
          <input type="checkbox" checked={withSuperusers()} onChange={(e) => toggleSuperusers(e.currentTarget.checked)} />
          Include requests by superusers
        </label>
      </div>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">{listError(error())}</p>
      </Show>
      <LogsChart stats={chartStats()} loading={stats.loading} />
      <p class="muted logs-count" aria-live="polite">
        <Show when={current()} fallback={list.error ? '' : 'Loading…'}>{total().toLocaleString()} {total() === 1 ? 'log' : 'logs'}</Show>
      </p>
      <div class="table-wrap">
        <table class="table logs-table">
          <thead>
            <tr>
              <th scope="col" class="logs-level">Level</th>
              <th scope="col">Message</th>
              <th scope="col" class="logs-created">Created</th>
            </tr>
          </thead>
          <tbody>
            <For each={items()}>
              {(log) => (
                <tr class="clickable" tabIndex={0} onClick={() => setSelected(log)} onKeyDown={(e) => e.key === 'Enter' && setSelected(log)}>
                  <td class="logs-level"><span class={`badge ${levelClass(log.level)}`}>{levelLabel(log.level)}</span></td>
                  <td>
                    <div class="logs-message">
                      <span class="logs-message-text" title={log.message}>{log.message}</span>
                    <Show when={typeof log.data.status === 'number'}>
                      <span class={`badge ${Number(log.data.status) >= 400 ? 'badge-error' : 'badge-muted'}`}>{String(log.data.status)}</span>
                    </Show>
                    <Show when={typeof log.data.execTime === 'number'}>
                      <span class="muted logs-time">{Number(log.data.execTime).toFixed(1)} ms</span>
                    </Show>
                    </div>
                  </td>
                  <td class="logs-created">{formatDate(log.created)}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
        <Show when={current() && items().length === 0}>
          <div class="empty">No logs {applied() ? 'match this filter' : 'yet'}.</div>
        </Show>
        <Show when={list.loading && !current()}>
          <div class="empty"><div class="spinner" /></div>
        </Show>
      </div>
      <Show when={items().length < total()}>
        <button type="button" class="btn btn-block logs-more" disabled={loadingMore()} onClick={more}>
          {loadingMore() ? 'Loading…' : `Load more (${(total() - items().length).toLocaleString()} left)`}
        </button>
      </Show>
      <Show when={selected()} keyed>
        {(log) => <LogPanel log={log} onClose={() => setSelected(null)} />}
      </Show>
      <Show when={settingsOpen()}>
        <LogsSettingsPanel onClose={() => setSettingsOpen(false)} onSaved={refresh} />
      </Show>
    </div>
  );
}

/** Requests per hour: one bar per hour from the first kept to the last, the busiest at full height. */
function LogsChart(props: { stats: LogsStat[]; loading: boolean }): JSX.Element {
  const hours = () => {
    const byHour = new Map(props.stats.map((s) => [Date.parse(s.date.replace(' ', 'T')), s.total]));
    const keys = [...byHour.keys()].filter((k) => !Number.isNaN(k));
    if (keys.length === 0) return [];
    const HOUR = 3_600_000;
    // a day at least, up to the current hour; at most two weeks of hours (the older are not drawn)
    const now = Math.floor(Date.now() / HOUR) * HOUR;
    const last = Math.max(now, ...keys);
    const first = Math.min(last - 23 * HOUR, ...keys);
    const from = Math.max(first, last - 14 * 24 * HOUR);
    const out: { at: number; total: number }[] = [];
    for (let at = from; at <= last; at += HOUR) out.push({ at, total: byHour.get(at) ?? 0 });
    return out;
  };
  const max = () => Math.max(1, ...hours().map((h) => h.total));
  const sum = () => props.stats.reduce((n, s) => n + s.total, 0);
  const label = (at: number) => new Date(at).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return (
    <figure class="logs-chart" aria-label={`Logs per hour: ${sum()} from ${hours().length > 0 ? label(hours()[0].at) : '—'}`}>
      <Show when={hours().length > 0} fallback={<div class="logs-chart-empty muted">{props.loading ? 'Loading…' : 'No logs to chart.'}</div>}>
        <div class="logs-chart-max muted">{max().toLocaleString()}</div>
        <svg viewBox={`0 0 ${hours().length} 100`} preserveAspectRatio="none" role="img" aria-hidden="true">
          <For each={hours()}>
            {(h, i) => (
              <rect class="logs-bar" x={i() + 0.1} width={0.8} y={100 - (h.total / max()) * 100} height={(h.total / max()) * 100}>
                <title>{`${label(h.at)}: ${h.total}`}</title>
              </rect>
            )}
          </For>
        </svg>
        <figcaption class="logs-chart-axis muted">
          <span>{label(hours()[0].at)}</span>
          <span>{label(hours()[hours().length - 1].at)}</span>
        </figcaption>
      </Show>
    </figure>
  );
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

/** One log: its message, level, time and every key of its data. */
function LogPanel(props: { log: LogItem; onClose: () => void }): JSX.Element {
  const rows = () => [
    ['id', props.log.id],
    ['level', `${levelLabel(props.log.level)} (${props.log.level})`],
    ['created', props.log.created],
    ['message', props.log.message],
    ...Object.entries(props.log.data).map(([k, v]) => [`data.${k}`, show(v)]),
  ];
  return (
    <SidePanel title="Log" label="Log details" onClose={props.onClose} wide>
      <table class="table log-details">
        <tbody>
          <For each={rows()}>
            {([k, v]) => (
              <tr>
                <th scope="row">{k}</th>
                <td><Show when={v.includes('\n')} fallback={<span class="log-value">{v || <span class="muted">—</span>}</span>}><pre class="code">{v}</pre></Show></td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </SidePanel>
  );
}

/** settings.logs: days kept (0 turns logging off), the lowest level kept, IPs and auth ids in request logs. */
function LogsSettingsPanel(props: { onClose: () => void; onSaved: () => void }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [draft, setDraft] = createSignal<LogsSettings | null>(null);
  const [error, setError] = createSignal('');
  const [saving, setSaving] = createSignal(false);
  void app.api.getSettings().then(
    (s) => setDraft({ ...(s.logs as LogsSettings) }),
    (err: unknown) => setError(messageOf(err)),
  );
  const set = <K extends keyof LogsSettings>(k: K, v: LogsSettings[K]) => setDraft({ ...draft()!, [k]: v });
  const save = async (e: Event) => {
    e.preventDefault();
    setSaving(true);
    setError('');
    try {
      await app.api.updateSettings({ logs: draft()! });
      toast('Logs settings saved.');
      props.onSaved();
      props.onClose();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <SidePanel
      title="Logs settings"
      label="Logs settings"
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="btn" onClick={props.onClose}>Cancel</button>
          <button type="submit" form="logs-settings-form" class="btn btn-primary" disabled={!draft() || saving()}>{saving() ? 'Saving…' : 'Save'}</button>
        </>
      }
    >
      <Show when={error()}>
        <p class="alert alert-error" role="alert">{error()}</p>
      </Show>
      <Show when={draft()} fallback={<Show when={!error()}><div class="spinner" /></Show>}>
        {(d) => (
          <form id="logs-settings-form" class="form" onSubmit={save}>
            <FormField label="Max days retention" for="logs-maxDays" hint="Logs older than this are deleted; 0 turns logging off and deletes every log.">
              <input id="logs-maxDays" type="number" min="0" step="1" value={d().maxDays} onInput={(e) => set('maxDays', Math.trunc(Number(e.currentTarget.value)))} />
            </FormField>
            <FormField label="Minimum level" for="logs-minLevel" hint="Logs below this level are not kept (requests are INFO, failed ones ERROR).">
              <select id="logs-minLevel" value={String(d().minLevel)} onChange={(e) => set('minLevel', Number(e.currentTarget.value))}>
                <For each={LEVELS}>{(l) => <option value={String(l.value)}>{l.label} ({l.value})</option>}</For>
              </select>
            </FormField>
            <label class="check">
              <input id="logs-logIP" type="checkbox" checked={d().logIP} onChange={(e) => set('logIP', e.currentTarget.checked)} />
              Keep the client's IP address in request logs
            </label>
            <label class="check">
              <input id="logs-logAuthId" type="checkbox" checked={d().logAuthId} onChange={(e) => set('logAuthId', e.currentTarget.checked)} />
              Keep the signed-in record's id in request logs
            </label>
          </form>
        )}
      </Show>
    </SidePanel>
  );
}
