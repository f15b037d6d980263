// Links: RFC 3986 / WHATWG URL, http and https only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFieldCatalog } from './catalog.js';

const catalog = createFieldCatalog();
const check = (value: string) => catalog.check(catalog.definition('url')!, value, undefined, undefined, 0);

describe('links', () => {
  it('stores the WHATWG serialisation and keeps what was typed', () => {
    const cases: [string, string][] = [
      ['https://example.com', 'https://example.com/'],
      ['HTTPS://Example.COM:443/Path?q=1#top', 'https://example.com/Path?q=1#top'],
      ['example.com/~ada', 'https://example.com/~ada'],
      ['www.bücher.de/katalog', 'https://www.xn--bcher-kva.de/katalog'],
      ['http://example.com:8080/a b', 'http://example.com:8080/a%20b'],
      ['https://[2001:db8::1]/', 'https://[2001:db8::1]/'],
    ];
    for (const [typed, stored] of cases) {
      const outcome = check(typed);
      assert.ok(outcome.ok, typed);
      assert.equal(outcome.checked.value, stored);
      assert.equal(outcome.checked.original, typed === stored ? null : typed);
    }
  });

  it('refuses other schemes, credentials and hosts that are not host names', () => {
    const cases: [string, string][] = [
      ['javascript:alert(1)', 'url_scheme_not_allowed'],
      ['data:text/html,<script>alert(1)</script>', 'url_scheme_not_allowed'],
      ['ftp://ftp.example.com/file', 'url_scheme_not_allowed'],
      ['mailto:ada@example.com', 'url_scheme_not_allowed'],
      ['https://bank.example@evil.example/', 'url_credentials_not_allowed'],
      ['https://localhost/', 'url_host_invalid'],
      ['http://exa mple.com', 'url_invalid'],
    ];
    for (const [typed, code] of cases) {
      const outcome = check(typed);
      assert.ok(!outcome.ok, typed);
      assert.equal(outcome.errors[0]?.code, code, typed);
    }
  });
});
