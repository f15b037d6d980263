// Types from the server's catalogues: the generated files are current (field values from the field
// catalog, problem codes from the refusal catalogue and each route's declared refusals), and a
// field value of the wrong shape or a problem code no server answers does not compile.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { FIELD_TYPE_KEYS, SERVER_PROBLEM_CODES } from '../../client/src/index.js';
import { fieldValuesSource, problemCodesSource } from '../../scripts/write-client-catalogues.js';
import type { Document } from '../../scripts/write-client-catalogues.js';
import { buildApp } from '../../src/app.js';
import { FIELD_TYPES } from '../../src/modules/fields/registry.js';
import { loadConfig } from '../../src/platform/config.js';
import { REFUSALS, refusalEntry } from '../../src/platform/refusals.js';
import type { RefusalCode } from '../../src/platform/refusals.js';

const generated = (name: string) => readFileSync(new URL(`../../client/src/generated/${name}`, import.meta.url), 'utf8');

describe('client: types from the catalogues', () => {
  it('field-values.ts and problem-codes.ts are current (else: npm run client:generate)', async () => {
    assert.equal(generated('field-values.ts'), fieldValuesSource(), 'client/src/generated/field-values.ts is stale');
    // The same configuration as scripts/write-openapi.ts, which `client:generate` runs.
    const { app } = await buildApp({ config: loadConfig({ SQLITE_PATH: ':memory:', SECRET_KEY: 'A'.repeat(43) }), logger: false });
    try {
      const document = JSON.parse(JSON.stringify(app.swagger())) as Document;
      assert.equal(generated('problem-codes.ts'), problemCodesSource(document), 'client/src/generated/problem-codes.ts is stale');
      // Every error response names its codes, and every named code is one the catalogue answers.
      const known = new Set<string>(SERVER_PROBLEM_CODES);
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const byStatus = operation['x-problem-codes'] ?? {};
          for (const status of Object.keys((operation as { responses?: object }).responses ?? {})) {
            if (Number(status) < 400) continue;
            const codes = byStatus[status];
            assert.ok(codes?.length, `${method.toUpperCase()} ${path} ${status} names no problem code`);
            for (const code of codes) assert.ok(known.has(code), `${method.toUpperCase()} ${path} ${status}: ${code}`);
          }
        }
      }
    } finally {
      await app.close();
    }
    assert.deepEqual([...FIELD_TYPE_KEYS], FIELD_TYPES.map((type) => type.key));
    assert.deepEqual(new Set(SERVER_PROBLEM_CODES), new Set((Object.keys(REFUSALS) as RefusalCode[]).map((name) => refusalEntry(name).code)));
  });

  it('a wrong field value or problem code is a compile error (test/client/fixtures/typed-client.ts)', () => {
    const fixture = new URL('fixtures/typed-client.ts', import.meta.url).pathname;
    const config = ts.getParsedCommandLineOfConfigFile(new URL('../../client/tsconfig.json', import.meta.url).pathname, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const program = ts.createProgram([fixture], { ...config.options, noEmit: true, rootDir: undefined });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName.split('/').pop()}:${d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    // An unused @ts-expect-error is itself an error: each wrong line must still be refused.
    assert.deepEqual(diagnostics, []);
    const expected = readFileSync(fixture, 'utf8').split('\n').filter((line) => line.includes('@ts-expect-error')).length;
    assert.ok(expected >= 8, `the fixture checks ${expected} refusals`);
  });
});
