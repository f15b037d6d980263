import { newRegionKey } from '../../src/platform/federation/keys.js';
import { createRunningClock, startTestApp } from './app.js';
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

/** The web address a browser opens a region of a pair started `forBrowsers` at. */
export const browserOrigin = (app: TestApp): string => app.config.publicOrigin;

/**
 * Two deployments of one operator, as production runs them (docs/regions.md): each its own
 * service on its own port over its own database of the backend, with its own signing key, each
 * listing the other in REGIONS. `env` adds to both; `only` to one. `forBrowsers`: each region's
 * public origin is http://localhost:<its port> (what its pages are opened at, so passkeys and
 * proofs are made for it) and its clock runs, as a browser's does; `client` then does not fit it.
 */
export async function startRegions(backend: TestBackend, env: Record<string, string> = {}, only: { eu?: Record<string, string>; us?: Record<string, string> } = {}, options: { forBrowsers?: boolean } = {}): Promise<RegionPair> {
  const ports = { eu: await freePort(), us: await freePort() };
  const keys = { eu: newRegionKey('eu-1'), us: newRegionKey('us-1') };
  const setup = (self: 'eu' | 'us', peer: 'eu' | 'us') => ({
    REGION: self,
    REGION_KEY: JSON.stringify(keys[self].privateJwk),
    REGIONS: JSON.stringify([{ id: peer, url: `http://127.0.0.1:${ports[peer]}`, keys: [keys[peer].publicJwk] }]),
    ...(options.forBrowsers ? { PUBLIC_ORIGIN: `http://localhost:${ports[self]}` } : {}),
    ...env,
    ...only[self],
  });
  const clock = () => (options.forBrowsers ? createRunningClock() : undefined);
  const eu = await startTestApp(backend, setup('eu', 'us'), ports.eu, clock());
  let us: TestApp;
  try {
    us = await startTestApp(backend, setup('us', 'eu'), ports.us, clock());
  } catch (error) {
    await eu.close();
    throw error;
  }
  // Each app's manual clock starts when the app does; on a busy machine the second starts seconds
  // later, past the signatures' clock skew (5 s), and every request would be refused as stale.
  // The two regions' clocks agree, as NTP keeps them in production (docs/regions.md).
  const now = Math.max(eu.clock.now(), us.clock.now());
  eu.clock.set(now);
  us.clock.set(now);
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
