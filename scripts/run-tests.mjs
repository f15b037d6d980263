#!/usr/bin/env node
// Finds every *.test.ts under src/ and test/ and runs them in one `node --test` run, so the
// closing summary counts every suite on every backend. Extra arguments go to node --test.
//
// The slowest files start first (longest first is what keeps four lanes evenly busy): their
// durations are test/durations.json, as the last full run measured them. Each run writes its own
// to test-artifacts/test-durations.json; `npm run test:durations` copies that over the checked-in
// file. A file it does not know counts as a middling one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
const known = existsSync('test/durations.json') ? JSON.parse(readFileSync('test/durations.json', 'utf8')) : {};
const UNKNOWN_SECONDS = 20;
const expected = (file) => known[file] ?? UNKNOWN_SECONDS;
const files = (explicit.length ? explicit : roots.flatMap((root) => collect(root)).sort()).sort((a, b) => expected(b) - expected(a));
// TAP on stdout as before (CI reads it), and the durations beside it.
const reporters = flags.some((flag) => flag.startsWith('--test-reporter')) ? [] : (mkdirSync('test-artifacts', { recursive: true }), [
  '--test-reporter=tap', '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/durations-reporter.mjs', '--test-reporter-destination=test-artifacts/test-durations.json',
]);
// Recorded units are strict in tests (recorded-unit.ts): a keyed route that awaits something else
// after its service call, or a direct statement inside an open unit, fails its request.
const env = { ...process.env, VID_STRICT_RECORDED_UNITS: process.env.VID_STRICT_RECORDED_UNITS ?? '1' };
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', ...reporters, ...flags, ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
