import { newRegionKey } from '../../src/platform/federation/keys.js';
import { startTestApp } from './app.js';
import type { TestApp } from './app.js';
import type { TestBackend } from './backends.js';
import { freePort } from './ports.js';

export interface RegionPair {
  eu: TestApp;
  us: TestApp;
  /** Both regions' outboxes sent until neither has anything waiting. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Two deployments of one operator, as production runs them (docs/regions.md): each its own
 * service on its own port over its own database of the backend, with its own signing key, each
 * listing the other in REGIONS. `env` adds to both; `only` to one.
 */
export async function startRegions(backend: TestBackend, env: Record<string, string> = {}, only: { eu?: Record<string, string>; us?: Record<string, string> } = {}): Promise<RegionPair> {
  const ports = { eu: await freePort(), us: await freePort() };
  const keys = { eu: newRegionKey('eu-1'), us: newRegionKey('us-1') };
  const setup = (self: 'eu' | 'us', peer: 'eu' | 'us') => ({
    REGION: self,
    REGION_KEY: JSON.stringify(keys[self].privateJwk),
    REGIONS: JSON.stringify([{ id: peer, url: `http://127.0.0.1:${ports[peer]}`, keys: [keys[peer].publicJwk] }]),
    ...env,
    ...only[self],
  });
  const eu = await startTestApp(backend, setup('eu', 'us'), ports.eu);
  let us: TestApp;
  try {
    us = await startTestApp(backend, setup('us', 'eu'), ports.us);
  } catch (error) {
    await eu.close();
    throw error;
  }
  // Each app's manual clock stopped when it started; the US's later, by its start-up time. One
  // moment for both, or on a busy machine the US's signatures look ahead of the EU's clock by
  // more than REGION_CLOCK_SKEW_SECONDS and are refused as stale.
  eu.clock.set(us.clock.now());
  return {
    eu,
    us,
    async settle() {
      for (let round = 0; round < 5; round += 1) {
        await eu.services.regions.flush();
        await us.services.regions.flush();
      }
    },
    async close() {
      await us.close();
      await eu.close();
    },
  };
}
