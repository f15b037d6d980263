import type { RegionsConfig } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { NonceStore } from './nonces.js';
import { UNKNOWN_REGION } from './reasons.js';
import { verifyRequest } from './signatures.js';
import type { IncomingRegionRequest, RegionVerification } from './signatures.js';

/**
 * Counts one verification: accepted by sending region, refused by region and reason. The region
 * of a refusal is the peer its kid names when one does (the signature may still be forged: the
 * label says who it claims to be), `unknown` otherwise; never a value taken from the request.
 */
export function countRegionVerification(metrics: Metrics, result: RegionVerification): void {
  if (result.ok) metrics.regionRequest(result.region);
  else metrics.regionRequestRefused(result.region ?? UNKNOWN_REGION, result.reason);
}

/**
 * What the federation routes call: verifyRequest with the configured peers, validity and the
 * shared nonce store, at the clock's time, counted.
 */
export function createRegionRequestVerifier(deps: { regions: Pick<RegionsConfig, 'peers' | 'maxAgeSeconds'>; nonces: NonceStore; metrics: Metrics; now(): number }): (request: IncomingRegionRequest) => Promise<RegionVerification> {
  return async (request) => {
    const result = await verifyRequest(request, { peers: deps.regions.peers, now: deps.now(), maxAgeSeconds: deps.regions.maxAgeSeconds, nonces: deps.nonces });
    countRegionVerification(deps.metrics, result);
    return result;
  };
}
