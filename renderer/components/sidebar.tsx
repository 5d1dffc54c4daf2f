// The collections sidebar: search, user collections, system collections, and the account footer.
import { createMemo, createSignal, For, Show, type JSX } from 'solid-js';
import type { Collection } from '../api.js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { href, useRouter } from '../router.js';
import { Icon } from './icon.js';
import { dataPageTitle, useDesktop } from '../desktop.js';
import { ThemeSwitch } from './theme-switch.js';

export function Sidebar(props: { onNavigate(): void }): JSX.Element {
  const app = useApp();
  const router = useRouter();
  const desktop = useDesktop();
  const [q, setQ] = createSignal('');
  const matches = createMemo(() => {
    const term = q().trim().toLowerCase();
    return (app.collections() ?? []).filter((c) => term === '' || c.name.toLowerCase().includes(term));
  });
  const user = () => matches().filter((c) => !c.system);
  const system = () => matches().filter((c) => c.system);
  const active = (c: Collection) => router.route().segments[0] === 'collections' && router.route().segments[1] === c.name;

  const Item = (p: { c: Collection }) => (
    <li>
      <a href={href(['collections', p.c.name])} class="nav-item" classList={{ active: active(p.c) }} aria-current={active(p.c) ? 'page' : undefined} onClick={() => props.onNavigate()}>
        <Icon name={p.c.type === 'auth' ? 'users' : p.c.type === 'view' ? 'search' : 'database'} />
        <span class="nav-label">{p.c.name}</span>
      </a>
    </li>
  );

  return (
    <nav class="sidebar" aria-label="Collections">
      <div class="sidebar-brand">
        <span class="brand-mark" aria-hidden="true" />
        <span class="brand-title">Deskbase</span>
      </div>
      <div class="sidebar-search">
        <Icon name="search" />
        <input type="search" placeholder="Search collections" aria-label="Search collections" value={q()} onInput={(e) => setQ(e.currentTarget.value)} />
      </div>
      <div class="sidebar-scroll">
        <Show when={!app.collections.error} fallback={<p class="error-text pad">{messageOf(app.collections.error)}</p>}>
          <Show when={!app.collections.loading || app.collections.latest} fallback={<p class="muted pad">Loading…</p>}>
            <ul class="nav-list">
              <For each={user()} fallback={<li class="muted pad">{q() ? 'No collection matches.' : 'No collections yet.'}</li>}>
                {(c) => <Item c={c} />}
              </For>
            </ul>
            <Show when={system().length > 0}>
              <h3 class="nav-heading">System</h3>
              <ul class="nav-list">
                <For each={system()}>{(c) => <Item c={c} />}</For>
              </ul>
            </Show>
          </Show>
        </Show>
        <a href="#/new-collection" class="btn btn-outline btn-block new-collection" onClick={() => props.onNavigate()}>
          <Icon name="plus" /> New collection
        </a>
      </div>
      <div class="sidebar-footer">
        <a href="#/sessions" class="nav-item" classList={{ active: router.route().segments[0] === 'sessions' }} onClick={() => props.onNavigate()}>
          <Icon name="monitor" />
          <span class="nav-label">Sessions</span>
        </a>
        <a href="#/settings" class="nav-item" classList={{ active: router.route().segments[0] === 'settings' }} onClick={() => props.onNavigate()}>
          <Icon name="settings" />
          <span class="nav-label">Settings</span>
        </a>
        <a href="#/logs" class="nav-item" classList={{ active: router.route().segments[0] === 'logs' }} onClick={() => props.onNavigate()}>
          <Icon name="list" />
          <span class="nav-label">Logs</span>
        </a>
        <a href="#/crons" class="nav-item" classList={{ active: router.route().segments[0] === 'crons' }} onClick={() => props.onNavigate()}>
          <Icon name="clock" />
          <span class="nav-label">Crons</span>
        </a>
        <a href="#/data" class="nav-item" classList={{ active: router.route().segments[0] === 'data' }} onClick={() => props.onNavigate()}>
          <Icon name={desktop ? 'wifi' : 'download'} />
          <span class="nav-label">{dataPageTitle(!!desktop)}</span>
          <Show when={desktop?.lan.state().enabled}>
            <span class="badge badge-warning" title="Sharing on the local network">on</span>
          </Show>
        </a>
        <ThemeSwitch />
        <div class="account">
          <span class="account-email" title={app.session()?.record?.email}>{app.session()?.record?.email}</span>
          <button type="button" class="btn-icon" title="Sign out" aria-label="Sign out" onClick={() => app.signOut()}>
            <Icon name="logout" />
          </button>
        </div>
      </div>
    </nav>
  );
}
