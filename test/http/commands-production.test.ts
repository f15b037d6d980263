// The operator's commands on a production install (issue: after `npm ci --omit=dev` every one
// failed with "tsx: not found"). The commands are bundled into dist/commands by the build; a copy
// of the project as an image holds it (sources, the build's outputs and stamps) gets a
// node_modules of the production dependencies only (those `npm ls --omit=dev` names, the set
// `npm ci --omit=dev` installs from the same lockfile), and every command runs through its
// `npm run` script there: no tsx, no esbuild, no TypeScript.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { projectRoot } from '../../src/platform/paths.js';
import { TEST_SECRET_KEY } from '../helpers/app.js';

const run = promisify(execFile);

describe('operator commands on an install without dev dependencies [sqlite]', () => {
  const image = mkdtempSync(join(tmpdir(), 'vid-image-'));
  const env = { ...process.env, DATABASE_URL: '', REDIS_URL: '', SQLITE_PATH: join(image, 'var', 'vid.sqlite'), SECRET_KEY: TEST_SECRET_KEY, PUBLIC_ORIGIN: 'https://id.example.test' };

  before(() => {
    // What the image build does before it drops the dev dependencies.
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', 'commands'], { cwd: projectRoot, stdio: 'ignore' });
    for (const path of ['package.json', 'package-lock.json', 'tsconfig.json', 'src', 'data/unicode', 'data/reserved-usernames.txt', 'data/address-rules.json', 'scripts/build.mjs', 'scripts/bundle-server.ts', 'dist/commands', 'dist/.stamps/commands.sha256']) {
      cpSync(join(projectRoot, path), join(image, path), { recursive: true, filter: (from) => !from.endsWith('.test.ts') });
    }
    const production = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: projectRoot, encoding: 'utf8', maxBuffer: 1 << 24 })
      .split('\n')
      .filter((path) => path.startsWith(join(projectRoot, 'node_modules') + '/'));
    for (const path of production) {
      const inside = relative(projectRoot, path);
      if (existsSync(join(image, inside))) continue;
      mkdirSync(join(image, inside, '..'), { recursive: true });
      symlinkSync(path, join(image, inside), 'dir');
    }
    for (const devOnly of ['tsx', 'esbuild', 'typescript']) assert.ok(!existsSync(join(image, 'node_modules', devOnly)), `${devOnly} is a dev dependency`);
  });
  after(() => rmSync(image, { recursive: true, force: true }));

  async function npmRun(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run('npm', ['run', '--silent', script, '--', ...args], { cwd: image, env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  it('migrates, administers, purges, rotates, backs up and restores with the bundled commands', async () => {
    const migrated = await npmRun('migrate');
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /applied: /);
    assert.equal(statSync(env.SQLITE_PATH).mode & 0o077, 0);

    const shown = await npmRun('admin', 'show', 'nobody_here');
    assert.notEqual(shown.code, 0);
    assert.match(shown.stderr + shown.stdout, /nobody_here/);
    assert.doesNotMatch(shown.stderr, /tsx|ERR_MODULE_NOT_FOUND|Cannot find/);

    const purged = await npmRun('purge');
    assert.equal(purged.code, 0, purged.stderr);
    assert.match(purged.stdout, /purged 0 account\(s\)/);

    const rotated = await npmRun('rotate-secrets');
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stdout, /Everything is sealed under the current key/);

    const file = join(image, 'backup.sqlite');
    const backedUp = await npmRun('backup', file);
    assert.equal(backedUp.code, 0, backedUp.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600);

    const restored = await npmRun('restore', file);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored /);
  });
});
