import { newRegionKey } from '../../src/platform/federation/keys.js';
import { createRunningClock, startTestApp } from './app.js';
import type { TestApp } from './app.js';
import type { TestBackend } from './backends.js';
import { freePort } from './ports.js';
import { startOutageRelay } from './tcp-outage.js';
import type { Outage } from './tcp-outage.js';

export interface RegionPair {
  eu: TestApp;
  us: TestApp;
  /** Both regions' outboxes sent until neither has anything waiting. */
  settle(): Promise<void>;
  /**
   * With `{ relays: true }`: a TCP relay in front of each region, which its peer's REGIONS names
   * instead of the region itself. `relays.us.cut()` and the EU can no longer reach the US (the
   * people of each still reach their own region directly); cut both for a partition.
   */
  relays?: { eu: Outage; us: Outage };
  close(): Promise<void>;
}

/** The web address a browser opens a region of a pair started `forBrowsers` at. */
export const browserOrigin = (app: TestApp): string => app.config.publicOrigin;

/**
 * A relay in front of each region's port, which it is about to listen on (a relay connects only
 * when used). The ports were free when picked, and so the OS may give one of them to a relay's
 * own listener: then another relay is made.
 */
async function relaysTo(ports: { eu: number; us: number }): Promise<{ eu: Outage; us: Outage }> {
  const taken = (relay: Outage) => [ports.eu, ports.us].includes(Number(relay.hostPort.split(':')[1]));
  const relayTo = async (port: number): Promise<Outage> => {
    // Held open while the next is made, so the OS does not hand out the same port again.
    const held: Outage[] = [];
    try {
      for (;;) {
        const relay = await startOutageRelay({ host: '127.0.0.1', port });
        if (!taken(relay)) return relay;
        held.push(relay);
      }
    } finally {
      await Promise.all(held.map((relay) => relay.close()));
    }
  };
  const eu = await relayTo(ports.eu);
  return { eu, us: await relayTo(ports.us) };
}

/**
 * Two deployments of one operator, as production runs them (docs/regions.md): each its own
 * service on its own port over its own database of the backend, with its own signing key, each
 * listing the other in REGIONS. `env` adds to both; `only` to one. `forBrowsers`: each region's
 * public origin is http://localhost:<its port> (what its pages are opened at, so passkeys and
 * proofs are made for it) and its clock runs, as a browser's does; `client` then does not fit it.
 * `relays`: a cuttable TCP relay in front of each region (RegionPair.relays).
 */
export async function startRegions(
  backend: TestBackend,
  env: Record<string, string> = {},
  only: { eu?: Record<string, string>; us?: Record<string, string> } = {},
  options: { forBrowsers?: boolean; relays?: boolean } = {},
): Promise<RegionPair> {
  const ports = { eu: await freePort(), us: await freePort() };
  const keys = { eu: newRegionKey('eu-1'), us: newRegionKey('us-1') };
  const relays = options.relays ? await relaysTo(ports) : undefined;
  const closeRelays = async () => {
    if (relays) await Promise.all([relays.eu.close(), relays.us.close()]);
  };
  const address = (region: 'eu' | 'us') => (relays ? `http://${relays[region].hostPort}` : `http://127.0.0.1:${ports[region]}`);
  const setup = (self: 'eu' | 'us', peer: 'eu' | 'us') => ({
    REGION: self,
    REGION_KEY: JSON.stringify(keys[self].privateJwk),
    REGIONS: JSON.stringify([{ id: peer, url: address(peer), keys: [keys[peer].publicJwk] }]),
    ...(options.forBrowsers ? { PUBLIC_ORIGIN: `http://localhost:${ports[self]}` } : {}),
    ...env,
    ...only[self],
  });
  const clock = () => (options.forBrowsers ? createRunningClock() : undefined);
  let eu: TestApp;
  try {
    eu = await startTestApp(backend, setup('eu', 'us'), ports.eu, clock());
  } catch (error) {
    await closeRelays();
    throw error;
  }
  let us: TestApp;
  try {
    us = await startTestApp(backend, setup('us', 'eu'), ports.us, clock());
  } catch (error) {
    await eu.close();
    await closeRelays();
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
    ...(relays ? { relays } : {}),
    async settle() {
      for (let round = 0; round < 5; round += 1) {
        await eu.services.regions.flush();
        await us.services.regions.flush();
      }
    },
    async close() {
      try {
        await us.close();
        await eu.close();
      } finally {
        await closeRelays();
      }
    },
  };
}
