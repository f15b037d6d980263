// Two deployments of one operator for the regions scenario (bench/regions.ts), configured as
// test/helpers/regions.ts configures the tests' and docs/regions.md production's: each the built
// service in its own process on its own database (a SQLite file each, or a PostgreSQL database
// each), REGION eu / us, its own Ed25519 REGION_KEY, REGIONS naming the other with its public key,
// and METRICS_PORT set, so what each region sent and accepted is read from its /metrics.
import { newRegionKey } from '../../src/platform/federation/keys.js';
import type { TestClient } from '../../test/helpers/client.js';
import { freePort } from './processes.js';
import type { ServerProcess } from './processes.js';
import { clientFor, createDatabase, startVid } from './vid.js';
import type { BenchDatabase } from './vid.js';

export type RegionId = 'eu' | 'us';

export interface BenchRegion {
  id: RegionId;
  database: BenchDatabase;
  server: ServerProcess;
  client: TestClient;
  metricsUrl: string;
}

/** The counters one region's /metrics holds about the other (`peer`). */
export interface RegionCounters {
  /** Delivery requests sent to the peer and taken by it (vid_region_delivery_requests_total). */
  requestsSent: number;
  /** Deliveries (subjects) in them (vid_region_deliveries_total). */
  deliveriesSent: number;
  /** Signed requests from the peer accepted (vid_region_requests_total). */
  requestsAccepted: number;
}

export async function readCounters(region: BenchRegion, peer: RegionId): Promise<RegionCounters> {
  const res = await fetch(region.metricsUrl);
  if (!res.ok) throw new Error(`GET /metrics of ${region.id}: ${res.status}`);
  const text = await res.text();
  const value = (name: string) => {
    const match = new RegExp(`^${name}\\{region="${peer}"\\} (\\d+)$`, 'm').exec(text);
    if (!match) throw new Error(`${region.id}'s /metrics has no ${name}{region="${peer}"}: a build without the regions' counters?`);
    return Number(match[1]);
  };
  return { requestsSent: value('vid_region_delivery_requests_total'), deliveriesSent: value('vid_region_deliveries_total'), requestsAccepted: value('vid_region_requests_total') };
}

export interface RegionPair {
  eu: BenchRegion;
  us: BenchRegion;
  /**
   * What the EU has sent the US so far, once nothing is in flight: the US counts a request when
   * it arrives, the EU once the US has answered it, so the two agree when none is on its way.
   */
  settledCounters(timeoutMs?: number): Promise<RegionCounters & { backFromUs: number }>;
  /** Both regions' PostgreSQL backends onto the load core (no-op on SQLite). */
  pinBackends(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRegionPair(kind: 'sqlite' | 'postgres', env: Record<string, string>): Promise<RegionPair> {
  // Each must know where the other listens before either starts.
  const ports = { eu: await freePort(), us: await freePort() };
  const keys = { eu: newRegionKey('eu-bench'), us: newRegionKey('us-bench') };
  const started: BenchRegion[] = [];
  const databases: BenchDatabase[] = [];
  const stop = async () => {
    for (const region of started.reverse()) await region.server.stop();
    for (const database of databases) await database.drop();
  };
  try {
    for (const [self, peer] of [['eu', 'us'], ['us', 'eu']] as const) {
      const database = await createDatabase(kind);
      databases.push(database);
      const metricsPort = await freePort();
      const server = await startVid(`vid-regions-${self}`, database, {
        port: ports[self],
        env: {
          ...env,
          REGION: self,
          REGION_KEY: JSON.stringify(keys[self].privateJwk),
          REGIONS: JSON.stringify([{ id: peer, url: `http://127.0.0.1:${ports[peer]}`, keys: [keys[peer].publicJwk] }]),
          METRICS_PORT: String(metricsPort),
        },
      });
      started.push({ id: self, database, server, client: clientFor(ports[self]), metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const [eu, us] = started as [BenchRegion, BenchRegion];
  return {
    eu,
    us,
    async settledCounters(timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [sent, arrived] = await Promise.all([readCounters(eu, 'us'), readCounters(us, 'eu')]);
        if (sent.requestsSent === arrived.requestsAccepted) return { ...sent, backFromUs: arrived.requestsSent };
        if (Date.now() > until) throw new Error(`the EU counts ${sent.requestsSent} delivery requests taken by the US, the US ${arrived.requestsAccepted} accepted from the EU, still after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async pinBackends() {
      await eu.database.pinBackends();
      await us.database.pinBackends();
    },
    stop,
  };
}
