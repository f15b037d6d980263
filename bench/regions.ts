// Across regions (r; PRODUCT §10, decision 352): two deployments of one operator, EU and US, each
// the built service on its own database (bench/lib/region-pair.ts). N accounts signed up in the US
// follow one EU owner whose profile shows a phone field (request across, the owner's approval in
// the EU), and each holds a live SSE stream in the US. The owner edits the field, one edit at a
// time; measured is the time from the EU's 200 to each US stream reading the contact.card.changed
// of that contact: the EU's outbox, its signed delivery, the US applying the card's copy, and the
// US's own fan-out to its streams.
//
// The baseline, in the same run on the same streams: a US owner whom the same N followers also
// follow makes the same edits (alternating with the EU owner's), delivered by the US's fan-out
// alone (r0). So r's p99 over r0's is what crossing costs.
//
// Also: what the EU sends per edit as the audience grows (1, 10, 100, 1,000 US followers of one EU
// profile): requests and deliveries, read from the EU's /metrics (vid_region_delivery_requests_total,
// vid_region_deliveries_total). Decision 352 has one card delivery per region per edit, whatever
// the followers' number.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PHONES, editPhone, withPhone } from './lib/card-edits.js';
import type { Owner } from './lib/card-edits.js';
import { startRegionPair } from './lib/region-pair.js';
import type { BenchRegion, RegionPair } from './lib/region-pair.js';
import { API, create, expectStatus, signUpDevices, subscribe } from './lib/vid.js';
import type { BenchDevice } from './lib/vid.js';
import { openStream, pool } from './signals.js';
import type { Stream } from './signals.js';
import type { BenchResult, BenchScenario } from './types.js';
import { percentile } from './types.js';

const DELIVERY_TIMEOUT_MS = 10_000;
/** Follows and approvals in flight during the setup (through the real API). */
const SETUP_CONCURRENCY = 4;
const SERVER_ENV = {
  // The setup of 1,000 followers in two regions takes minutes; a stream ends when the token that opened it does.
  ACCESS_TOKEN_TTL_S: '3600',
};
/** The contact a contact.card.changed names (its resource, /contacts/{id}/card). */
const CONTACT_OF_SIGNAL = /"resource":"\/contacts\/([^/"]+)\/card"/;

/** One latency distribution, ms. */
export interface Latency {
  p50: number;
  p99: number;
  max: number;
  delivered: number;
  expected: number;
  timedOut: number;
}

/** What the EU sent per edit with this many US followers of the edited profile. */
export interface RegionsSize {
  followers: number;
  edits: number;
  requestsPerEdit: number;
  deliveriesPerEdit: number;
  /** From the EU's 200 to each US stream. */
  delivery: Latency;
}

export interface RegionsResult extends BenchResult {
  kind: 'sqlite' | 'postgres';
  followers: number;
  edits: number;
  /** r: the EU owner's edits, from the EU's 200 to each US stream. */
  across: Latency;
  /** r0: the US owner's edits, from the US's 200 to the same streams. */
  local: Latency;
  sizes: RegionsSize[];
  /** Delivery requests the US sent the EU meanwhile (none expected: nobody in the EU follows anyone in the US). */
  backFromUs: number;
}

/** The edit in flight: the owner it is of and its streams' receipts. */
interface Pending {
  owner: string;
  receipts: number[];
  remaining: number;
  done(): void;
}

/**
 * The followers' streams in the US, one per follower. A follower follows several owners, so each
 * signal is matched to the edit in flight by its contact: a contact.card.changed of another
 * owner's contact, or with no edit in flight, is stray.
 */
class FollowerStreams {
  private readonly streams: Stream[] = [];
  /** Contact id → the owner it follows (this scenario's key for that owner). */
  readonly ownerOf = new Map<string, string>();
  private pending: Pending | undefined;
  stray = 0;

  async open(port: number, followers: BenchDevice[]): Promise<void> {
    await pool(followers, 50, async (f) => {
      const stream = await openStream(port, f.device, (kind, _at, block) => {
        const now = performance.now();
        const pending = this.pending;
        const contact = CONTACT_OF_SIGNAL.exec(block)?.[1];
        if (kind !== 'contact.card.changed' || !pending || contact === undefined || this.ownerOf.get(contact) !== pending.owner) {
          this.stray++;
          return;
        }
        pending.receipts.push(now);
        if (--pending.remaining === 0) pending.done();
      });
      this.streams.push(stream);
    });
  }

