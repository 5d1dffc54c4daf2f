// The data page: LAN sharing and desktop shortcuts (only in the desktop window), the backup download, the
// schema's export and import (with typed clients) and moving from PocketBase.
// Its title depends on where it runs: a browser tab has only the backup.
import { Show, type JSX } from 'solid-js';
import { dataPageTitle, useDesktop } from '../desktop.js';
import { LanSharingCard } from '../components/lan-sharing-card.js';
import { DesktopActions } from '../components/desktop-actions.js';
import { DesktopPreferencesCard } from '../components/desktop-preferences.js';
import { BackupCard } from '../components/backup-card.js';
import { PocketBaseCard } from '../components/pocketbase-card.js';
import { SchemaCard } from '../components/schema-card.js';

export function DataPage(): JSX.Element {
  const desktop = useDesktop();
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
      <BackupCard />
      <SchemaCard />
      <PocketBaseCard />
    </div>
  );
}
