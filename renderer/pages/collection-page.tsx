// One collection: its records, its settings (schema, rules, indexes) and its API preview, as tabs.
import { Match, Switch, type JSX } from 'solid-js';
import type { Collection } from '../api.js';
import { href, useRouter } from '../router.js';
import { listParams } from '../lib/list-state.js';
import { Icon } from '../components/icon.js';
import { RecordsView } from './records-view.js';
import { CollectionEditor } from './collection-editor.js';
import { ApiPreview } from './api-preview.js';

export function CollectionPage(props: { collection: Collection; tab?: string }): JSX.Element {
  const tab = () => (props.tab === 'settings' || props.tab === 'api' ? props.tab : 'records');
  const router = useRouter();
  // the tabs carry the list's filter, sort and page along in the URL: Settings and back finds the list as it was
  const list = () => listParams(router.route());
  const Tab = (p: { id: 'records' | 'settings' | 'api'; label: string; icon: 'database' | 'settings' | 'code' }) => (
    <a
      class="tab"
      classList={{ active: tab() === p.id }}
      aria-current={tab() === p.id ? 'page' : undefined}
      href={href(p.id === 'records' ? ['collections', props.collection.name] : ['collections', props.collection.name, p.id], list())}
    >
      <Icon name={p.icon} />
      {p.label}
    </a>
  );
  return (
    <div class="page" classList={{ 'page-fill': tab() === 'records', 'page-narrow': tab() === 'settings' }}>
      <header class="page-header">
        <div class="page-title">
          <span class="crumb">Collections</span>
          <span class="crumb-sep">/</span>
          <h1>{props.collection.name}</h1>
          <span class="badge" classList={{ 'badge-auth': props.collection.type === 'auth' }}>{props.collection.type}</span>
          {props.collection.system ? <span class="badge badge-muted">system</span> : null}
        </div>
        <nav class="tabs" aria-label="Collection views">
          <Tab id="records" label="Records" icon="database" />
          <Tab id="settings" label="Settings" icon="settings" />
          <Tab id="api" label="API preview" icon="code" />
        </nav>
      </header>
      <Switch>
        <Match when={tab() === 'records'}>
          <RecordsView collection={props.collection} />
        </Match>
        <Match when={tab() === 'settings'}>
          <CollectionEditor collection={props.collection} />
        </Match>
        <Match when={tab() === 'api'}>
          <ApiPreview collection={props.collection} />
        </Match>
      </Switch>
    </div>
  );
}
