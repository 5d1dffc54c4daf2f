// What an import could not bring over, in one list (schema import, records from PocketBase, the CLI
// and the admin UI all show it): never silently dropped, never a reason to fail the whole import.

export interface TransferNote {
  /** The collection concerned, or `*` for the data folder as a whole (hooks, settings...). */
  collection: string;
  /** What was left out or changed: `field avatar`, `index idx_x`, `listRule`, `OAuth2`... */
  item: string;
  reason: string;
  /** Set on a change that needs the user's eye before applying: a rule the import opens (rule-changes.ts). */
  warning?: true;
}

export class Notes {
  readonly list: TransferNote[] = [];
  add(collection: string, item: string, reason: string, warning = false): void {
    this.list.push(warning ? { collection, item, reason, warning } : { collection, item, reason });
  }
}
