// The Identifier_Status=Allowed table the username rules read (data/unicode/) is what ICU's spoof
// checker answers (scripts/write-identifier-status.py over Debian's python3-icu), and it refuses
// the restricted characters an audit registered names with. Fails, never skips, without python3-icu.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const vendored = join(root, 'data', 'unicode', 'identifier-status-allowed.txt');

describe('data/unicode/identifier-status-allowed.txt', () => {
  it('is exactly what ICU builds from Unicode\'s IdentifierStatus.txt', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vid-idstatus-'));
    try {
      const written = join(dir, 'allowed.txt');
      execFileSync('/usr/bin/python3', [join(root, 'scripts', 'write-identifier-status.py'), written]);
      assert.equal(readFileSync(written, 'utf8'), readFileSync(vendored, 'utf8'), 'run scripts/write-identifier-status.py and commit the table');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
