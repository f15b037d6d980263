import Bowser from 'bowser';

/** Where a request came from, as a service sees it: no Fastify request. */
export interface ClientInfo {
  ip: string;
  userAgent: string;
}

/**
 * A client with its approximate location ("Berlin, DE"), resolved once per request before any
 * transaction opens (the HTTP layer's `request.client()`), so no lookup holds a database lock.
 */
export interface LocatedClient extends ClientInfo {
  location: string | null;
}

const MAX_USER_AGENT = 512;

export function clientInfo(ip: string, userAgent: string | undefined): ClientInfo {
  return { ip, userAgent: (userAgent ?? '').slice(0, MAX_USER_AGENT) };
}

/** A user agent as people name it: the browser (or program) and the device it runs on, either unknown. */
interface Described {
  browser: string | null;
  device: string | null;
}

/**
 * Descriptions by user agent, bounded: a node sees few distinct user agents (one per browser
 * build), and parsing one costs about 2% of a passkey login's CPU. Emptied when full, so a flood
 * of made-up agents cannot grow it.
 */
const described = new Map<string, Described>();
const MAX_DESCRIBED = 1_000;

function describe(userAgent: string): Described {
  let found = described.get(userAgent);
  if (found === undefined) {
    if (described.size >= MAX_DESCRIBED) described.clear();
    found = parse(userAgent);
    described.set(userAgent, found);
  }
  return found;
}

/**
 * A label a person recognises in a session list, a join request or the security log: "Chrome on
 * iPhone", "Safari on Mac", "Firefox on Windows". No versions, and never the user-agent string
 * itself: a program that is no browser is named by its product ("curl"), else "Unknown device".
 */
export function deviceLabel(userAgent: string): string {
  const { browser, device } = describe(userAgent);
  if (browser && device) return `${browser} on ${device}`;
  return browser ?? device ?? 'Unknown device';
}

/** The device alone ("iPhone", "Mac", "Android phone"), or null when the user agent does not say. */
export function deviceName(userAgent: string): string | null {
  return describe(userAgent).device;
}

// Bowser's names, shortened where they repeat the system ("Samsung Internet for Android").
const BROWSER_SUFFIX = / for (Android|iOS)$/;

function parse(userAgent: string): Described {
  if (!userAgent.trim()) return { browser: null, device: null };
  const parsed = Bowser.parse(userAgent);
  const device = deviceOf(parsed);
  // Without a system the browser guess is not worth showing: Bowser reads "Opera" in "VID operator".
  if (!device) return { browser: productName(userAgent), device: null };
  const browser = parsed.browser.name ? parsed.browser.name.replace(BROWSER_SUFFIX, '') : null;
  return { browser, device };
}

/** The kind of device, in the words its owner uses for it. */
function deviceOf(parsed: Bowser.Parser.ParsedResult): string | null {
  const type = parsed.platform.type;
  switch (parsed.os.name) {
    case 'iOS':
    case 'iPadOS':
      return parsed.platform.model && /^(iPhone|iPad|iPod)$/.test(parsed.platform.model) ? parsed.platform.model : type === 'tablet' ? 'iPad' : 'iPhone';
    case 'macOS':
      return 'Mac';
    case 'Windows':
      return 'Windows';
    case 'Android':
      return type === 'tablet' ? 'Android tablet' : type === 'mobile' ? 'Android phone' : 'Android';
    case 'Chrome OS':
      return 'Chromebook';
    case 'Linux':
      return 'Linux';
    default:
      return parsed.os.name || null;
  }
}

// RFC 9110 §10.1.5: User-Agent = product *( RWS ( product / comment ) ), product = token ["/" version].
const PRODUCT = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

/**
 * What a program that is no browser calls itself: the product names before the first comment,
 * without versions ("VID operator (npm run admin)" → "VID operator", "curl/8.4.0" → "curl").
 * "Mozilla" is every browser's legacy first token and names nothing.
 */
function productName(userAgent: string): string | null {
  const names: string[] = [];
  for (const word of userAgent.trim().split(/\s+/)) {
    if (word.startsWith('(') || names.length === 3) break;
    const name = word.split('/')[0]!;
    if (!PRODUCT.test(name)) break;
    names.push(name);
  }
  const label = names.join(' ');
  return label && label !== 'Mozilla' ? label : null;
}
