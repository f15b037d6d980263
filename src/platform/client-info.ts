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

/**
 * Labels by user agent, bounded: a node sees few distinct user agents (one per browser build),
 * and parsing one costs about 2% of a passkey login's CPU. Emptied when full, so a flood of
 * made-up agents cannot grow it.
 */
const labels = new Map<string, string>();
const MAX_LABELS = 1_000;

/** A label a person recognises in a session list or the security log: "Chrome 131 on macOS". */
export function deviceLabel(userAgent: string): string {
  let label = labels.get(userAgent);
  if (label === undefined) {
    if (labels.size >= MAX_LABELS) labels.clear();
    label = parseDeviceLabel(userAgent);
    labels.set(userAgent, label);
  }
  return label;
}

function parseDeviceLabel(userAgent: string): string {
  if (!userAgent) return 'Unknown device';
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const os = parsed.os.name;
  if (browser && os) return `${browser} on ${os}`;
  return browser || os || userAgent.slice(0, 64);
}
