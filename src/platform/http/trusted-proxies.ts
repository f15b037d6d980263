import type { TrustProxy } from '../config.js';

/**
 * TRUST_PROXY as Fastify's `trustProxy` (docs/deploy.md, Client addresses). A list of addresses
 * goes to proxy-addr as it is. A number of hops becomes proxy-addr's hop rule, "the first n
 * addresses counted from the socket are proxies": Fastify 5 ignores a plain number (it cannot
 * check the peer), so the operator who chooses hops states that only the balancer reaches the
 * nodes, and the docs prefer addresses wherever they are known.
 */
export function trustedProxies(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust;
}
