// The operator's commands as a production install runs them: the bundles in dist/commands
// (`npm run admin` runs `node dist/commands/admin.js`), built first when their sources changed.
// A bundle starts in about a second where `tsx src/admin.ts` takes three: the suites that run
// commands dozens of times are the faster for it, and test what operators run.
import { join } from 'node:path';
import { build, TARGETS } from '../../scripts/build.mjs';
import { projectRoot } from '../../src/platform/paths.js';

let built = false;

/** The node arguments that run `script` (admin, backup, restore, rotate-secrets, migrate, purge). */
export function commandArgs(script: string): string[] {
  if (!built) {
    build({ mode: 'if-stale', targets: TARGETS.filter((target) => target.name === 'commands'), say: () => undefined });
    built = true;
  }
  return [join(projectRoot, 'dist', 'commands', `${script}.js`)];
}
