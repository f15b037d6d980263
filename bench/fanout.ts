// Card fan-out (subscriptions, PRODUCT §4): one owner on SQLite with 10,000 active subscribers,
// 1,000 of them holding a live SSE stream. The owner edits a phone field its profile shows, one
// edit at a time; measured are the edit's acknowledgement and each stream's contact.card.changed.
// An owner with no subscribers makes the same edits on the same server in the same run: the
// baseline, so the reader sees what the fan-out costs. The service is the built one, started as
// `npm start` runs it (bench/lib/vid.ts), on its own core; the streams live in this process.
import { createDatabase, clientFor, signUpDevices, startVid, subscribe } from './lib/vid.js';
import { LiveStreams, PHONES, editPhone, insertSubscribers, withPhone } from './lib/card-edits.js';
import { pool } from './signals.js';
import type { BenchScenario } from './types.js';
import { percentile } from './types.js';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 10_000);
const LIVE = Number(process.env.BENCH_FANOUT_LIVE ?? 1000);
const DELIVERY_TIMEOUT_MS = 5000;
const SERVER_ENV = {
  // Setting up 1,000 subscribers takes a while; a stream ends when the token that opened it does.
  ACCESS_TOKEN_TTL_S: '3600',
};

const ms = (value: number) => `${value.toFixed(1)} ms`;

export function fanoutScenario(edits: number): BenchScenario {
  return {
    name: 'fanout',
    description: `one owner (SQLite) with ${SUBSCRIBERS.toLocaleString('en')} active subscribers, ${LIVE.toLocaleString('en')} of them on a live SSE stream; ${edits} field edits, one at a time`,
    async run(progress) {
      const database = await createDatabase('sqlite');
      const server = await startVid('vid-fanout', database, { env: SERVER_ENV });
      const client = clientFor(server.port);
      const streams = new LiveStreams();
      try {
        progress(`signing up 2 owners and ${LIVE} subscribers`);
        const [fanning, alone] = await signUpDevices(server.port, 2, 'benchfanowner');
        const subscribers = await signUpDevices(server.port, LIVE, 'benchfansub');
        const owner = await withPhone(client, fanning!.device);
        const baseline = await withPhone(client, alone!.device);

        progress(`${LIVE} subscriptions through the API (request + approval), ${SUBSCRIBERS - LIVE} written to the database`);
        await pool(subscribers, 4, async (s) => void (await subscribe(client, s.device, owner.device, owner.profileId)));
        insertSubscribers(database.env.SQLITE_PATH!, owner, SUBSCRIBERS - LIVE);

        progress(`opening ${LIVE} SSE streams, one per subscriber account`);
        await streams.open(server.port, subscribers);
        const rss = server.memory()?.rss ?? Number.NaN;

        progress(`${edits} edits on each owner, alternating: the owner with no subscribers, then the one with ${SUBSCRIBERS.toLocaleString('en')}`);
        const baselineAcks: number[] = [];
        const acks: number[] = [];
        const tails: number[] = [];
        let timedOut = 0;
        for (let i = 0; i < edits; i++) {
          const value = PHONES[(i + 1) % PHONES.length]!;
          const unseen = await editPhone(client, baseline, value);
          baselineAcks.push(unseen.answered - unseen.sent);
          let settle!: ReturnType<LiveStreams['arm']>;
          const seen = await editPhone(client, owner, value, (sent) => (settle = streams.arm(sent)));
          acks.push(seen.answered - seen.sent);
          const outcome = await settle(DELIVERY_TIMEOUT_MS);
          if (outcome === 'timeout') timedOut++;
          else tails.push(outcome.last - seen.answered);
        }
        const { deliveries, stray } = streams;

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
        streams.close();
        await server.stop();
        await database.drop();
      }
    },
  };
}
