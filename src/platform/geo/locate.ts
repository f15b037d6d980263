import geoip from 'fast-geoip';
import { BlockList, isIPv4 } from 'node:net';
import { formatPlace } from './place.js';

// Special-purpose IPv4 ranges (RFC 6890) have no place on a map; the database would answer with
// the nearest public range instead. The database holds IPv4 only.
const UNLOCATABLE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
] as const) {
  UNLOCATABLE.addSubnet(net, prefix, 'ipv4');
}

/**
 * Approximate location of a client address ("Berlin, DE"), from the GeoLite2 data that the
 * fast-geoip package ships: offline, no lookup leaves the machine. Private, loopback and other
 * special addresses, and IPv6 (not in that database), have none.
 */
export type Locate = (ip: string) => Promise<string | null>;

export const locateIp: Locate = async (ip) => {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (!isIPv4(v4) || UNLOCATABLE.check(v4, 'ipv4')) return null;
  try {
    const found = await geoip.lookup(v4);
    if (!found || !found.country) return null;
    return formatPlace({ city: found.city || null, country: found.country });
  } catch {
    return null;
  }
};
