import { PLATFORMS } from './social-platforms.js';
import type { PlatformRule } from './social-platforms.js';
import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

const byKey = new Map(PLATFORMS.map((p) => [p.key, { rule: p, regex: new RegExp(p.pattern) }]));

/** A handle from what was typed: "@name", "name", or a pasted profile link. */
function extractHandle(rule: PlatformRule, typed: string): string {
  const text = typed.normalize('NFC').trim();
  if (/^https?:\/\//i.test(text) || rule.hosts.some((host) => text.toLowerCase().startsWith(`${host}/`) || text.toLowerCase().startsWith(`www.${host}/`))) {
    try {
      const url = new URL(/^https?:\/\//i.test(text) ? text : `https://${text}`);
      const host = url.hostname.replace(/^www\./, '');
      // Mastodon: https://instance.example/@user names user@instance.example.
      if (rule.key === 'mastodon') {
        const user = /^\/@([^/?#]+)/.exec(url.pathname)?.[1];
        if (user) return `${user}@${host}`;
      } else if (rule.hosts.includes(host) && rule.path) {
        const handle = rule.path.exec(url.pathname)?.[1];
        if (handle) return decodeURIComponent(handle);
      }
    } catch {
      // not a link after all: judged as a handle below
    }
  }
  return text.replace(/^@/, '');
}

function profileUrl(rule: PlatformRule, handle: string): string | undefined {
  if (!rule.profileUrl) return undefined;
  if (rule.key === 'mastodon') {
    const [user, domain] = handle.split('@') as [string, string];
    return rule.profileUrl.replace('{domain}', domain).replace('{user}', encodeURIComponent(user));
  }
  return rule.profileUrl.replace('{handle}', encodeURIComponent(handle));
}

/** A handle on a social platform; profile links and a leading @ are accepted and reduced to the handle. */
export const socialType: FieldTypeDefinition = {
  key: 'social',
  label: 'Social profile',
  description:
    'A platform and a handle on it. The handle may be typed with a leading @ or pasted as a profile link; it is stored bare ' +
    'and checked against the platform\'s handle rule (see `platforms`). details.url is the profile link.',
  multiple: true,
  country: 'none',
  suggestedLabels: ['personal', 'work'],
  valueSchema: {
    type: 'object',
    properties: {
      platform: { type: 'string', enum: PLATFORMS.map((p) => p.key) },
      handle: { type: 'string', minLength: 1, maxLength: 300 },
    },
    required: ['platform', 'handle'],
    additionalProperties: false,
    examples: [{ platform: 'github', handle: 'octocat' }, { platform: 'mastodon', handle: '@Gargron@mastodon.social' }],
  },
  platforms: () => PLATFORMS.map((p) => ({ key: p.key, label: p.label, handle_pattern: p.pattern, example: p.example, profile_url: p.profileUrl })),
  validate(value) {
    const input = value as { platform: string; handle: string };
    const platform = byKey.get(input.platform);
    if (!platform) return invalid('/value/platform', 'social_platform_unknown', 'not a platform of the catalog');
    let handle = extractHandle(platform.rule, input.handle);
    if (platform.rule.lowercase) handle = handle.toLowerCase();
    if (platform.rule.key === 'mastodon') handle = handle.replace(/@([^@]+)$/, (_m, domain: string) => `@${domain.toLowerCase()}`);
    if (!platform.regex.test(handle)) {
      return invalid('/value/handle', 'social_handle_invalid', `not a valid ${platform.rule.label} handle, e.g. ${platform.rule.example}`);
    }
    const url = profileUrl(platform.rule, handle);
    return { ok: true, value: { platform: input.platform, handle }, ...(url ? { details: { url } } : {}) };
  },
};
