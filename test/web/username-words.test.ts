// Every reason the username rules give for refusing a name becomes a plain sentence in the web
// app, never the fallback: a new rule on the server without its words fails here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { enforceUsername } from '../../src/modules/usernames/rules.js';
import { usernameWords } from '../../web/src/core/username-words.js';

const FALLBACK = 'That username cannot be used.';

describe('web: the words for a refused username', () => {
  it('has a sentence for each rule the server names', () => {
    const refused = ['ab', 'a'.repeat(33), 'pаypal', 'ab\u{10480}c', '1١2', 'al ice', '.alice', 'alice.', 'a..b', 'a.\u0301b', '\u05D0\u05D1c1', 'alic\u0486e', '\u0661abc'];
    for (const name of refused) {
      const verdict = enforceUsername(name);
      assert.equal(verdict.ok, false, name);
      if (verdict.ok) continue;
      const words = usernameWords({ available: false, reason: 'invalid', detail: verdict.detail, username: name });
      assert.notEqual(words, FALLBACK, `${JSON.stringify(name)}: "${verdict.detail}" has no words`);
      assert.doesNotMatch(words, /U\+|UTS|RFC/, words);
    }
  });
});
