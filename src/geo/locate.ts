import geoip from 'fast-geoip';
import { isIP } from 'node:net';

/**
 * Approximate location of a client address ("Berlin, DE"), from the GeoLite2 data that the
 * fast-geoip package ships: offline, no lookup leaves the machine. Private and loopback addresses
 * have none.
 */
export type Locate = (ip: string) => Promise<string | null>;

export const locateIp: Locate = async (ip) => {
  if (!isIP(ip)) return null;
  try {
    const found = await geoip.lookup(ip);
    if (!found || !found.country) return null;
    return found.city ? `${found.city}, ${found.country}` : found.country;
  } catch {
    return null;
  }
};
