import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

// The admin UI is served by our own server at /_/ (as PocketBase serves its dashboard), so every asset
// URL is built under that base and routing happens in the hash.
export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: '/_/',
  plugins: [solid()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 200,
  },
});
