// The OpenAPI document through the generators other projects use: openapi-typescript (which the
// client's types come from) and @hey-api/openapi-ts (an SDK with an auth hook per security
// scheme). Neither may warn; in particular about the DPoP scheme, which @hey-api/openapi-ts
// warned about once per authenticated operation while it was written as `type: http, scheme:
// DPoP` (decision 320).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';

const bin = (name: string) => join(process.cwd(), 'node_modules', '.bin', name);

/** Runs a generator; answers what it wrote to stdout and stderr (warnings go to stderr). */
function run(name: string, args: string[]): string {
  const result = spawnSync(bin(name), args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 0, output);
  return output;
}

describe('the OpenAPI document in code generators', () => {
  let dir: string;
  let file: string;
  let close: () => Promise<void>;
  before(async () => {
    const { app } = await buildApp({ config: loadConfig({ SQLITE_PATH: ':memory:', SECRET_KEY: 'A'.repeat(43) }), logger: false });
    const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    dir = mkdtempSync(join(tmpdir(), 'vid-generators-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, response.body);
    close = () => app.close();
  });
  after(() => close());

  it('@hey-api/openapi-ts generates an SDK with no warning (none about the DPoP scheme)', () => {
    const output = run('openapi-ts', ['-i', file, '-o', join(dir, 'hey-api'), '--no-log-file']);
    assert.doesNotMatch(output, /warn|unsupported|DPoP/i, output);
    // Both headers reach the generated SDK as auth hooks.
    const sdk = readFileSync(join(dir, 'hey-api', 'sdk.gen.ts'), 'utf8');
    assert.match(sdk, /name: 'Authorization', type: 'apiKey'/);
    assert.match(sdk, /name: 'DPoP', type: 'apiKey'/);
  });

  it('openapi-typescript generates types with no warning', () => {
    const result = run('openapi-typescript', [file, '-o', join(dir, 'openapi.ts'), '--default-non-nullable', 'false']);
    assert.doesNotMatch(result, /warn/i, result);
    assert.match(readFileSync(join(dir, 'openapi.ts'), 'utf8'), /BadRequestWithQuotaAndChallenge/);
  });
});
