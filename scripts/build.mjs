#!/usr/bin/env node
// Builds what `npm start` and the operator's commands run: four outputs, each from its inputs.
//   types:  tsc -p tsconfig.build.json → dist/src (the type check of the build)
//   server: scripts/bundle-server.ts   → dist/server.js (what npm start runs, decision 120)
//   commands: scripts/bundle-server.ts --commands → dist/commands/*.js (npm run admin, backup, …)
//   web:    vite build                 → web/dist (the web app the server serves)
// After building an output it records the SHA-256 of its inputs (their paths and contents;
// node_modules stands in as package-lock.json) in dist/.stamps. With --if-stale (npm start) it
// builds only the outputs that are missing or whose inputs' digest differs from the recorded one,
// so starting an unchanged checkout costs one read of the sources, not three compilers.
// Contents, not times: a fresh clone, a branch switched and back, or a `touch` build nothing new.
// --check only reports what is stale (exit 1 when anything is). Plain JavaScript, so checking
// starts no compiler.
// Usage: node scripts/build.mjs [--if-stale | --check] [target…]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const bin = (path) => join(projectRoot, 'node_modules', path);
const notTests = (path) => !path.endsWith('.test.ts');

export const TARGETS = [
  {
    name: 'types',
    what: 'the type check (tsc)',
    output: 'dist/src/server.js',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    keep: notTests,
    command: [bin('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  },
  {
    name: 'server',
    what: 'the server bundle',
    output: 'dist/server.js',
    inputs: ['src', 'scripts/bundle-server.ts', 'tsconfig.json', 'package-lock.json'],
    keep: notTests,
    command: ['--import', 'tsx', 'scripts/bundle-server.ts'],
  },
  {
    name: 'commands',
    what: "the operator's commands (admin, backup, restore, rotate-secrets, region-key, migrate, purge)",
    output: 'dist/commands/admin.js',
    inputs: ['src', 'scripts/bundle-server.ts', 'tsconfig.json', 'package-lock.json'],
    keep: notTests,
    command: ['--import', 'tsx', 'scripts/bundle-server.ts', '--commands'],
  },
  {
    name: 'web',
    what: 'the web app',
    output: 'web/dist/index.html',
    // The web app imports the client's sources (client/src), and nothing else of the project.
    inputs: ['web', 'client/src', 'package-lock.json'],
    keep: (path) => !path.startsWith('web/dist/') && notTests(path),
    command: [bin('vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts'],
  },
];

/** Every file under `paths` (files or folders, relative to `root`) that `keep` keeps, sorted. */
function files(root, paths, keep) {
  const found = [];
  const walk = (path) => {
    for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (entry.isFile() && keep(child)) found.push(child);
    }
  };
  for (const path of paths) {
    const full = join(root, path);
    if (!existsSync(full)) continue;
    if (statSync(full).isDirectory()) walk(path);
    else if (keep(path)) found.push(path);
  }
  return found.sort();
}

/** The digest of a target's inputs: each path and its contents, in order. */
function digest(root, target) {
  const hash = createHash('sha256');
  for (const path of files(root, target.inputs, target.keep)) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function recorded(stamp) {
  try {
    return readFileSync(stamp, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Builds `targets` in order ('all'), or only the stale ones ('if-stale'), or reports the stale
 * ones ('check'). Answers the names of the stale targets (built, unless checking); throws when a
 * build fails.
 */
export function build({ root = projectRoot, targets = TARGETS, mode = 'all', say = console.log } = {}) {
  const stamps = join(root, 'dist', '.stamps');
  const stale = [];
  for (const target of targets) {
    const stamp = join(stamps, `${target.name}.sha256`);
    // Digested before building: a file edited during the build makes the next start build again.
    const inputs = digest(root, target);
    const built = existsSync(join(root, target.output));
    const fresh = built && recorded(stamp) === inputs;
    if (!fresh) stale.push(target.name);
    if (mode === 'check') {
      if (!fresh) say(`${target.name}: stale`);
      continue;
    }
    if (mode === 'if-stale' && fresh) continue;
    say(`Building ${target.what}${fresh ? '' : built ? ': its sources changed' : ': not built yet'}…`);
    const started = Date.now();
    // An install without dev dependencies (npm ci --omit=dev) has no compiler: say what to do.
    const [first, second] = target.command;
    const compiler = first === '--import' ? join(root, 'node_modules', second) : isAbsolute(first) ? first : undefined;
    if (compiler && !existsSync(compiler)) throw new Error(`${target.what} ${built ? 'is out of date' : 'is not built'}, and this install has no compiler (installed with --omit=dev?): run \`npm ci && npm run build\` first, then \`npm ci --omit=dev\``);
    const result = spawnSync(process.execPath, target.command, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`Building ${target.what} failed (exit ${result.status ?? result.signal}); fix the errors above and try again.`);
    mkdirSync(stamps, { recursive: true });
    writeFileSync(stamp, `${inputs}\n`);
    say(`Built ${target.what} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const mode = process.argv.includes('--check') ? 'check' : process.argv.includes('--if-stale') ? 'if-stale' : 'all';
  // Names after the flags build only those targets (`--if-stale commands` before an operator's command).
  const names = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const unknown = names.filter((name) => !TARGETS.some((target) => target.name === name));
  if (unknown.length) {
    console.error(`unknown build target ${unknown.join(', ')}; targets: ${TARGETS.map((target) => target.name).join(', ')}`);
    process.exit(2);
  }
  try {
    const stale = build({ mode, targets: names.length ? TARGETS.filter((target) => names.includes(target.name)) : TARGETS });
    if (mode === 'check') process.exit(stale.length ? 1 : 0);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