  /** An edit of `owner`'s is about to be sent: `expected` streams are to read it. Returns settle(). */
  arm(owner: string, expected: number): (timeoutMs: number) => Promise<{ receipts: number[]; timedOut: boolean }> {
    const wait: Pending = { owner, receipts: [], remaining: expected, done: () => {} };
    const delivered = new Promise<void>((resolve) => (wait.done = resolve));
    this.pending = wait;
    if (expected === 0) wait.done();
    return async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      const outcome = await Promise.race([delivered, timeout]);
      clearTimeout(timer);
      this.pending = undefined;
      return { receipts: wait.receipts, timedOut: outcome === 'timeout' };
    };
  }

  close(): void {
    for (const stream of this.streams.splice(0)) stream.close();
  }
}

/** Edits' deliveries gathered: from the edit's 200 (and from its sending) to each stream. */
class Gathered {
  readonly fromAnswer: number[] = [];
  readonly fromSent: number[] = [];
  readonly acks: number[] = [];
  expected = 0;
  timedOut = 0;

  latency(): Latency {
    const v = this.fromAnswer;
    return { p50: percentile(v, 50), p99: percentile(v, 99), max: v.length ? Math.max(...v) : Number.NaN, delivered: v.length, expected: this.expected, timedOut: this.timedOut };
  }
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '–');
const count = (n: number) => n.toLocaleString('en');
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const latencyCell = (l: Latency) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}${l.delivered === l.expected ? '' : ` (${count(l.delivered)} of ${count(l.expected)} delivered${l.timedOut ? `, ${l.timedOut} edits timed out` : ''})`}`;
export const perEditLine = (s: RegionsSize) => `deliveries per edit, ${count(s.followers)} follower${s.followers === 1 ? '' : 's'} in us: ${s.deliveriesPerEdit.toFixed(2)} (requests ${s.requestsPerEdit.toFixed(2)})`;

/** A US follower asks the EU owner (POST /contacts {username: "name@eu"} in the US), who approves it in the EU. */
async function followAcross(pair: RegionPair, follower: BenchDevice, owner: Owner): Promise<string> {
  const id = await create(pair.us.client, follower.device, '/contacts', { username: `${owner.device.username}@eu` });
  await expectStatus(200, 'POST approve (EU)', pair.eu.client.as(owner.device, 'POST', `${API}/subscriptions/${id}/approve`, { body: { profile_id: owner.profileId }, headers: { 'idempotency-key': randomUUID() } }));
  return id;
}

/** Until every follow is active in the US too (the approval travels in the EU's outbox). */
async function activeInUs(us: BenchRegion, follows: Array<{ follower: BenchDevice; id: string }>): Promise<void> {
  const until = Date.now() + 120_000;
  await pool(follows, 8, async ({ follower, id }) => {
    for (;;) {
      const res = await us.client.as(follower.device, 'GET', `${API}/contacts/${id}`);
      if (res.status === 200 && res.body.status === 'active') return;
      if (Date.now() > until) throw new Error(`contact ${id} is not active in the US 2 minutes after its approval: ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(100);
    }
  });
}

