// Debian's Chromium as the browser tests run it: its path (CHROMIUM_PATH to use another) and flags.
// No Vitest import here: the e2e project's global setup (test/support/build-ui.ts) starts it in
// Vitest's main process.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
