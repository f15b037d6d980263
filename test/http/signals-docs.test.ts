// docs/events.md is generated from the signal catalogue (ARCHITECTURE habit 8): it must be current.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EVENTS_DOC, renderEventsDoc } from '../../scripts/gen-events-doc.js';
import { SIGNAL_KINDS } from '../../src/platform/signals/catalogue.js';

describe('signals: the catalogue and its generated docs', () => {
  it('docs/events.md matches src/platform/signals/catalogue.ts (run npm run docs:events after changing it)', () => {
    assert.equal(readFileSync(EVENTS_DOC, 'utf8'), renderEventsDoc());
  });

  it('names kinds noun.changed-style, each with a resource path and a description', () => {
    for (const [kind, entry] of Object.entries(SIGNAL_KINDS)) {
      // A noun may be hyphenated as its resource is (PRODUCT §9 names dav-tokens.changed).
      assert.match(kind, /^[a-z_-]+(\.[a-z_-]+)*\.(changed|requested)$/);
      assert.match(entry.resource, /^\//);
      assert.ok(entry.description.length > 10);
    }
  });
});
