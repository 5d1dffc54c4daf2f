// Runs sandboxed before the Admin UI loads. It exposes only the desktop calls of preload-api.ts: the UI
// gets no ipcRenderer, no Node, nothing else (docs/architecture.md, "The desktop shell"). The main process re-checks the sender.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CHANNELS, type DeskbaseDesktopApi, type DesktopPreferences, type LanState, type PreferencesPatch } from './preload-api.js';

const api: DeskbaseDesktopApi = {
  isDesktop: true,
  lan: {
    get: () => ipcRenderer.invoke(CHANNELS.lanGet) as Promise<LanState>,
    set: (enabled: boolean) => ipcRenderer.invoke(CHANNELS.lanSet, enabled === true) as Promise<LanState>,
    onChange(listener: (state: LanState) => void) {
      // The page gets the state only, never the IPC event (which would hand it ipcRenderer's sender).
      const relay = (_event: IpcRendererEvent, state: LanState) => listener(state);
      ipcRenderer.on(CHANNELS.lanChanged, relay);
      return () => {
        ipcRenderer.removeListener(CHANNELS.lanChanged, relay);
      };
    },
  },
  copyApiUrl: () => ipcRenderer.invoke(CHANNELS.copyApiUrl) as Promise<string>,
  openDataFolder: () => ipcRenderer.invoke(CHANNELS.openDataFolder) as Promise<void>,
  restart: () => ipcRenderer.invoke(CHANNELS.restart) as Promise<void>,
  preferences: {
    get: () => ipcRenderer.invoke(CHANNELS.preferencesGet) as Promise<DesktopPreferences>,
    set: (patch: PreferencesPatch) => ipcRenderer.invoke(CHANNELS.preferencesSet, patch) as Promise<DesktopPreferences>,
    onChange(listener: (prefs: DesktopPreferences) => void) {
      const relay = (_event: IpcRendererEvent, prefs: DesktopPreferences) => listener(prefs);
      ipcRenderer.on(CHANNELS.preferencesChanged, relay);
      return () => {
        ipcRenderer.removeListener(CHANNELS.preferencesChanged, relay);
      };
    },
  },
};

contextBridge.exposeInMainWorld('deskbase', api);
