// Social handles: per-platform rules; "@name" and pasted profile links are reduced to the handle.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFieldCatalog } from './catalog.js';

const catalog = createFieldCatalog();
const check = (platform: string, handle: string) => catalog.check(catalog.definition('social')!, { platform, handle }, undefined, undefined, 0);

describe('social handles', () => {
  it('reduces @handles and profile links to the bare handle and links the profile', () => {
    const cases: [string, string, string, string][] = [
      ['github', 'octocat', 'octocat', 'https://github.com/octocat'],
      ['github', 'https://github.com/torvalds', 'torvalds', 'https://github.com/torvalds'],
      ['x', '@jack', 'jack', 'https://x.com/jack'],
      ['x', 'https://twitter.com/NASA', 'NASA', 'https://x.com/NASA'],
      ['instagram', 'instagram.com/nasa/', 'nasa', 'https://www.instagram.com/nasa/'],
      ['linkedin', 'https://www.linkedin.com/in/williamhgates/', 'williamhgates', 'https://www.linkedin.com/in/williamhgates'],
      ['mastodon', '@Gargron@Mastodon.Social', 'Gargron@mastodon.social', 'https://mastodon.social/@Gargron'],
      ['mastodon', 'https://fosstodon.org/@ada', 'ada@fosstodon.org', 'https://fosstodon.org/@ada'],
      ['bluesky', '@Alice.BSky.Social', 'alice.bsky.social', 'https://bsky.app/profile/alice.bsky.social'],
      ['youtube', 'https://www.youtube.com/@MrBeast', 'MrBeast', 'https://www.youtube.com/@MrBeast'],
      ['telegram', 't.me/durov', 'durov', 'https://t.me/durov'],
    ];
    for (const [platform, typed, handle, url] of cases) {
      const outcome = check(platform, typed);
      assert.ok(outcome.ok, `${platform} ${typed}: ${JSON.stringify(outcome)}`);
      assert.deepEqual(outcome.checked.value, { platform, handle });
      assert.equal(outcome.checked.details.url, url);
    }
  });

  it('refuses handles the platform would not allow', () => {
    const cases: [string, string][] = [
      ['x', 'this_handle_is_far_too_long'],
      ['github', '-octocat'],
      ['github', 'octo--cat'],
      ['instagram', 'nasa..gov'],
      ['telegram', 'abc'],
      ['mastodon', 'Gargron'],
      ['bluesky', 'alice'],
    ];
    for (const [platform, handle] of cases) {
      const outcome = check(platform, handle);
      assert.ok(!outcome.ok, `${platform} ${handle}`);
      assert.equal(outcome.errors[0]?.code, 'social_handle_invalid');
    }
    const unknown = check('myspace', 'tom');
    assert.ok(!unknown.ok);
    assert.equal(unknown.errors[0]?.path, '/value/platform');
    assert.equal(unknown.errors[0]?.code, 'enum');
  });
});
