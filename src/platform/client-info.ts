import Bowser from 'bowser';

/** Where a request came from, as the domain sees it: no Fastify request. */
export interface ClientInfo {
  ip: string;
  userAgent: string;
}

const MAX_USER_AGENT = 512;

export function clientInfo(ip: string, userAgent: string | undefined): ClientInfo {
  return { ip, userAgent: (userAgent ?? '').slice(0, MAX_USER_AGENT) };
}

/** A label a person recognises in a session list: "Chrome 131 on macOS". */
export function deviceLabel(userAgent: string): string {
  if (!userAgent) return 'Unknown device';
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const os = parsed.os.name;
  if (browser && os) return `${browser} on ${os}`;
  return browser || os || userAgent.slice(0, 64);
}
