// The web app served by VID at / (src/modules/web-app/routes.ts serves web/dist). Components are
// Preact (decision 160): JSX compiles to preact's automatic runtime.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import type { Plugin } from 'vite';

/**
 * The phone formatter from libphonenumber-js's "es6-modern" build: the same source as its "es6"
 * build (both made by the package's own `npm run build`), compiled with native classes instead of
 * Babel's helpers repeated in every module, about 2.7 KB less gzipped (decision 230). The
 * package exports only "es6", so its modules are swapped here, all of them or none.
 */
function modernPhoneFormatter(): Plugin {
  const root = dirname(createRequire(import.meta.url).resolve('libphonenumber-js/package.json'));
  const legacy = join(root, 'es6') + sep;
  const modern = join(root, 'es6-modern') + sep;
  const available = existsSync(join(modern, 'AsYouType.js'));
  return {
    name: 'vid:libphonenumber-es6-modern',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!available) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved?.id.startsWith(legacy)) return resolved;
      const swapped = modern + resolved.id.slice(legacy.length);
      if (!existsSync(swapped)) throw new Error(`libphonenumber-js has no es6-modern copy of ${resolved.id}`);
      return { ...resolved, id: swapped };
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [modernPhoneFormatter()],
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
