// What every page of the signed-in shell needs: the api client, the collections list and the session.
import { createContext, useContext, type Accessor, type Resource } from 'solid-js';
import type { Api, Collection, SessionInfo } from './api.js';

export interface AppCtx {
  api: Api;
  session: Accessor<SessionInfo | null>;
  collections: Resource<Collection[]>;
  reloadCollections(): Promise<Collection[] | undefined>;
  /** Looks a collection up by name or id in the loaded list. */
  findCollection(nameOrId: string): Collection | undefined;
  signOut(): Promise<void>;
}

export const AppContext = createContext<AppCtx>();

export function useApp(): AppCtx {
  const ctx = useContext(AppContext);
  if (!ctx) throw new Error('useApp outside <AppContext.Provider>');
  return ctx;
}
