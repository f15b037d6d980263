// Card fan-out (subscriptions, PRODUCT §4): one owner on SQLite with 10,000 active subscribers,
// 1,000 of them holding a live SSE stream. The owner edits a phone field its profile shows, one
// edit at a time; measured are the edit's acknowledgement and each stream's contact.card.changed.
// An owner with no subscribers makes the same edits on the same server in the same run: the
// baseline, so the reader sees what the fan-out costs. The service is the built one, started as
// `npm start` runs it (bench/lib/vid.ts), on its own core; the streams live in this process.
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { API, ORIGIN, clientFor, create, createDatabase, expectStatus, signUpDevices, startVid, subscribe } from './lib/vid.js';
import type { BenchDevice } from './lib/vid.js';
import { openStream, pool } from './signals.js';
import type { Stream } from './signals.js';
import type { BenchScenario } from './types.js';
import { percentile } from './types.js';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 10_000);
const LIVE = Number(process.env.BENCH_FANOUT_LIVE ?? 1000);
/** Two valid numbers the edits alternate between, so every edit changes the card. */
const PHONES = ['+49 30 22732152', '+49 30 22730'];
const DELIVERY_TIMEOUT_MS = 5000;
const SERVER_ENV = {
  // Setting up 1,000 subscribers takes a while; a stream ends when the token that opened it does.
  ACCESS_TOKEN_TTL_S: '3600',
};

/** An owner whose profile shows one phone field, and that field's current version (for If-Match). */
interface Owner {
  device: BenchDevice['device'];
  profileId: string;
  fieldId: string;
  version: number;
}

/** The deliveries the current edit is waiting for. */
interface Pending {
  sent: number;
  remaining: number;
  last: number;
  done: () => void;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

/**
 * Writes `count` subscriber accounts and their active subscriptions to the owner's profile straight
 * into the service's SQLite file (WAL lets a second connection write while the service runs): the
 * API would take minutes for 9,000 more sign-ups, and only the rows matter to the fan-out.
 */
function insertSubscribers(file: string, owner: Owner, count: number): void {
  const db = new Database(file);
  try {
    // The service holds the write lock for a few milliseconds per batch of commits: wait for it.
    db.pragma('busy_timeout = 10000');
    const now = Date.now();
    const { region } = db.prepare('select region from accounts where id = ?').get(owner.device.accountId) as { region: string };
    const account = db.prepare('insert into accounts (id, username, username_canonical, username_skeleton, user_handle, region, version, created_at) values (?, ?, ?, ?, ?, ?, 1, ?)');
    const subscription = db.prepare("insert into subscriptions (id, owner_id, subscriber_id, profile_id, status, version, created_at, updated_at, card_since) values (?, ?, ?, ?, 'active', 1, ?, ?, ?)");
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = newId('acc');
        // Lower-case ASCII: the name is its own canonical form, and unique as its own skeleton.
        const username = `benchbulk${process.pid}x${i}`;
        account.run(id, username, username, username, randomBytes(32).toString('base64url'), region, now);
        subscription.run(newId('sub'), owner.device.accountId, id, owner.profileId, now, now, now);
      }
    })();
  } finally {
    db.close();
  }
}

