// 1,000 owners editing at once (o, PostgreSQL): how many card changes a second one database takes
// with the card-change log (decision 342: a change writes to card_change_pending, the sequencer
// gives the committed rows their positions after the commit), against its limit, the same server
// and the same transactions without the log (BENCH_WITHOUT_CARD_CHANGE_LOG=1, config.ts).
//
// 1,000 owners signed up through the API, each with a profile showing one phone field, and one
// follower each, written with SQL (an account and an active subscription to the owner's profile,
// as s does). The load generator (bench/lib/generator.ts, job `edit`) keeps BENCH_OWNERS_IN_FLIGHT
// (200) edits in flight: PATCH /me/fields/{id} with If-Match, its DPoP proof signed beforehand,
// each owner edited by one connection, one edit after another, the value alternating so every
// edit changes the card. Measured: acknowledged edits a second and their latency, the server's
// CPU, and the database's commits (pg_stat_database.xact_commit), write transactions (transaction ids) and card-change log rows per
// edit, read around each run with the database idle. Each run has a server process of its own on
// the same database, loaded untimed for a few seconds first; the runs' order alternates by repetition.
import pg from 'pg';
import type { EditDevice, Job, JobResult } from './lib/generator.js';
import type { ServerProcess } from './lib/processes.js';
import { PHONES, withPhone } from './lib/card-edits.js';
import { API, HOST, ORIGIN, clientFor, createDatabase, signUpDevices, startVid } from './lib/vid.js';
import type { BenchDatabase } from './lib/vid.js';
import { pool } from './signals.js';
import type { BenchResult } from './types.js';

/** The two runs: the service as it runs, and its limit without the card-change log. */
export type OwnersMode = 'log' | 'without';

const SERVER_ENV = {
  // Signing up a thousand owners takes a while, and the runs follow: tokens outlive them.
  ACCESS_TOKEN_TTL_S: '7200',
  // The server is restarted between runs: no balancer to drain for.
  DRAIN_DELAY_S: '0',
};
const WITHOUT_LOG = { BENCH_WITHOUT_CARD_CHANGE_LOG: '1' };
/** The untimed load each new server process gets before its measured run (after a 1 s warm-up of its own). */
const SETTLING_SECONDS = 3;

export interface OwnersRepetition extends JobResult {
  serverCpu: number;
  mode: OwnersMode;
  /** Edits committed over the whole job (warm-up included), from the fields' versions. */
  editsCommitted: number;
  /** Database commits per committed edit, and the card-change log's rows (pending included) per edit. */
  commitsPerEdit: number;
  /** Write transactions (transaction ids) per committed edit. */
  writesPerEdit: number;
  logRowsPerEdit: number;
}

export interface OwnersResult extends BenchResult {
  owners: number;
  inFlight: number;
  repetitions: OwnersRepetition[];
}

/**
 * What the database has done so far: commits (pg_stat_database, every transaction, reads too,
 * as its backends report them), write transactions (transaction ids handed out, exact; this
 * reading takes one), edits (the fields' versions) and the log's rows.
 */
async function counters(database: BenchDatabase): Promise<{ commits: number; writes: number; edits: number; logRows: number }> {
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    // card_change_pending came with decision 342: a tree from before it has none (its changes append to the log).
    const pending = (await client.query<{ found: boolean }>("select to_regclass('card_change_pending') is not null as found")).rows[0]!.found;
    const { rows } = await client.query<{ commits: string; writes: string; edits: string; log: string }>(
      `select (select xact_commit from pg_stat_database where datname = current_database()) as commits,
              pg_current_xact_id()::text::bigint as writes,
              (select coalesce(sum(version), 0) from fields) as edits,
              (select count(*) from card_change_log)${pending ? ' + (select count(*) from card_change_pending)' : ''} as log`,
    );
    return { commits: Number(rows[0]!.commits), writes: Number(rows[0]!.writes), edits: Number(rows[0]!.edits), logRows: Number(rows[0]!.log) };
  } finally {
    await client.end();
  }
}

