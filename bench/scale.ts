// Audience scale (s): what an edit, its delivery and a follower's poll cost as one owner's audience
// grows, card changes being fanned out on read (docs/decisions/220): an edit writes one row of the
// card-change log whatever the audience, and each follower's feed reads it from there.
//
// One owner whose profile shows a phone field; 1,000 followers signed up and subscribed through
// the API, each holding a live SSE stream; the rest of the audience generated with SQL (PostgreSQL:
// one insert ... select from generate_series for the accounts and one for the subscriptions;
// SQLite: one transaction of prepared inserts, as k does). The audience grows on the same server
// and owner, 10,000 → 100,000 (→ 1,000,000 on PostgreSQL), and at each size:
// - the rows one edit writes (events and card_change_log counted before and after it);
// - the edit's acknowledgement over BENCH_SCALE_EDITS edits, one at a time, and the delivery of
//   each edit's contact.card.changed to every live stream (edit sent → stream receipt);
// - one follower's poll after each edit (GET /events?since=<its cursor before the edit>, which
//   answers the signal), and polls with nothing new: client latency and, on PostgreSQL, what each
//   poll costs the database (pg_stat_statements when loaded; backend CPU from /proc always);
// - the database's size per follower added.
import pg from 'pg';
import Database from 'better-sqlite3';
import { LiveStreams, PHONES, editPhone, insertSubscribers, withPhone } from './lib/card-edits.js';
import type { Owner } from './lib/card-edits.js';
import { API, ORIGIN, clientFor, createDatabase, signUpDevices, startVid, subscribe } from './lib/vid.js';
import type { BenchDatabase } from './lib/vid.js';
import type { DatabaseCost } from './lib/pg-stats.js';
import { pool } from './signals.js';
import type { BenchResult, BenchScenario } from './types.js';
import { percentile } from './types.js';

const DELIVERY_TIMEOUT_MS = 10_000;
/** Polls with nothing new per size (their latency and database cost). */
const QUIET_POLLS = Number(process.env.BENCH_SCALE_POLLS ?? 200);
const SERVER_ENV = {
  // The setup of a million followers takes minutes; a stream ends when the token that opened it does.
  ACCESS_TOKEN_TTL_S: '7200',
};
const EVENTS_PATH = `${API}/events`;

/** What one audience size measured. */
export interface ScaleSize {
  followers: number;
  /** Followers written with SQL to reach this size, and the seconds that took. */
  added: number;
  growSeconds: number;
  /** Database bytes per follower added (PostgreSQL: pg_database_size; SQLite: pages in use). */
  bytesPerFollower: number;
  /** Rows one edit wrote: events (the owner's own signals) and card_change_log. */
  eventsRows: number;
  logRows: number;
  ackP50: number;
  ackP99: number;
  deliveryP50: number;
  deliveryP99: number;
  delivered: number;
  expected: number;
  /** GET /events?since=<before the edit>, answering the edit's signal. */
  pollChangeP50: number;
  pollChangeP99: number;
  pollChangeMissed: number;
  /** Polls after a change answered 503 overloaded (asked again after Retry-After; the latency is the answered one's). */
  pollChangeShed: number;
  pollQuietShed: number;
  /** GET /events?since=<newest>, nothing new. */
  pollQuietP50: number;
  pollQuietP99: number;
  /** PostgreSQL: per nothing-new poll (statements undefined when pg_stat_statements is not loaded). */
  pollCost?: DatabaseCost;
}

export interface ScaleResult extends BenchResult {
  kind: 'sqlite' | 'postgres';
  live: number;
  edits: number;
  sizes: ScaleSize[];
  /** The per-size table, markdown lines. */
  table: string[];
}

/** The generated part of the audience, written with SQL next to the running service. */
interface Audience {
  /** Adds followers numbered from..to-1 (accounts and active subscriptions to the owner's profile). */
  grow(from: number, to: number): Promise<void>;
  /** The database's size in bytes. */
  size(): Promise<number>;
  /** Rows of events and of card_change_log. */
  rows(): Promise<{ events: number; log: number }>;
  close(): Promise<void>;
}