export function fanoutScenario(edits: number): BenchScenario {
  return {
    name: 'fanout',
    description: `one owner (SQLite) with ${SUBSCRIBERS.toLocaleString('en')} active subscribers, ${LIVE.toLocaleString('en')} of them on a live SSE stream; ${edits} field edits, one at a time`,
    async run(progress) {
      const database = await createDatabase('sqlite');
      const server = await startVid('vid-fanout', database, { env: SERVER_ENV });
      const client = clientFor(server.port);
      const streams: Stream[] = [];
      try {
        progress(`signing up 2 owners and ${LIVE} subscribers`);
        const [fanning, alone] = await signUpDevices(server.port, 2, 'benchfanowner');
        const subscribers = await signUpDevices(server.port, LIVE, 'benchfansub');

        /** A profile showing one phone field, through the real API. */
        const withPhone = async (device: BenchDevice['device']): Promise<Owner> => {
          const profileId = await create(client, device, '/profiles', { name: 'Friends' });
          const field = (await expectStatus(201, 'POST /me/fields', client.as(device, 'POST', `${API}/me/fields`, { body: { type: 'phone', value: PHONES[0] }, headers: { 'idempotency-key': randomUUID() } }))).body;
          await expectStatus(201, 'PUT exposure', client.as(device, 'PUT', `${API}/profiles/${profileId}/exposures/${field.id}`, { body: {} }));
          return { device, profileId, fieldId: field.id, version: field.version };
        };
        const owner = await withPhone(fanning!.device);
        const baseline = await withPhone(alone!.device);

        progress(`${LIVE} subscriptions through the API (request + approval), ${SUBSCRIBERS - LIVE} written to the database`);
        await pool(subscribers, 4, async (s) => void (await subscribe(client, s.device, owner.device, owner.profileId)));
        insertSubscribers(database.env.SQLITE_PATH!, owner, SUBSCRIBERS - LIVE);

        progress(`opening ${LIVE} SSE streams, one per subscriber account`);
        let pending: Pending | undefined;
        let stray = 0;
        const deliveries: number[] = [];
        await pool(subscribers, 50, async (s) => {
          streams.push(
            await openStream(server.port, s.device, (kind) => {
              if (kind !== 'contact.card.changed' || !pending) {
                stray++;
                return;
              }
              const now = performance.now();
              deliveries.push(now - pending.sent);
              pending.last = now;
              if (--pending.remaining === 0) pending.done();
            }),
          );
        });
        const rss = server.memory()?.rss ?? Number.NaN;

        /** One edit: the proof is signed before the clock starts; returns when it was sent and answered. */
        const edit = async (o: Owner, value: string, before: (sent: number) => void = () => {}) => {
          const path = `${API}/me/fields/${o.fieldId}`;
          const dpop = await o.device.key.proof('PATCH', ORIGIN + path, { accessToken: o.device.tokens.access_token });
          const sent = performance.now();
          before(sent);
          const res = await client.as(o.device, 'PATCH', path, { body: { value }, headers: { 'if-match': `"${o.version}"`, dpop } });
          const answered = performance.now();
          if (res.status !== 200) throw new Error(`PATCH ${path}: ${res.status} ${JSON.stringify(res.body)}`);
          o.version = res.body.version;
          return { sent, answered };
        };

        progress(`${edits} edits on each owner, alternating: the owner with no subscribers, then the one with ${SUBSCRIBERS.toLocaleString('en')}`);
        const baselineAcks: number[] = [];
        const acks: number[] = [];
        const tails: number[] = [];
        let timedOut = 0;
        for (let i = 0; i < edits; i++) {
          const value = PHONES[(i + 1) % PHONES.length]!;
          const unseen = await edit(baseline, value);
          baselineAcks.push(unseen.answered - unseen.sent);
          const wait: Pending = { sent: 0, remaining: LIVE, last: 0, done: () => {} };
          const delivered = new Promise<void>((resolve) => (wait.done = resolve));
          const seen = await edit(owner, value, (sent) => {
            wait.sent = sent;
            pending = wait;
          });
          acks.push(seen.answered - seen.sent);
          const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), DELIVERY_TIMEOUT_MS));
          if ((await Promise.race([delivered, timer])) === 'timeout') timedOut++;
          else tails.push(wait.last - seen.answered);
          pending = undefined;
        }

        const expected = edits * LIVE;
        return {
          metrics: {
            subscribers: SUBSCRIBERS,
            live: LIVE,
            ackP50: percentile(acks, 50),
            ackP99: percentile(acks, 99),
            baselineAckP50: percentile(baselineAcks, 50),
            baselineAckP99: percentile(baselineAcks, 99),
            deliveryP50: percentile(deliveries, 50),
            deliveryP99: percentile(deliveries, 99),
            delivered: deliveries.length,
            expected,
          },
          rows: [
            ['active subscribers / with a live SSE stream', `${SUBSCRIBERS.toLocaleString('en')} (${LIVE.toLocaleString('en')} through the API, ${(SUBSCRIBERS - LIVE).toLocaleString('en')} written to the database) / ${LIVE.toLocaleString('en')}`],
            ['edits (PATCH /me/fields/{id}), deliveries expected / received', `${edits}, ${expected.toLocaleString('en')} / ${deliveries.length.toLocaleString('en')}${timedOut ? ` (${timedOut} edits timed out)` : ''}${stray ? `, ${stray} unexpected signals` : ''}`],
            [`edit acknowledged p50 / p99, owner with ${SUBSCRIBERS.toLocaleString('en')} subscribers`, `${ms(percentile(acks, 50))} / ${ms(percentile(acks, 99))}`],
            ['edit acknowledged p50 / p99, owner with no subscribers (baseline)', `${ms(percentile(baselineAcks, 50))} / ${ms(percentile(baselineAcks, 99))}`],
            ['delivery p50 / p99 / max (edit sent -> stream receipt)', `${ms(percentile(deliveries, 50))} / ${ms(percentile(deliveries, 99))} / ${ms(Math.max(...deliveries))}`],
            [`last of an edit's ${LIVE.toLocaleString('en')} deliveries, after its response, p50 / p99`, `${ms(percentile(tails, 50))} / ${ms(percentile(tails, 99))}`],
            [`server RSS with ${LIVE.toLocaleString('en')} streams open`, `${(rss / 2 ** 20).toFixed(0)} MB`],
          ],
          notes: [
            'Times are taken by the client (this process, pinned to the load core), from sending the PATCH (its DPoP proof signed ' +
              `beforehand) to reading its response, and to each stream reading its contact.card.changed; the ${LIVE.toLocaleString('en')} ` +
              'streams are read by the same process that times the edit. Edits are one at a time: the next starts once every stream ' +
              `has its signal. Server: the built service, production settings as in the other scenarios, plus ${Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}.`,
          ],
        };
      } finally {
        for (const stream of streams) stream.close();
        await server.stop();
        await database.drop();
      }
    },
  };
}