/** Each backend reports its commits to pg_stat_database within a second of going idle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

/** One follower per owner, written with SQL: an account and an active subscription to the owner's profile. */
async function writeFollowers(database: BenchDatabase, owners: Array<{ accountId: string; profileId: string }>): Promise<void> {
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    const now = Date.now();
    const { rows } = await client.query<{ region: string }>('select region from accounts where id = $1', [owners[0]!.accountId]);
    // Ids the length of the service's (a prefix and 22 characters); lower-case ASCII usernames, their own canonical form.
    await client.query(
      `insert into accounts (id, username, username_canonical, username_skeleton, user_handle, region, version, created_at)
       select 'acc_' || left(md5('f' || g), 22), 'benchfollower' || g, 'benchfollower' || g, 'benchfollower' || g, md5('h' || g) || left(md5('u' || g), 11), $1, 1, $2
         from generate_series(1, $3::int) g`,
      [rows[0]!.region, now, owners.length],
    );
    await client.query(
      `insert into subscriptions (id, owner_id, subscriber_id, profile_id, status, version, created_at, updated_at, card_since)
       select 'sub_' || left(md5('s' || o.g), 22), o.owner, 'acc_' || left(md5('f' || o.g), 22), o.profile, 'active', 1, $3, $3, $3
         from unnest($1::text[], $2::text[]) with ordinality as o(owner, profile, g)`,
      [owners.map((o) => o.accountId), owners.map((o) => o.profileId), now],
    );
    await client.query('vacuum (analyze) accounts, subscriptions');
  } finally {
    await client.end();
  }
}

const count = (n: number) => n.toLocaleString('en');
const median = (values: number[]) => {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return Number.NaN;
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};

/** The database's side of each run, medians over the repetitions. */
function ownersRows(repetitions: OwnersRepetition[]): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  for (const mode of ['log', 'without'] as const) {
    const runs = repetitions.filter((r) => r.mode === mode);
    if (!runs.length) continue;
    const what = mode === 'log' ? 'with the card-change log' : 'without it (the limit)';
    const commitsPerEdit = median(runs.map((r) => r.commitsPerEdit));
    const commitsPerSecond = median(runs.map((r) => r.commitsPerEdit * r.steps[0]!.rate));
    rows.push([`o, ${what}: database commits/s`, `${commitsPerSecond.toFixed(0)} (${commitsPerEdit.toFixed(2)} commits per edit)`]);
    rows.push([`o, ${what}: write transactions/s`, `${median(runs.map((r) => r.writesPerEdit * r.steps[0]!.rate)).toFixed(0)} (${median(runs.map((r) => r.writesPerEdit)).toFixed(2)} per edit)`]);
    rows.push([`o, ${what}: card-change log rows per edit`, median(runs.map((r) => r.logRowsPerEdit)).toFixed(2)]);
  }
  return rows;
}

const NOTE =
  'o: an edit is timed by the load generator from writing its PATCH (DPoP proof signed beforehand) to reading the answer; edits/s counts the 200s answered inside the window. ' +
  'Commits per edit: pg_stat_database.xact_commit over the whole job (warm-up included) over the edits it committed (the fields\' versions), both read with the database idle; ' +
  'commits/s is that times the edits/s (the backends report their commits to the statistics in their own time, so per run this moves by a fraction of a commit per edit). ' +
  'Write transactions: transaction ids handed out over the same stretch (exact; read-only transactions take none), per edit and times the edits/s; ' +
  'the sessions\' last_seen_at, written at most once a minute per session, are among them in whichever run they come due. Log rows per edit: card_change_log and card_change_pending counted the same way. ' +
  'The limit runs the same server on the same database restarted with BENCH_WITHOUT_CARD_CHANGE_LOG=1: the same transactions, writing no rows of the log.';

