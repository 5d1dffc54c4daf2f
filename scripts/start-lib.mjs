// The decisions behind `npm start`, as plain functions over the environment and a file-system probe,
// so they are tested without Electron (scripts/start.mjs does the spawning).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An Electron that exits with an error this soon after launch never opened its window: serve headless instead. */
export const EARLY_EXIT_MS = 10_000;

/**
 * @typedef {{ exists(path: string): boolean, read(path: string): string | null, platform: string, electronDir: string }} Probe
 * @typedef {{ ok: true, binary: string } | { ok: false, reason: string, downloadable: boolean }} Availability
 */

/** A probe of the real file system, for the electron package under `root`. */
export function nodeProbe(root, platform = process.platform) {
  return {
    exists: (path) => existsSync(path),
    read: (path) => {
      try {
        return readFileSync(path, 'utf8').trim();
      } catch {
        return null;
      }
    },
    platform,
    electronDir: join(root, 'node_modules', 'electron'),
  };
}

/**
 * Can the desktop window open here? Mirrors how the electron package finds its binary (path.txt, written
 * by its download step, names it under dist/; ELECTRON_OVERRIDE_DIST_PATH replaces dist/). Electron 45
 * downloads its binary on first use rather than at npm install: `downloadable` says that would help.
 * @param {Record<string, string | undefined>} env
 * @param {Probe} probe
 * @returns {Availability}
 */
export function electronAvailability(env, probe) {
  if (env.DESKBASE_HEADLESS === '1' || env.DESKBASE_HEADLESS === 'true') {
    return { ok: false, reason: 'DESKBASE_HEADLESS is set', downloadable: false };
  }
  if (!probe.exists(join(probe.electronDir, 'package.json'))) {
    return { ok: false, reason: 'the electron package is not installed (run npm install)', downloadable: false };
  }
  if (probe.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, reason: 'there is no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set)', downloadable: false };
  }
  const executable = probe.read(join(probe.electronDir, 'path.txt'));
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (!executable && !override) {
    return { ok: false, reason: "Electron's binary was never downloaded (node_modules/electron/path.txt is missing)", downloadable: true };
  }
  const binary = override ? join(override, executable || 'electron') : join(probe.electronDir, 'dist', executable ?? '');
  if (!probe.exists(binary)) return { ok: false, reason: `Electron's binary is missing (${binary} does not exist)`, downloadable: !override };
  return { ok: true, binary };
}

/** The one sentence `npm start` prints before serving headless. */
export function headlessNotice(reason) {
  const sentence = reason.charAt(0).toUpperCase() + reason.slice(1);
  return `${sentence}, so Deskbase runs without its desktop window: open the Admin UI address below in a browser.`;
}

/** Did Electron fail at launch (missing libraries, no sandbox...) rather than quit after use? */
export function failedAtLaunch(code, elapsedMs) {
  return code !== 0 && code !== null && elapsedMs < EARLY_EXIT_MS;
}
