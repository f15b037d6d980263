// Runs the example against a local server: `PUBLIC_ORIGIN=http://localhost:5173 npm start` in the
// checkout, then `npx vite --config react/examples/contacts/vite.config.ts` and open
// http://localhost:5173 (the page and /api/ share that origin, which passkeys and DPoP proofs are
// bound to). VITE_PREACT=1 builds it with Preact through preact/compat instead of React.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const preact = process.env.VITE_PREACT === '1';

export default defineConfig({
  root: here('.'),
  oxc: { jsx: { runtime: 'automatic', importSource: preact ? 'preact' : 'react' } },
  resolve: {
    alias: [
      // As an app installs them; here from the checkout's sources.
      { find: /^@vid\/client$/, replacement: here('../../../client/src/index.ts') },
      { find: /^@vid\/react$/, replacement: here('../../src/index.ts') },
      ...(preact
        ? [
            { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
            { find: /^react-dom$/, replacement: 'preact/compat' },
            { find: /^react$/, replacement: 'preact/compat' },
          ]
        : []),
    ],
  },
  server: { port: 5173, strictPort: true, proxy: { '/api': process.env.VID_ORIGIN ?? 'http://localhost:8080' } },
  build: { outDir: here('../../../build/react-example'), emptyOutDir: true },
});