export function ownersScenario(options: {
  owners: number;
  inFlight: number;
  reps: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Runs a job against the server and reads the server's CPU over its window (run.ts's measure). */
  measure(job: Job, server: ServerProcess, hooks: { start?: () => void }): Promise<JobResult & { serverCpu: number }>;
}) {
  const { owners: size, inFlight, reps } = options;
  return {
    name: 'owners',
    description: `${count(size)} owners (PostgreSQL), each with a phone field on a profile and one follower, editing at once: ${count(inFlight)} PATCHes in flight, each owner's edits one after another; with the card-change log, and without it (the limit)`,
    async run(progress: (line: string) => void): Promise<OwnersResult> {
      if (inFlight > size) throw new Error(`BENCH_OWNERS_IN_FLIGHT (${inFlight}) is more than the owners (${size}): each owner has one edit in flight at most`);
      const database = await createDatabase('postgres');
      let server: ServerProcess | undefined;
      /** A fresh server process for each run, so both modes start alike (no JIT warmed by the setup or an earlier run). */
      const serve = async (next: OwnersMode) => {
        await server?.stop();
        server = await startVid(`vid-owners-${next}`, database, { env: { ...SERVER_ENV, ...(next === 'without' ? WITHOUT_LOG : {}) } });
        // Proof the switch is what the server runs with: it warns at start when set, and only then.
        const warned = () => server!.log().includes('BENCH_WITHOUT_CARD_CHANGE_LOG');
        for (let waited = 0; next === 'without' && !warned() && waited < 2000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
        if ((next === 'without') !== warned()) throw new Error(`the server started ${next === 'without' ? 'without the log did not warn of it' : 'with the log warned of running without it'}:\n${server.log()}`);
        return server;
      };
      try {
        const first = await serve('log');
        progress(`signing up ${count(size)} owners, each with a phone field on a profile`);
        const signedUp = await signUpDevices(first.port, size, 'benchowner');
        const client = clientFor(first.port);
        let devices: EditDevice[] = new Array(size);
        const profiles: Array<{ accountId: string; profileId: string }> = new Array(size);
        await pool(signedUp, 8, async (owner, i) => {
          const card = await withPhone(client, owner.device);
          profiles[i] = { accountId: owner.device.accountId, profileId: card.profileId };
          devices[i] = { key: owner.key, accessToken: owner.device.tokens.access_token, path: `${API}/me/fields/${card.fieldId}`, version: card.version, values: PHONES, edits: 0 };
        });
        progress(`${count(size)} followers, one per owner, written with SQL`);
        await writeFollowers(database, profiles);

        const repetitions: OwnersRepetition[] = [];
        let expectedRate = 500;
        for (let rep = 1; rep <= reps; rep++) {
          // Alternating order (log, without; without, log; ...): drift over the run touches both alike.
          const order: OwnersMode[] = rep % 2 ? ['log', 'without'] : ['without', 'log'];
          for (const run of order) {
            const vid = await serve(run);
            const job: Job = {
              kind: 'edit',
              targets: [{ host: '127.0.0.1', port: vid.port }],
              connections: inFlight,
              warmupSeconds: options.warmupSeconds,
              durationSeconds: options.durationSeconds,
              host: HOST,
              path: API,
              htu: ORIGIN,
              expectedRate,
              devices,
            };
            // The new process's first seconds (JIT, the pool's connections) are not measured: an untimed run first.
            devices = (await options.measure({ ...job, warmupSeconds: 1, durationSeconds: SETTLING_SECONDS }, vid, {})).devices as EditDevice[];
            job.devices = devices;
            await settle();
            const before = await counters(database);
            const result = await options.measure(job, vid, { start: () => void database.pinBackends() });
            devices = result.devices as EditDevice[];
            await settle();
            const after = await counters(database);
            const edits = after.edits - before.edits;
            const repetition: OwnersRepetition = {
              ...result,
              mode: run,
              editsCommitted: edits,
              commitsPerEdit: edits ? (after.commits - before.commits) / edits : Number.NaN,
              writesPerEdit: edits ? (after.writes - before.writes - 1) / edits : Number.NaN,
              logRowsPerEdit: edits ? (after.logRows - before.logRows) / edits : Number.NaN,
            };
            repetitions.push(repetition);
            const step = result.steps[0]!;
            expectedRate = Math.max(expectedRate, step.rate * 1.1);
            progress(
              `${run === 'log' ? 'with the log' : 'without the log'} ${rep}/${reps}: ${step.rate.toFixed(0)} edits/s, p50 ${step.p50.toFixed(1)} ms, p99 ${step.p99.toFixed(1)} ms, ` +
                `${repetition.commitsPerEdit.toFixed(2)} commits (${repetition.writesPerEdit.toFixed(2)} writing) and ${repetition.logRowsPerEdit.toFixed(2)} log rows per edit, server CPU ${result.serverCpu.toFixed(0)}%, generator CPU ${result.generatorCpu.toFixed(0)}%` +
                `${step.failed ? `, ${step.failed} failed: ${step.samples[0]}` : ''}`,
            );
          }
        }
        return { owners: size, inFlight, repetitions, rows: ownersRows(repetitions), notes: [NOTE] };
      } catch (error) {
        progress(`the service's last output:\n${server?.log() ?? ''}`);
        throw error;
      } finally {
        await server?.stop();
        await database.drop();
      }
    },
  };
}
