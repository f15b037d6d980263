import type { RegionsConfig } from '../../platform/config.js';
import { signRequest } from '../../platform/federation/signatures.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import type { Tx } from '../../platform/store/store.js';
import type { Delivery } from './deliveries.js';
import type { OutboxRow } from './queries.js';
import type { RegionRepo } from './service.js';

/** Subjects per request: one delivery carries at most these, oldest first. */
const BATCH = 100;
/** Backoff after a failed delivery: doubling from 1 s up to a minute, so a region back after an hour hears within one. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/** Every node looks at its outbox this often too: a kick lost with a crashed node is picked up. */
const SWEEP_MS = 5_000;
const TIMEOUT_MS = 10_000;
/**
 * A request's body at most (about), so it stays under what the peer's federation routes take
 * (FEDERATION_BODY_LIMIT, routes.ts); a subject larger on its own goes alone.
 */
export const MAX_REQUEST_BYTES = 512 * 1024;
/** An idle peer still hears from this region this often: its silence means this region is away (decision 352). */
const HEARTBEAT_MS = 60_000;

/** Counts a bench and an operator read: requests sent, deliveries (subjects) in them, failures. */
export interface SenderStats {
  requests: number;
  deliveries: number;
  failures: number;
}

/**
 * The outbox's sender (decision 352): per peer region, one request at a time, each the current
 * state of the oldest waiting subjects, signed (RFC 9421) with this region's key. A subject
 * leaves the outbox when the peer took it, unless it changed meanwhile (its generation moved,
 * and it goes again). A failure backs off and retries; nothing is dropped, and as every delivery
 * is a state, not a step, a peer back after any time away is told where things stand, in order.
 */
export function createSender(deps: {
  db: RegionRepo;
  regions: RegionsConfig;
  now(): number;
  deliveriesOf(tx: Tx, region: string, row: OutboxRow): Promise<Delivery[]>;
  /** A peer answered (it is there). */
  heard(region: string): Promise<void>;
  /** Peers' last word as other nodes saw it, read at each sweep. */
  readHeard(): Promise<void>;
  warn(error: unknown, what: string): void;
  /** The same counts as stats(), for /metrics. */
  metrics: Pick<Metrics, 'regionDeliveriesSent'>;
}) {
  const { db, regions } = deps;
  const stats: SenderStats = { requests: 0, deliveries: 0, failures: 0 };
  const state = new Map(regions.peers.map((peer) => [peer.id, { running: false, again: false, failures: 0, lastSent: deps.now(), timer: undefined as NodeJS.Timeout | undefined }]));
  let sweep: NodeJS.Timeout | undefined;
  let stopped = false;

  /** One signed POST to a peer; answers its status and JSON body. */
  async function call(region: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const peer = regions.peer(region);
    const key = regions.self.key;
    if (!peer || !key) throw new Error(`no way to reach region ${region}: REGIONS or REGION_KEY is missing`);
    const request = { method: 'POST', url: `${peer.url}${path}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const headers = await signRequest(request, key, deps.now(), undefined, regions.maxAgeSeconds);
    const response = await fetch(request.url, { method: 'POST', headers, body: request.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed };
  }

  /** Delivers, answers 200 or throws; the peer is heard from and this region's last word to it noted. */
  async function deliver(region: string, deliveries: Delivery[]): Promise<void> {
    const answer = await call(region, '/federation/v1/deliveries', { deliveries });
    if (answer.status !== 200) throw new Error(`region ${region} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    state.get(region)!.lastSent = deps.now();
    // Every request the peer took, a heartbeat's too (its count of accepted requests agrees).
    stats.requests += 1;
    stats.deliveries += deliveries.length;
    deps.metrics.regionDeliveriesSent(region, deliveries.length);
    await deps.heard(region);
  }

  async function sendWaiting(region: string): Promise<boolean> {
    const rows = await db.direct.outbox.waiting(region, BATCH);
    if (rows.length === 0) {
      // Nothing to tell for a while: a heartbeat, so the peer knows this region is there.
      if (deps.now() - state.get(region)!.lastSent >= HEARTBEAT_MS) await deliver(region, []);
      return false;
    }
    // One snapshot for the states sent together, up to the request's size: the rest go next.
    const { deliveries, taken } = await db.transaction(async (_, tx) => {
      const all: Delivery[] = [];
      let bytes = 0;
      let count = 0;
      for (const row of rows) {
        const states = await deps.deliveriesOf(tx, region, row);
        const size = Buffer.byteLength(JSON.stringify(states));
        if (count > 0 && bytes + size > MAX_REQUEST_BYTES) break;
        all.push(...states);
        bytes += size;
        count += 1;
      }
      return { deliveries: all, taken: rows.slice(0, count) };
    });
    if (deliveries.length > 0) await deliver(region, deliveries);
    for (const row of taken) await db.direct.outbox.delivered(region, row);
    if (taken.length < rows.length) return true;
    return rows.length === BATCH;
  }

  async function run(region: string): Promise<void> {
    const peer = state.get(region);
    if (!peer || stopped) return;
    if (peer.running) {
      peer.again = true;
      return;
    }
    if (peer.timer) return; // backing off: the timer runs it
    peer.running = true;
    try {
      do {
        peer.again = false;
        while (await sendWaiting(region)) {
          /* a full batch: more wait */
        }
      } while (peer.again && !stopped);
      peer.failures = 0;
    } catch (error) {
      stats.failures += 1;
      peer.failures += 1;
      const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (peer.failures - 1));
      deps.warn(error, `delivery to region ${region} failed; again in ${wait} ms`);
      peer.timer = setTimeout(() => {
        peer.timer = undefined;
        void run(region);
      }, wait);
      peer.timer.unref();
    } finally {
      peer.running = false;
    }
  }

  return {
    call,
    stats: (): SenderStats => ({ ...stats }),
    /** After a commit that wrote to `region`'s outbox. */
    kick: (region: string) => void run(region),
    /** Sends everything waiting now, for each peer (tests, the sweep). */
    async flush(): Promise<void> {
      for (const peer of regions.peers) {
        const held = state.get(peer.id)!;
        if (held.timer) {
          clearTimeout(held.timer);
          held.timer = undefined;
        }
        await run(peer.id);
        while (held.running) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    start(): void {
      if (!regions.self.key || regions.peers.length === 0) return;
      for (const peer of regions.peers) void run(peer.id);
      sweep = setInterval(() => {
        deps.readHeard().catch((error) => deps.warn(error, 'reading when regions were heard from failed'));
        for (const peer of regions.peers) void run(peer.id);
      }, SWEEP_MS);
      sweep.unref();
    },
    stop(): void {
      stopped = true;
      if (sweep) clearInterval(sweep);
      for (const peer of state.values()) if (peer.timer) clearTimeout(peer.timer);
    },
  };
}
