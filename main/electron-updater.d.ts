// electron-updater is a dependency to be installed (see README, "Updates"); until it is, this gives
// `import('electron-updater')` in main/index.ts the shape Deskbase uses (main/updates.ts, UpdaterLike).
// Once the package is installed its own types are found first and this declaration is not used.
declare module 'electron-updater' {
  export const autoUpdater: import('./updates.js').UpdaterLike;
}
