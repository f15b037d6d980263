import { isIP } from 'node:net';
import { asciiDomain } from './email.js';
import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Links (RFC 3986 URIs, parsed and serialised by the WHATWG URL Standard as browsers do),
 * restricted to http and https: javascript:, data: and file: links shown on a card would be a
 * way to attack whoever clicks them. "example.com/me" is read as https://example.com/me.
 */
export const urlType: FieldTypeDefinition = {
  key: 'url',
  label: 'Link',
  description:
    'A web link, http or https only. A link typed without a scheme gets https://. Stored in the WHATWG serialisation ' +
    '(lower-case scheme and host, Punycode host, default port dropped); user names and passwords in links are refused.',
  multiple: true,
  country: 'none',
  suggestedLabels: ['homepage', 'blog', 'work'],
  valueSchema: { type: 'string', minLength: 1, maxLength: 2048, examples: ['https://example.com/~ada', 'bücher.example/katalog'] },
  validate(value) {
    const text = (value as string).trim();
    // "localhost:8080" has a scheme-like prefix but no "//": treat as scheme-less as well.
    const hasScheme = SCHEME.test(text) && (/^https?:/i.test(text) || !/^[^:]+:\d/.test(text));
    let url: URL;
    try {
      url = new URL(hasScheme ? text : `https://${text}`);
    } catch {
      return invalid('/value', 'url_invalid', 'not a valid link');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return invalid('/value', 'url_scheme_not_allowed', 'only http and https links are accepted');
    }
    if (url.username || url.password) {
      return invalid('/value', 'url_credentials_not_allowed', 'links may not carry a user name or password');
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!isIP(host) && !asciiDomain(host)) return invalid('/value', 'url_host_invalid', 'the link does not name a valid host');
    return { ok: true, value: url.href };
  },
};