export function regionsScenario(kind: 'sqlite' | 'postgres', sizes: number[], edits: number): BenchScenario<RegionsResult> {
  const followersCount = Math.max(...sizes);
  const smaller = sizes.filter((size) => size < followersCount);
  const db = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return {
    name: 'regions',
    description: `two regions (${db}, a database each): ${count(followersCount)} US followers of one EU owner, each on a live SSE stream in the US; ${edits} field edits, one at a time, against the same edits by a US owner they also follow; deliveries per edit with ${sizes.map(count).join(', ')} followers`,
    async run(progress) {
      if (sizes.some((size) => !Number.isInteger(size) || size < 1)) throw new Error('BENCH_REGIONS_SIZES: follower counts, e.g. 1,10,100,1000');
      const pair = await startRegionPair(kind, SERVER_ENV);
      const streams = new FollowerStreams();
      try {
        const { eu, us } = pair;
        let started = performance.now();
        progress(`signing up ${count(followersCount)} followers and an owner in the US, ${1 + smaller.length} owners in the EU`);
        const followers = await signUpDevices(us.server.port, followersCount, 'benchregionfollower');
        const [usOwning] = await signUpDevices(us.server.port, 1, 'benchregionusowner');
        const euOwning = await signUpDevices(eu.server.port, 1 + smaller.length, 'benchregioneuowner');
        const owners = new Map<string, { region: BenchRegion; owner: Owner; followers: number }>();
        owners.set('us', { region: us, owner: await withPhone(us.client, usOwning!.device), followers: followersCount });
        owners.set('eu', { region: eu, owner: await withPhone(eu.client, euOwning[0]!.device), followers: followersCount });
        for (const [i, size] of smaller.entries()) owners.set(`eu${size}`, { region: eu, owner: await withPhone(eu.client, euOwning[i + 1]!.device), followers: size });
        const signUps = seconds(started);

        started = performance.now();
        progress(`${count(followersCount)} US followers follow the EU owner (request across, approval in the EU), ${SETUP_CONCURRENCY} at a time; and the first ${smaller.map(count).join(', ')} follow an EU owner each`);
        const across: Array<{ follower: BenchDevice; id: string }> = [];
        for (const [key, { owner, followers: n }] of owners) {
          if (key === 'us') continue;
          const follow = async (follower: BenchDevice) => {
            const id = await followAcross(pair, follower, owner);
            streams.ownerOf.set(id, key);
            across.push({ follower, id });
          };
          // The first follow alone: it makes the owner's stand-in in the US, which concurrent
          // first follows would each try to insert (on PostgreSQL one of them then fails).
          await follow(followers[0]!);
          await pool(followers.slice(1, n), SETUP_CONCURRENCY, follow);
        }
        const follows = seconds(started);
        started = performance.now();
        progress(`${count(followersCount)} follow the US owner (request + approval in the US)`);
        const usOwner = owners.get('us')!.owner;
        await pool(followers, SETUP_CONCURRENCY, async (follower) => void streams.ownerOf.set(await subscribe(us.client, follower.device, usOwner.device, usOwner.profileId), 'us'));
        const localFollows = seconds(started);
        started = performance.now();
        await activeInUs(us, across);
        const approvalsArrived = seconds(started);

        progress(`opening ${count(followersCount)} SSE streams in the US, one per follower`);
        await streams.open(us.server.port, followers);
        await pair.pinBackends();

        const values = new Map<Owner, number>();
        /** One edit of `key`'s owner, timed, and its deliveries awaited. */
        const editOnce = async (key: string, into?: Gathered) => {
          const { region, owner, followers: expected } = owners.get(key)!;
          const next = (values.get(owner) ?? 0) + 1;
          values.set(owner, next);
          const settle = streams.arm(key, expected);
          const { sent, answered } = await editPhone(region.client, owner, PHONES[next % PHONES.length]!);
          const { receipts, timedOut } = await settle(DELIVERY_TIMEOUT_MS);
          if (into) {
            into.acks.push(answered - sent);
            into.fromAnswer.push(...receipts.map((at) => at - answered));
            into.fromSent.push(...receipts.map((at) => at - sent));
            into.expected += expected;
            if (timedOut) into.timedOut++;
          }
        };

        // One untimed edit each warms both paths (and shows they work) before anything is counted.
        await editOnce('us');
        await editOnce('eu');
        const strayBefore = streams.stray;

        progress(`${edits} edits on each owner, alternating: the US owner (local fan-out), then the EU owner (across), each delivered to ${count(followersCount)} US streams before the next`);
        const counted = await pair.settledCounters();
        const local = new Gathered();
        const far = new Gathered();
        for (let i = 0; i < edits; i++) {
          await editOnce('us', local);
          await editOnce('eu', far);
        }
        const after = await pair.settledCounters();
        const largest: RegionsSize = {
          followers: followersCount,
          edits,
          requestsPerEdit: (after.requestsSent - counted.requestsSent) / edits,
          deliveriesPerEdit: (after.deliveriesSent - counted.deliveriesSent) / edits,
          delivery: far.latency(),
        };
        progress(`across: p50 ${ms(far.latency().p50)} p99 ${ms(far.latency().p99)}; local: p50 ${ms(local.latency().p50)} p99 ${ms(local.latency().p99)}`);

        const sizesMeasured: RegionsSize[] = [];
        for (const size of smaller) {
          const before = await pair.settledCounters();
          const gathered = new Gathered();
          for (let i = 0; i < edits; i++) await editOnce(`eu${size}`, gathered);
          const done = await pair.settledCounters();
          const row: RegionsSize = { followers: size, edits, requestsPerEdit: (done.requestsSent - before.requestsSent) / edits, deliveriesPerEdit: (done.deliveriesSent - before.deliveriesSent) / edits, delivery: gathered.latency() };
          sizesMeasured.push(row);
          progress(perEditLine(row));
        }
        sizesMeasured.push(largest);
        progress(perEditLine(largest));
        const end = await pair.settledCounters();
        const stray = streams.stray - strayBefore;

        const acrossLatency = far.latency();
        const localLatency = local.latency();
        const fromSent = (g: Gathered) => `${ms(percentile(g.fromSent, 50))} / ${ms(percentile(g.fromSent, 99))}`;
        const acks = (g: Gathered) => `${ms(percentile(g.acks, 50))} / ${ms(percentile(g.acks, 99))}`;
        return {
          kind,
          followers: followersCount,
          edits,
          across: acrossLatency,
          local: localLatency,
          sizes: sizesMeasured,
          backFromUs: end.backFromUs,
          metrics: { acrossP50: acrossLatency.p50, acrossP99: acrossLatency.p99, localP50: localLatency.p50, localP99: localLatency.p99 },
          rows: [
            ['followers in the US, each on a live SSE stream there', `${count(followersCount)}, each following the EU owner (across) and the US owner (local)`],
            ['edits per owner, deliveries expected / received', `${edits}; across ${count(acrossLatency.expected)} / ${count(acrossLatency.delivered)}, local ${count(localLatency.expected)} / ${count(localLatency.delivered)}${stray ? `; ${stray} unexpected signals` : ''}`],
            [`r across: EU edit's 200 → each US stream, p50 / p99 / max`, latencyCell(acrossLatency)],
            [`r0 local: US edit's 200 → each of the same streams, p50 / p99 / max`, latencyCell(localLatency)],
            ['p99 across / p99 local', Number.isFinite(acrossLatency.p99 / localLatency.p99) ? `${(acrossLatency.p99 / localLatency.p99).toFixed(2)}x` : '–'],
            ['from the edit sent instead, p50 / p99: across; local', `${fromSent(far)}; ${fromSent(local)}`],
            [`edit acknowledged p50 / p99: EU owner (${count(followersCount)} followers in the US); US owner (${count(followersCount)} local)`, `${acks(far)}; ${acks(local)}`],
            ...sizesMeasured.map((s): [string, string] => [`${count(s.followers)} US follower${s.followers === 1 ? '' : 's'}: EU requests and deliveries per edit; delivery p50 / p99 / max`, `${s.requestsPerEdit.toFixed(2)} and ${s.deliveriesPerEdit.toFixed(2)}; ${latencyCell(s.delivery)}`]),
            ['delivery requests the US sent the EU in all', count(end.backFromUs)],
            ['setup', `sign-ups ${signUps}; follows across with approvals ${follows}; local follows ${localFollows}; approvals arrived in the US ${approvalsArrived} later`],
          ],
          notes: [
            `Two deployments as test/helpers/regions.ts makes them: the built service twice, REGION eu and us, each its own ${kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'}, ` +
              'its own Ed25519 REGION_KEY and REGIONS naming the other over 127.0.0.1, both pinned to the server core (they take turns: one edit is in flight at a time); ' +
              'this process, which times the edits and reads the streams, on the load core. The world is set up through the real API only: sign-ups (passkey ceremonies), ' +
              `each follow across as a person makes it (POST /contacts {username: "name@eu"} in the US) and approved by the owner in the EU, ${SETUP_CONCURRENCY} at a time after each owner's first (which makes the owner's stand-in in the US); ` +
              'the US-owner follows with request and approval in the US. ' +
              `Edits are PATCH /me/fields/{id} with If-Match (proof signed before the clock starts), one at a time: the next starts once every stream has read the last one's contact.card.changed (timeout ${DELIVERY_TIMEOUT_MS / 1000} s). ` +
              'Delivery times run from reading the edit\'s 200 to a stream reading the signal for that owner\'s contact (matched by the contact id in the signal\'s resource); ' +
              'locally a stream can read its signal before the client has read the 200, so r0 can go below zero. One untimed edit of each owner comes first. ' +
              `Deliveries per edit are read from the EU's /metrics (vid_region_delivery_requests_total and vid_region_deliveries_total, region "us"), once the US's vid_region_requests_total (region "eu") agrees that nothing is in flight; ` +
              `${count(followersCount)} is the owner of r, the smaller audiences an EU owner each, followed by the first of the same followers. ` +
              `Server: the built service, production settings as in the other scenarios, plus ${Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} and METRICS_PORT.`,
          ],
        };
      } catch (error) {
        progress(`the EU's last output:\n${pair.eu.server.log()}\nthe US's last output:\n${pair.us.server.log()}`);
        throw error;
      } finally {
        streams.close();
        await pair.stop();
      }
    },
  };
}