async function postgresAudience(database: BenchDatabase, owner: Owner): Promise<Audience> {
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ region: string }>('select region from accounts where id = $1', [owner.device.accountId]);
  const region = rows[0]!.region;
  return {
    async grow(from, to) {
      const now = Date.now();
      // Ids and handles the length of the service's (a prefix and 22 or 43 base64url characters);
      // the usernames are lower-case ASCII, their own canonical form and skeleton.
      await client.query(
        `insert into accounts (id, username, username_canonical, username_skeleton, user_handle, region, version, created_at)
         select 'acc_' || left(md5('a' || g), 22), 'benchscale' || g, 'benchscale' || g, 'benchscale' || g, md5('h' || g) || left(md5('u' || g), 11), $1, 1, $2
           from generate_series($3::int, $4::int) g`,
        [region, now, from, to - 1],
      );
      await client.query(
        `insert into subscriptions (id, owner_id, subscriber_id, profile_id, status, version, created_at, updated_at, card_since)
         select 'sub_' || left(md5('s' || g), 22), $1, 'acc_' || left(md5('a' || g), 22), $2, 'active', 1, $3, $3, $3
           from generate_series($4::int, $5::int) g`,
        [owner.device.accountId, owner.profileId, now, from, to - 1],
      );
      // As autovacuum would after such growth: statistics and the visibility map up to date.
      await client.query('vacuum (analyze) accounts, subscriptions');
    },
    async size() {
      const { rows } = await client.query<{ size: string }>('select pg_database_size(current_database()) as size');
      return Number(rows[0]!.size);
    },
    async rows() {
      const { rows } = await client.query<{ events: string; log: string }>('select (select count(*) from events) as events, (select count(*) from card_change_log) as log');
      return { events: Number(rows[0]!.events), log: Number(rows[0]!.log) };
    },
    close: () => client.end(),
  };
}

function sqliteAudience(database: BenchDatabase, owner: Owner): Audience {
  const file = database.env.SQLITE_PATH!;
  const db = new Database(file, { readonly: true });
  return {
    async grow(from, to) {
      insertSubscribers(file, owner, to, from);
    },
    async size() {
      // The pages in use, committed ones in the WAL included: the file's size once checkpointed.
      const pages = db.pragma('page_count', { simple: true }) as number;
      const free = db.pragma('freelist_count', { simple: true }) as number;
      return (pages - free) * (db.pragma('page_size', { simple: true }) as number);
    },
    async rows() {
      return db.prepare('select (select count(*) from events) as events, (select count(*) from card_change_log) as log').get() as { events: number; log: number };
    },
    close: async () => void db.close(),
  };
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '–');
const ms3 = (value: number) => (Number.isFinite(value) ? `${value.toFixed(3)} ms` : '–');
const count = (n: number) => n.toLocaleString('en');

/** A poll's database cost as a cell: execution time (pg_stat_statements) or n/a, and backend CPU. */
export function pollCostCell(cost: DatabaseCost | undefined): string {
  if (!cost) return '–';
  return `${cost.statements ? `${ms3(cost.execMsPerRequest)} in ${cost.statementsPerRequest.toFixed(1)} statements` : 'n/a'} (backend CPU ${ms3(cost.cpuMsPerRequest)})`;
}

