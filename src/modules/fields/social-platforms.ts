/**
 * Social platforms and their handle rules, as each platform documents or enforces them at
 * sign-up. `pattern` applies to the normalised handle (no leading @, no URL).
 */
export interface PlatformRule {
  key: string;
  label: string;
  pattern: string;
  example: string;
  /** Profile URL template: {handle}; Mastodon uses {user} and {domain}. */
  profileUrl: string | null;
  /** Hosts a pasted profile link may come from, and where the handle sits in its path. */
  hosts: string[];
  path?: RegExp;
  /** Handles are case-insensitive and conventionally lower-case (Bluesky, Discord). */
  lowercase?: boolean;
}

const DOMAIN = '(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z][a-z0-9-]{0,62}';
const FIRST_SEGMENT = /^\/@?([^/?#]+)/;
const INSTAGRAM = '^(?!\\.)(?!.*\\.\\.)(?!.*\\.$)[A-Za-z0-9._]{1,30}$';

export const PLATFORMS: PlatformRule[] = [
  { key: 'x', label: 'X (Twitter)', pattern: '^[A-Za-z0-9_]{1,15}$', example: 'jack', profileUrl: 'https://x.com/{handle}', hosts: ['x.com', 'twitter.com', 'mobile.twitter.com'], path: FIRST_SEGMENT },
  { key: 'instagram', label: 'Instagram', pattern: INSTAGRAM, example: 'nasa', profileUrl: 'https://www.instagram.com/{handle}/', hosts: ['instagram.com'], path: FIRST_SEGMENT },
  { key: 'threads', label: 'Threads', pattern: INSTAGRAM, example: 'zuck', profileUrl: 'https://www.threads.net/@{handle}', hosts: ['threads.net', 'threads.com'], path: /^\/@([^/?#]+)/ },
  { key: 'facebook', label: 'Facebook', pattern: '^[A-Za-z0-9.]{5,50}$', example: 'zuck', profileUrl: 'https://www.facebook.com/{handle}', hosts: ['facebook.com', 'm.facebook.com', 'fb.com'], path: FIRST_SEGMENT },
  { key: 'linkedin', label: 'LinkedIn', pattern: '^[A-Za-z0-9-]{3,100}$', example: 'williamhgates', profileUrl: 'https://www.linkedin.com/in/{handle}', hosts: ['linkedin.com'], path: /^\/in\/([^/?#]+)/ },
  { key: 'github', label: 'GitHub', pattern: '^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$', example: 'octocat', profileUrl: 'https://github.com/{handle}', hosts: ['github.com'], path: FIRST_SEGMENT },
  { key: 'mastodon', label: 'Mastodon (fediverse)', pattern: `^[A-Za-z0-9_]{1,30}@${DOMAIN}$`, example: 'Gargron@mastodon.social', profileUrl: 'https://{domain}/@{user}', hosts: [] },
  { key: 'bluesky', label: 'Bluesky', pattern: `^(?=.{3,253}$)${DOMAIN}$`, example: 'alice.bsky.social', profileUrl: 'https://bsky.app/profile/{handle}', hosts: ['bsky.app'], path: /^\/profile\/([^/?#]+)/, lowercase: true },
  { key: 'telegram', label: 'Telegram', pattern: '^[A-Za-z][A-Za-z0-9_]{4,31}$', example: 'durov', profileUrl: 'https://t.me/{handle}', hosts: ['t.me', 'telegram.me'], path: FIRST_SEGMENT },
  { key: 'tiktok', label: 'TikTok', pattern: '^[A-Za-z0-9._]{2,24}$', example: 'tiktok', profileUrl: 'https://www.tiktok.com/@{handle}', hosts: ['tiktok.com'], path: /^\/@([^/?#]+)/ },
  { key: 'youtube', label: 'YouTube', pattern: '^[A-Za-z0-9._-]{3,30}$', example: 'YouTube', profileUrl: 'https://www.youtube.com/@{handle}', hosts: ['youtube.com', 'm.youtube.com'], path: /^\/@([^/?#]+)/ },
  { key: 'reddit', label: 'Reddit', pattern: '^[A-Za-z0-9_-]{3,20}$', example: 'spez', profileUrl: 'https://www.reddit.com/user/{handle}', hosts: ['reddit.com', 'old.reddit.com'], path: /^\/(?:u|user)\/([^/?#]+)/ },
  { key: 'snapchat', label: 'Snapchat', pattern: '^[A-Za-z][A-Za-z0-9._-]{1,13}[A-Za-z0-9]$', example: 'teamsnapchat', profileUrl: 'https://www.snapchat.com/add/{handle}', hosts: ['snapchat.com'], path: /^\/add\/([^/?#]+)/ },
  { key: 'signal', label: 'Signal', pattern: '^[A-Za-z_][A-Za-z0-9_]{2,31}\\.[0-9]{2,9}$', example: 'ada.42', profileUrl: null, hosts: [] },
  { key: 'discord', label: 'Discord', pattern: '^(?!.*\\.\\.)[a-z0-9_.]{2,32}$', example: 'ada_l', profileUrl: null, hosts: [], lowercase: true },
];
