// The web app served by VID at / (src/modules/web-app/routes.ts serves web/dist). Components are
// Preact (decision 160): JSX compiles to preact's automatic runtime.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or data: modules, so the strict Content-Security-Policy holds.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    // Which chunks each screen loads: the bundle budget test reads it (test/web/bundle-budget.test.ts).
    manifest: true,
    target: 'es2022',
  },
});
