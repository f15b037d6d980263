// Every public member of @vid/client is documented: TypeDoc (client/typedoc.json) reads both entry
// points with validation.notDocumented and treats each warning as an error, so a new export,
// option or client method without a doc comment fails here (and `npm run client:docs` refuses).
// The same for @vid/react (react/typedoc.json).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { projectRoot } from '../../src/platform/paths.js';

const run = promisify(execFile);

describe('client: documentation', () => {
  it('@vid/react: TypeDoc finds no undocumented export or broken link', async () => {
    // react/typedoc.json reads @vid/client from its sources (not client/dist, which the pack test
    // rebuilds meanwhile), with the client's TSDoc tags (react/tsdoc.json).
    const typedoc = join(projectRoot, 'node_modules/typedoc/bin/typedoc');
    const result = await run(process.execPath, [typedoc, '--emit', 'none'], { cwd: join(projectRoot, 'react') }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    const output = `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
    assert.doesNotMatch(output, /\[(warning|error)\]/, output);
    assert.equal((result as { code?: number }).code ?? 0, 0, output);
  });

  it('TypeDoc finds no undocumented export, member or broken link', async () => {
    const typedoc = join(projectRoot, 'node_modules/typedoc/bin/typedoc');
    const result = await run(process.execPath, [typedoc, '--emit', 'none'], { cwd: join(projectRoot, 'client') }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    const output = `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
    assert.doesNotMatch(output, /\[(warning|error)\]/, output);
    assert.equal((result as { code?: number }).code ?? 0, 0, output);
  });
});
