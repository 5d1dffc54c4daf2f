// The data page: LAN sharing and desktop shortcuts (only in the desktop window), the backup download, the
// schema's export and import (with typed clients) and moving from PocketBase.
// Its title depends on where it runs: a browser tab has only the backup.
import { createSignal, Show, type JSX } from 'solid-js';
import { dataPageTitle, useDesktop } from '../desktop.js';
import { LanSharingCard } from '../components/lan-sharing-card.js';
import { DesktopActions } from '../components/desktop-actions.js';
import { DesktopPreferencesCard } from '../components/desktop-preferences.js';
import { BackupCard } from '../components/backup-card.js';
import { BackupsList } from '../components/backups-list.js';
import { useApp } from '../app-context.js';
import { PocketBaseCard } from '../components/pocketbase-card.js';
import { SchemaCard } from '../components/schema-card.js';

export function DataPage(): JSX.Element {
  const desktop = useDesktop();
  const app = useApp();
  // After a restore the sidebar lists the restored collections (and no longer the ones that are gone).
  const restored = async () => void (await app.reloadCollections());
  // the list re-reads after an upload restore too (it kept a before-restore zip)
  const [listKey, setListKey] = createSignal(0);
  const restoredFromFile = async () => {
    await restored();
    setListKey(listKey() + 1);
  };
  return (
    <div class="page data-page">
      <header class="page-header">
        <div class="page-title">
          <h1>{dataPageTitle(!!desktop)}</h1>
        </div>
      </header>
      <Show when={desktop}>
        {(d) => (
          <>
            <LanSharingCard lan={d().lan} bridge={d().bridge} />
            <DesktopActions bridge={d().bridge} />
            <DesktopPreferencesCard bridge={d().bridge} />
          </>
        )}
      </Show>
      <BackupCard onRestored={restoredFromFile} />
      <Show when={listKey() + 1} keyed>
        <BackupsList onRestored={restored} />
      </Show>
      <SchemaCard />
      <PocketBaseCard />
    </div>
  );
}
