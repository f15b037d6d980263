import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import semver from 'semver';
import { projectRoot } from '../../src/platform/paths.js';

const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');
const engines: string = JSON.parse(read('package.json')).engines.node;
/** The oldest Node of each line the range allows (^20.19.0 || >=22.13.0: 20.19.0 and 22.13.0). */
const oldest = new semver.Range(engines).set.map((comparators) => semver.minVersion(new semver.Range(comparators.map((c) => c.value).join(' ')))!);

describe('the Node versions VID names', () => {
  it('install every locked package without an engine warning (npm EBADENGINE), on the oldest of each line', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const wanted = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (!path || !wanted) continue;
      for (const version of oldest) {
        if (!semver.satisfies(version, wanted)) refused.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${wanted}, not ${version}`);
      }
    }
    assert.deepEqual(refused, [], 'pin a version that runs on the stated Node (package.json overrides or an exact version), or raise engines and the README together');
  });

  it('are the ones the README states, and this machine runs one of them', () => {
    const stated = read('README.md').match(/^- Node\.js ([^,;]+)/m)?.[1];
    assert.ok(stated, 'the README names the Node version in its requirements list');
    for (const version of oldest) assert.match(stated, new RegExp(`\\b${version.major}\\.${version.minor}\\b`), `the README states ${version.major}.${version.minor} as package.json engines does (${engines})`);
    assert.ok(semver.satisfies(process.version, engines), `${process.version} is outside engines ${engines}`);
  });
});
