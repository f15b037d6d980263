// src/modules/read-side.ts names the rules that keep every reader right and the test holding each:
// a rule without a test, or a test that was renamed away, fails here.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { READ_SIDE_RULES, READERS } from '../../src/modules/read-side.js';

describe('read side: every rule is held by a test that exists', () => {
  it('names a test file for each rule, and each exists', () => {
    assert.ok(READ_SIDE_RULES.length >= 5);
    for (const rule of READ_SIDE_RULES) {
      assert.match(rule.heldBy, /^test\/.+\.test\.ts$/, rule.rule);
      assert.ok(existsSync(rule.heldBy), `${rule.rule}: ${rule.heldBy} does not exist`);
    }
  });
  it('names the source file of every reader, and each exists', () => {
    for (const [reader, where] of Object.entries(READERS)) {
      const file = /^([\w/.-]+\.ts)/.exec(where)?.[1];
      if (!file) continue;
      const path = file.startsWith('platform/') ? `src/${file}` : `src/modules/${file}`;
      assert.ok(existsSync(path), `${reader}: ${path} does not exist`);
    }
  });
});
