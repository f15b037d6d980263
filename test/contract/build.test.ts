import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { build, TARGETS } from '../../scripts/build.mjs';
import type { BuildTarget } from '../../scripts/build.mjs';
import { projectRoot } from '../../src/platform/paths.js';

/** A target that appends one line to its output each time it is built, so builds can be counted. */
function counting(name: string): BuildTarget {
  return {
    name,
    what: name,
    output: `out/${name}.txt`,
    inputs: [name, 'shared.lock'],
    keep: (path) => !path.endsWith('.test.ts'),
    command: ['-e', `require('fs').mkdirSync('out', { recursive: true }); require('fs').appendFileSync('out/${name}.txt', 'built\\n')`],
  };
}

describe('npm start builds only what changed (scripts/build.mjs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'vid-build-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const builds = (name: string) => readFileSync(join(root, 'out', `${name}.txt`), 'utf8').split('\n').filter(Boolean).length;
  const targets = [counting('server'), counting('web')];
  const start = () => build({ root, targets, mode: 'if-stale', say: () => {} });

  it('builds everything the first time, then nothing until an input changes, then only what it feeds', () => {
    write('server/main.ts', 'one');
    write('web/app.ts', 'one');
    write('shared.lock', 'v1');
    assert.deepEqual(start(), ['server', 'web']);
    assert.deepEqual(start(), []);
    assert.deepEqual([builds('server'), builds('web')], [1, 1]);

    write('web/app.ts', 'two');
    assert.deepEqual(start(), ['web']);
    assert.deepEqual([builds('server'), builds('web')], [1, 2]);
    // A new file counts; a test file does not.
    write('server/more.ts', 'x');
    write('server/main.test.ts', 'x');
    assert.deepEqual(start(), ['server']);
    // node_modules stands in as the lock file: a new one rebuilds both.
    write('shared.lock', 'v2');
    assert.deepEqual(start(), ['server', 'web']);
    assert.deepEqual([builds('server'), builds('web')], [3, 3]);
  });

  it('goes by contents, not times: a touched file builds nothing', () => {
    utimesSync(join(root, 'server/main.ts'), new Date(), new Date(Date.now() + 60_000));
    assert.deepEqual(start(), []);
  });

  it('builds again what is missing, and reports without building in check mode', () => {
    rmSync(join(root, 'out', 'web.txt'));
    assert.deepEqual(build({ root, targets, mode: 'check', say: () => {} }), ['web']);
    assert.deepEqual(start(), ['web']);
    assert.equal(builds('web'), 1);
    assert.deepEqual(build({ root, targets, mode: 'check', say: () => {} }), []);
  });

  it('records nothing for a failed build, so the next start tries again', () => {
    write('server/main.ts', 'broken');
    const failing = { ...targets[0]!, command: ['-e', 'process.exit(2)'] };
    assert.throws(() => build({ root, targets: [failing], mode: 'if-stale', say: () => {} }), /Building server failed \(exit 2\)/);
    assert.deepEqual(start(), ['server']);
  });

  it("names every input of the real outputs: the server's and the web app's sources import nothing outside them", () => {
    const inputsOf = (name: string) => TARGETS.find((target) => target.name === name)!.inputs.map((path) => resolve(projectRoot, path));
    for (const [name, folder] of [['server', 'src'], ['web', 'web/src']] as const) {
      const allowed = inputsOf(name);
      for (const file of sources(join(projectRoot, folder))) {
        for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
          const target = resolve(dirname(file), specifier!);
          assert.ok(allowed.some((input) => !relative(input, target).startsWith('..')), `${relative(projectRoot, file)} imports ${specifier}, outside the ${name} build's inputs (scripts/build.mjs)`);
        }
      }
    }
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}
