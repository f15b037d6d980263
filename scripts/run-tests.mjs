#!/usr/bin/env node
// Finds every *.test.ts under src/ and test/ and runs them in one `node --test` run, so the
// closing summary counts every suite on every backend. Extra arguments go to node --test.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const explicit = args.filter((a) => a.endsWith('.test.ts'));
const flags = args.filter((a) => !a.endsWith('.test.ts'));
const roots = (process.env.VID_TEST_ROOTS ?? 'src,test').split(',');
const files = explicit.length ? explicit : roots.flatMap((root) => collect(root)).sort();
// Recorded units are strict in tests (recorded-unit.ts): a keyed route that awaits something else
// after its service call, or a direct statement inside an open unit, fails its request.
const env = { ...process.env, VID_STRICT_RECORDED_UNITS: process.env.VID_STRICT_RECORDED_UNITS ?? '1' };
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', ...flags, ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