export function scaleScenario(kind: 'sqlite' | 'postgres', sizes: number[], edits: number, live: number): BenchScenario<ScaleResult> {
  const largest = Math.max(...sizes);
  return {
    name: 'scale',
    description: `one owner (${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}) with an audience growing ${sizes.map(count).join(' → ')} followers, ${count(live)} of them signed up through the API on a live SSE stream, the rest written with SQL; ${edits} field edits per size, one at a time`,
    async run(progress) {
      if (sizes.some((size, i) => i > 0 && size <= sizes[i - 1]!)) throw new Error('the audience only grows: BENCH_SCALE_SIZES in increasing order');
      if (sizes.some((size) => size < live)) throw new Error(`every size must hold the ${live} live followers (BENCH_SCALE_SIZES, BENCH_SCALE_LIVE)`);
      const database = await createDatabase(kind);
      const server = await startVid('vid-scale', database, { env: SERVER_ENV });
      const client = clientFor(server.port);
      const streams = new LiveStreams();
      let audience: Audience | undefined;
      try {
        progress(`signing up the owner and ${count(live)} followers`);
        const [owning] = await signUpDevices(server.port, 1, 'benchscaleowner');
        const followers = await signUpDevices(server.port, live, 'benchscalesub');
        const owner = await withPhone(client, owning!.device);
        progress(`${count(live)} subscriptions through the API (request + approval)`);
        // One at a time on PostgreSQL: concurrent requests to one owner can deadlock there (the
        // owner's account row, key-share locked by the subscription's foreign key, then locked
        // for update to number its signal), and the setup is not what is measured.
        await pool(followers, kind === 'postgres' ? 1 : 4, async (f) => void (await subscribe(client, f.device, owner.device, owner.profileId)));
        progress(`opening ${count(live)} SSE streams, one per follower`);
        await streams.open(server.port, followers);
        audience = kind === 'postgres' ? await postgresAudience(database, owner) : sqliteAudience(database, owner);

        // The follower that polls: one of the live ones, its poll proofs signed before each clock starts.
        const poller = followers[0]!.device;
        /** Polls answered 503 (the node shedding load), each asked again after its Retry-After. */
        let shed = 0;
        const poll = async (since: string | undefined) => {
          const path = since === undefined ? `${EVENTS_PATH}?limit=200` : `${EVENTS_PATH}?since=${since}`;
          for (;;) {
            const dpop = await poller.key.proof('GET', ORIGIN + EVENTS_PATH, { accessToken: poller.tokens.access_token });
            const started = performance.now();
            const res = await client.as(poller, 'GET', path, { headers: { dpop } });
            const took = performance.now() - started;
            if (res.status === 503) {
              shed++;
              await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
              continue;
            }
            if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
            return { took, body: res.body as { data: Array<{ kind: string }>; next_cursor: string; has_more: boolean } };
          }
        };
        /** The poller's newest position: pages until there is nothing more. */
        const catchUp = async (since: string | undefined): Promise<string> => {
          for (;;) {
            const { body } = await poll(since);
            since = body.next_cursor;
            if (!body.has_more) return since;
          }
        };
        let cursor = await catchUp(undefined);

        let value = 0;
        /** One edit, timed, and its deliveries awaited. */
        const editOnce = async () => {
          let settle!: ReturnType<LiveStreams['arm']>;
          const done = await editPhone(client, owner, PHONES[++value % PHONES.length]!, (sent) => (settle = streams.arm(sent)));
          const outcome = await settle(DELIVERY_TIMEOUT_MS);
          return { ack: done.answered - done.sent, timedOut: outcome === 'timeout' };
        };

        await database.pinBackends();
        const results: ScaleSize[] = [];
        let generated = live;
        for (const size of sizes) {
          const added = size - generated;
          const before = await audience.size();
          progress(`growing the audience to ${count(size)} followers: ${count(added)} written with SQL`);
          const growStarted = performance.now();
          if (added > 0) await audience.grow(generated, size);
          const growSeconds = (performance.now() - growStarted) / 1000;
          const after = await audience.size();
          generated = size;
          // The service's pool may have opened backends while the audience grew.
          await database.pinBackends();

          // The rows one edit writes, around one (unmeasured) edit that also warms the path.
          const rowsBefore = await audience.rows();
          await editOnce();
          const rowsAfter = await audience.rows();
          cursor = await catchUp(cursor);

          progress(`${count(size)} followers: ${edits} edits, each followed by the poller's GET /events since its cursor before it`);
          const deliveredBefore = streams.deliveries.length;
          const acks: number[] = [];
          const pollChange: number[] = [];
          let timedOut = 0;
          let missed = 0;
          const shedBefore = shed;
          for (let i = 0; i < edits; i++) {
            const edit = await editOnce();
            acks.push(edit.ack);
            if (edit.timedOut) timedOut++;
            const { took, body } = await poll(cursor);
            pollChange.push(took);
            if (!body.data.some((signal) => signal.kind === 'contact.card.changed')) missed++;
            cursor = body.has_more ? await catchUp(body.next_cursor) : body.next_cursor;
          }
          const deliveries = streams.deliveries.slice(deliveredBefore);
          const pollChangeShed = shed - shedBefore;

          progress(`${count(size)} followers: ${QUIET_POLLS} polls with nothing new`);
          const quiet: number[] = [];
          const window = await database.costWindow?.();
          for (let i = 0; i < QUIET_POLLS; i++) {
            const { took, body } = await poll(cursor);
            if (body.data.length) throw new Error(`a poll with nothing new answered ${body.data.length} signals: ${body.data.map((s) => s.kind).join(', ')}`);
            quiet.push(took);
          }
          const pollCost = await window?.stop(QUIET_POLLS);
          const pollQuietShed = shed - shedBefore - pollChangeShed;

          const result: ScaleSize = {
            followers: size,
            added,
            growSeconds,
            bytesPerFollower: added > 0 ? (after - before) / added : Number.NaN,
            eventsRows: rowsAfter.events - rowsBefore.events,
            logRows: rowsAfter.log - rowsBefore.log,
            ackP50: percentile(acks, 50),
            ackP99: percentile(acks, 99),
            deliveryP50: percentile(deliveries, 50),
            deliveryP99: percentile(deliveries, 99),
            delivered: deliveries.length,
            expected: edits * streams.count,
            pollChangeP50: percentile(pollChange, 50),
            pollChangeP99: percentile(pollChange, 99),
            pollChangeMissed: missed,
            pollChangeShed,
            pollQuietShed,
            pollQuietP50: percentile(quiet, 50),
            pollQuietP99: percentile(quiet, 99),
            pollCost,
          };
          results.push(result);
          progress(
            `${count(size)} followers: ack p50 ${ms(result.ackP50)} p99 ${ms(result.ackP99)}; delivery p99 ${ms(result.deliveryP99)} (${count(result.delivered)}/${count(result.expected)}${timedOut ? `, ${timedOut} edits timed out` : ''}); ` +
              `poll after a change p50 ${ms(result.pollChangeP50)}${missed ? ` (${missed} without the signal)` : ''}${pollChangeShed ? ` (${pollChangeShed} answered 503 first)` : ''}; nothing new${pollQuietShed ? ` (${pollQuietShed} answered 503)` : ''} p50 ${ms(result.pollQuietP50)}, database ${pollCostCell(pollCost)}; ` +
              `${result.eventsRows} events + ${result.logRows} card_change_log rows per edit; ${Number.isFinite(result.bytesPerFollower) ? `${result.bytesPerFollower.toFixed(0)} bytes per follower (${count(added)} added in ${growSeconds.toFixed(1)} s)` : ''}`,
          );
        }

        // The database's cost per poll is PostgreSQL's only (pg-stats.ts).
        const costColumn = kind === 'postgres';
        const table = [
          `| followers | edit ack p50 / p99 | delivery p50 / p99 | poll after a change p50 / p99 | poll, nothing new p50 / p99 |${costColumn ? ' database per nothing-new poll |' : ''} rows per edit (events + card_change_log) | bytes per follower |`,
          `|---:|---:|---:|---:|---:|${costColumn ? '---|' : ''}---:|---:|`,
          ...results.map(
            (r) =>
              `| ${count(r.followers)} | ${ms(r.ackP50)} / ${ms(r.ackP99)} | ${ms(r.deliveryP50)} / ${ms(r.deliveryP99)}${r.delivered === r.expected ? '' : ` (${count(r.delivered)} of ${count(r.expected)})`} | ` +
              `${ms(r.pollChangeP50)} / ${ms(r.pollChangeP99)}${r.pollChangeMissed ? ` (${r.pollChangeMissed} missed)` : ''}${r.pollChangeShed ? ` (${r.pollChangeShed} × 503 first)` : ''} | ${ms(r.pollQuietP50)} / ${ms(r.pollQuietP99)}${r.pollQuietShed ? ` (${r.pollQuietShed} × 503)` : ''} |${costColumn ? ` ${pollCostCell(r.pollCost)} |` : ''} ${r.eventsRows} + ${r.logRows} | ${Number.isFinite(r.bytesPerFollower) ? r.bytesPerFollower.toFixed(0) : '–'} |`,
          ),
        ];
        const first = results[0];
        const last = results.at(-1);
        return {
          kind,
          live: streams.count,
          edits,
          sizes: results,
          table,
          metrics: { largest, ackFlat: first && last ? last.ackP50 / first.ackP50 : Number.NaN },
          rows: results.map((r) => [`${count(r.followers)} followers: SQL setup`, `${count(r.added)} followers added in ${r.growSeconds.toFixed(1)} s`]),
          notes: [
            `Times are taken by the client (this process, pinned to the load core): an edit from sending its PATCH (DPoP proof signed beforehand) to reading the answer, ` +
              `a delivery to each of the ${count(streams.count)} streams reading its contact.card.changed, a poll from sending GET /events (proof signed beforehand) to reading the page. ` +
              `Edits are one at a time; after each, once every stream has its signal, one follower polls since its cursor before the edit. ` +
              `A poll the node sheds (503 overloaded) is counted and asked again after its Retry-After, as a client would; its latency is the answered attempt's. ` +
              `The audience grows on the same server and owner; each size's first edit is not timed (it counts the rows an edit writes). ` +
              (kind === 'postgres'
                ? `After each growth the generated tables are vacuumed and analysed (as autovacuum would). Database per poll: execution time from pg_stat_statements over ${QUIET_POLLS} polls (n/a when it is not in shared_preload_libraries), and the CPU time of the database's backends from /proc. `
                : `The size per follower is the database's pages in use (WAL included) before and after the growth. `) +
              `Server: the built service, production settings as in the other scenarios, plus ${Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}.`,
            ...results.flatMap((r) => (r.pollCost?.statements ? [`${count(r.followers)} followers, statements per nothing-new poll: ${r.pollCost.top.map((t) => `${t.callsPerRequest.toFixed(2)} × \`${t.query}\` (${t.meanMs.toFixed(3)} ms)`).join('; ')}`] : [])),
          ],
        };
      } catch (error) {
        // What the service said about it (its output is kept, not printed).
        progress(`the service's last output:\n${server.log()}`);
        throw error;
      } finally {
        streams.close();
        await audience?.close().catch(() => {});
        await server.stop();
        await database.drop();
      }
    },
  };
}

