// npm run bench [-- --pg] [--quick] [--profile] [scenario ...]
//
// Builds the service, starts each server in its own process pinned to core 0, drives it from a
// load generator pinned to core 1 (bench/lib/generator.ts: raw keep-alive sockets, pre-signed
// DPoP proofs), and prints one table where every throughput is a ratio to scenario a, "the
// limit", measured in the same run on the same machine. JSON and the markdown table go to
// bench-results/ (git-ignored). docs/performance.md explains the method and holds the latest table.
//
// Scenarios (names select a subset; `limit` always runs when a ratio needs it):
//   limit    a. bare node:http + one ES256 verify per request
//   me       b. GET /api/v1/me with a DPoP-bound token (the hot path)
//   metrics  b+metrics: b on a server with METRICS_PORT set, /metrics scraped every 5 s; its ratio
//            to b (same run, interleaved with it) is the cost of metrics, target ≥ 0.97x
//   peer     c. oidc-provider userinfo with a DPoP-bound token, replay detection on
//   peer2    c2. better-auth GET /api/auth/get-session with its session cookie, default options
//            (bench/servers/better-auth.ts says exactly how it is set up); peer2cache the same
//            with better-auth's session.cookieCache on (reported, not a target)
//   login    d. passkey login ceremonies (begin + finish, software authenticator), durable commit
//   renew    e. refresh-token rotation
//   signals  f. signal latency with 1,000 SSE clients (bench/signals.ts)
//   nodes    b on one node and on two nodes (PostgreSQL + Redis): the scaling factor (--pg only)
//   preview  h. GET /api/v1/profiles/{id}/preview with a DPoP-bound token; h304 the same with If-None-Match (304)
//   public   i. GET /api/v1/public/{username}, no authentication; i304 with If-None-Match (304). Also a
//            ratio to a2, bare node:http answering a fixed body with no crypto, run alongside
//   contact  j. GET /api/v1/contacts/{id}/card by an active subscriber, DPoP-bound token; j304 with If-None-Match (304)
//   photos   p. POST /me/photos of a 12-megapixel JPEG: p50 one at a time, and the server's peak RSS with 8 at
//            once; jp, j again once every card shows a photo (its thumbnail inline), to read against j (SQLite only)
//   purge    l. GET /me while the node's maintenance purges 1,000 accounts whose grace is over, against
//            l0, GET /me on the same server with nothing to purge (SQLite only)
//   fanout   k. field edits by an owner with 10,000 active subscribers, 1,000 on live SSE streams:
//            acknowledgement and contact.card.changed delivery latency (bench/fanout.ts, SQLite only)
//   scale    s. one owner's audience grown 10,000 → 100,000 (→ 1,000,000 with --pg) followers, 1,000 of them on
//            live SSE streams, the rest written with SQL: an edit's acknowledgement and the rows it writes, delivery
//            to the streams, a follower's poll after a change and with nothing new (its database cost on
//            PostgreSQL), the database's size per follower (bench/scale.ts; SQLite or --pg; not in the default set)
//   owners   o. 1,000 owners, each with a phone field on a profile and one follower, editing at once (BENCH_OWNERS_IN_FLIGHT
//            PATCHes in flight, each owner's edits one after another): acknowledged edits/s and p99 with the card-change
//            log, and o0, the same server and transactions without it (BENCH_WITHOUT_CARD_CHANGE_LOG=1), its limit;
//            target o ≥ 0.7x o0; the database's commits/s (bench/owners.ts; --pg only, not in the default set)
//   day      a day in the life: a population with the product's habits (opening the app with its live stream, token
//            renewals, field edits fanned out to followers, logins on new devices, a phone's address book polling
//            its CTag and syncing on change), its busiest hour played open-loop; doubled then bisected until a
//            request class's p99 passes 100 ms or a request fails. Prints the daily active people one node serves and
//            the first resource to give out (bench/day.ts; SQLite one node, --pg two nodes + Redis; not in the default set)
//   regions  r. across regions: two deployments (EU, US), each its own database; 1,000 US accounts (100 quick) follow one
//            EU owner, each on a live SSE stream in the US; field edits delivered EU 200 → each US stream, against r0, the
//            same edits by a US owner they also follow (local fan-out); and the EU's requests and deliveries per edit with
//            1, 10, 100, 1,000 US followers (bench/regions.ts; SQLite or --pg; not in the default set)
//   dav      m0. CardDAV sync-collection (Basic auth) by a reader following 1,000 people, nothing
//            changed since its token; m1 the same with one card changed; and the memory of a
//            first sync of 5,000 cards with their vCards (bench/dav.ts, SQLite only)
// Memory (g) is read from /proc for b and d: RSS after setup (idle) and the highest RSS under load.
//
// Env: BENCH_QUICK=1 (1 repetition of 3 s), BENCH_REPS, BENCH_DURATION (s), BENCH_WARMUP (s),
// BENCH_CONNECTIONS (50), BENCH_DATABASE_URL (PostgreSQL admin URL), BENCH_REDIS_URL,
// BENCH_NO_PIN=1, BENCH_NODE_FLAGS (node flags added to the service's, to try a runtime setting), BENCH_LOG_LEVEL (service log level, default warn), BENCH_FANOUT_EDITS (k: 30, 10 quick),
// BENCH_FANOUT_SUBSCRIBERS (10,000), BENCH_FANOUT_LIVE (1,000 of them on a stream), BENCH_PURGE_ACCOUNTS (l: 1,000),
// BENCH_DAV_CONTACTS (m: 1,000), BENCH_DAV_LARGE (the first sync measured for memory: 5,000),
// BENCH_SCALE_SIZES (s: "10000,100000,1000000" on PostgreSQL, "10000,100000" on SQLite), BENCH_SCALE_EDITS (s: 20, 10 quick),
// BENCH_SCALE_LIVE (s: 1,000 followers on a stream), BENCH_SCALE_POLLS (s: 200 polls with nothing new per size),
// BENCH_OWNERS (o: 1,000), BENCH_OWNERS_IN_FLIGHT (o: 200 edits in flight).
// BENCH_REGIONS_SIZES (r: US followers, "1,10,100,1000", "1,10,100" quick; the largest is r's audience), BENCH_REGIONS_EDITS (r: 20, 10 quick).
// BENCH_DAY_ACTORS (day: accounts playing the population, 200, 30 quick), BENCH_DAY_START (day: first population, 40,000
// per node, 10,000 quick), BENCH_DAY_BISECT (day: 4, 2 quick), BENCH_DAY_MAX_STREAMS (day: 12,000).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { GetDevice, Job, JobResult } from './lib/generator.js';
import { Generator, LOAD_CORE, SERVER_CORE, ServerProcess, freePort, pin, pinning } from './lib/processes.js';
import { formatSummary, summarise } from './lib/profile-summary.js';
import { ProofSigner, newDeviceKey } from './lib/proofs.js';
import { HOST, ORIGIN, clientFor, createDatabase, expectStatus, postgresAdminUrl, scrapeWhileRunning, setUpCards, setUpContacts, signUpDevices, startVid, startVidWithMetrics } from './lib/vid.js';
import type { BenchDatabase, BenchDevice } from './lib/vid.js';
import type { DatabaseCost } from './lib/pg-stats.js';
import { DAV_LARGE, DAV_SMALL, setUpAddressBooks } from './dav.js';
import { measurePhotos } from './photos.js';
import { fanoutScenario } from './fanout.js';
import { ownersScenario } from './owners.js';
import type { OwnersResult } from './owners.js';
import { pollCostCell, scaleScenario } from './scale.js';
import { dayScenario } from './day.js';
import { redisCounters } from './lib/day-resources.js';
import type { DayResult } from './day.js';
import type { ScaleResult } from './scale.js';
import { perEditLine, regionsScenario } from './regions.js';
import type { RegionsResult } from './regions.js';
import { signalsScenario } from './signals.js';
import type { BenchResult } from './types.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const chosen = args.filter((a) => !a.startsWith('--'));
const quick = process.env.BENCH_QUICK === '1' || flags.has('--quick');
const kind: 'sqlite' | 'postgres' = flags.has('--pg') ? 'postgres' : 'sqlite';
const REPS = Number(process.env.BENCH_REPS ?? (quick ? 1 : 3));
const DURATION = Number(process.env.BENCH_DURATION ?? (quick ? 3 : 10));
const WARMUP = Number(process.env.BENCH_WARMUP ?? (quick ? 1 : 2));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DEVICES = Math.min(CONNECTIONS, 50);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ALL = kind === 'sqlite' ? ['limit', 'me', 'metrics', 'peer', 'peer2', 'peer2cache', 'preview', 'public', 'contact', 'photos', 'dav', 'login', 'renew', 'purge', 'signals', 'fanout'] : ['limit', 'me', 'metrics', 'login', 'renew', 'nodes'];
const selected = new Set(chosen.length ? chosen : ALL);
for (const name of selected) if (!['limit', 'me', 'metrics', 'peer', 'peer2', 'peer2cache', 'preview', 'public', 'contact', 'photos', 'dav', 'login', 'renew', 'purge', 'signals', 'fanout', 'scale', 'owners', 'day', 'regions', 'nodes'].includes(name)) throw new Error(`unknown scenario ${name}`);
// b+metrics is a ratio to b, measured alongside it.
if (selected.has('metrics')) selected.add('me');
if (selected.has('nodes') && kind !== 'postgres') throw new Error('the nodes scenario needs --pg');
if ((selected.has('peer2') || selected.has('peer2cache')) && kind !== 'sqlite') throw new Error('the better-auth peer runs on SQLite (drop --pg)');
if (selected.has('fanout') && kind !== 'sqlite') throw new Error('the fanout scenario runs on SQLite (drop --pg)');
if (selected.has('purge') && kind !== 'sqlite') throw new Error('the purge scenario runs on SQLite (drop --pg)');
if (selected.has('dav') && kind !== 'sqlite') throw new Error('the dav scenario runs on SQLite (drop --pg)');
if (selected.has('photos') && kind !== 'sqlite') throw new Error('the photos scenario runs on SQLite (drop --pg)');
// p reads its cards against j's, measured on the same accounts in the same run.
if (selected.has('photos')) selected.add('contact');
// f, k, s and r are latencies of their own, o is a ratio to its own limit, day a population: no ratio to a.
if ([...selected].some((s) => s !== 'signals' && s !== 'fanout' && s !== 'scale' && s !== 'owners' && s !== 'day' && s !== 'regions')) selected.add('limit');
const FANOUT_EDITS = Number(process.env.BENCH_FANOUT_EDITS ?? (quick ? 10 : 30));
const PURGE_ACCOUNTS = Number(process.env.BENCH_PURGE_ACCOUNTS ?? 1000);
const SCALE_SIZES = (process.env.BENCH_SCALE_SIZES ?? (kind === 'postgres' ? '10000,100000,1000000' : '10000,100000')).split(',').map(Number);
if (SCALE_SIZES.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error('BENCH_SCALE_SIZES: audience sizes, e.g. 10000,100000');
const SCALE_EDITS = Number(process.env.BENCH_SCALE_EDITS ?? (quick ? 10 : 20));
const SCALE_LIVE = Number(process.env.BENCH_SCALE_LIVE ?? 1000);
const OWNERS = Number(process.env.BENCH_OWNERS ?? 1000);
const REGIONS_SIZES = (process.env.BENCH_REGIONS_SIZES ?? (quick ? '1,10,100' : '1,10,100,1000')).split(',').map(Number);
const REGIONS_EDITS = Number(process.env.BENCH_REGIONS_EDITS ?? (quick ? 10 : 20));
const OWNERS_IN_FLIGHT = Number(process.env.BENCH_OWNERS_IN_FLIGHT ?? 200);

const ME_PATH = '/api/v1/me';
const MB = 1024 * 1024;
const started = performance.now();
const log = (line: string) => console.log(`  … ${line}`);
const fmtCount = (n: number) => n.toLocaleString('en');
const median = (values: number[]) => {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return Number.NaN;
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};

/** One measured scenario: every repetition, and the server-side figures read at its window marks. */
interface Measured {
  id: string;
  label: string;
  unit: string;
  reps: Array<JobResult & { serverCpu: number }>;
  /** The result this one is also a ratio to, besides a (i's: a2, a server as bare as i's route). */
  baseline?: string;
  rate: number;
  p50: number;
  p99: number;
  serverCpu: number;
  generatorCpu: number;
  failed: number;
  notes: string[];
}

function summariseRuns(id: string, label: string, unit: string, reps: Array<JobResult & { serverCpu: number }>, counted = 0): Measured {
  const step = (r: JobResult) => r.steps[counted]!;
  const failed = reps.reduce((sum, r) => sum + r.steps.reduce((s, st) => s + st.failed, 0) + r.socketErrors, 0);
  const notes: string[] = [];
  const inline = reps.reduce((sum, r) => sum + r.inlineSigned, 0);
  if (inline) notes.push(`${inline} proofs were signed during the run (pool ran dry)`);
  if (failed) notes.push(`${failed} failed requests, e.g. ${reps.flatMap((r) => r.steps.flatMap((s) => s.samples))[0] ?? ''}`);
  return {
    id,
    label,
    unit,
    reps,
    rate: median(reps.map((r) => step(r).rate)),
    p50: median(reps.map((r) => step(r).p50)),
    p99: median(reps.map((r) => step(r).p99)),
    serverCpu: median(reps.map((r) => r.serverCpu)),
    generatorCpu: median(reps.map((r) => r.generatorCpu)),
    failed,
    notes,
  };
}

/** Runs a job and reads the servers' CPU time at the generator's window marks. */
async function measure(generator: Generator, job: Job, servers: ServerProcess[], hooks: { start?: () => void; end?: () => void } = {}): Promise<JobResult & { serverCpu: number }> {
  let before = 0;
  let after = 0;
  const cpu = () => servers.reduce((sum, s) => sum + (s.cpuSeconds() ?? Number.NaN), 0);
  const result = await generator.run(job, (phase) => {
    if (phase === 'start') {
      before = cpu();
      hooks.start?.();
    } else {
      after = cpu();
      hooks.end?.();
    }
  });
  return { ...result, serverCpu: ((after - before) / job.durationSeconds) * 100 };
}

function getJob(targets: Array<{ host: string; port: number }>, devices: GetDevice[], expectedRate: number, host = HOST, path = ME_PATH, htu = ORIGIN + ME_PATH): Job {
  return { kind: 'get', targets, connections: CONNECTIONS, warmupSeconds: WARMUP, durationSeconds: DURATION, host, path, htu, expectedRate, devices };
}

const repeated: Record<string, number> = {};
/** b+metrics over b, each repetition measured side by side on one core. */
const sideBySide: number[] = [];

/** PostgreSQL: what one request of b, d and e cost the database, over each one's last measured window. */
const databaseCosts: Record<string, DatabaseCost> = {};
function costWindow(id: string, database: BenchDatabase | undefined) {
  let window: ReturnType<NonNullable<BenchDatabase['costWindow']>> | undefined;
  return {
    start: () => {
      window = database?.costWindow?.();
      // A failed reading costs the figure, not the run.
      window?.catch(() => undefined);
    },
    /** After the run: the load has stopped, so reading now adds nothing to the window. */
    finish: async (requests: number) => {
      const started = await window?.catch(() => undefined);
      if (started) databaseCosts[id] = await started.stop(requests);
    },
  };
}

/**
 * measure() for a server that keeps its core busy (when `busy`): if it got much less, something
 * else on the machine took it, and the repetition says nothing about the server. Run it again.
 */
async function measureBusy(name: string, label: string, job: Job, server: ServerProcess, hooks: { start?: () => void; end?: () => void }, busy: boolean): Promise<JobResult & { serverCpu: number }> {
  let result = await measure(generator, job, [server], hooks);
  for (let retry = 1; retry <= 2 && busy && result.serverCpu < 85; retry++) {
    log(`${label}: the server got only ${result.serverCpu.toFixed(0)}% of its core (other load on the machine); repeating`);
    repeated[name] = (repeated[name] ?? 0) + 1;
    result = await measure(generator, { ...job, expectedRate: Math.max(job.expectedRate, result.steps[0]!.rate * 1.5) }, [server], hooks);
  }
  return result;
}

function logRun(label: string, result: JobResult & { serverCpu: number }): void {
  const step = result.steps[0]!;
  log(`${label}: ${step.rate.toFixed(0)} req/s, p99 ${step.p99.toFixed(1)} ms, server CPU ${result.serverCpu.toFixed(0)}%, generator CPU ${result.generatorCpu.toFixed(0)}%${step.failed ? `, ${step.failed} failed: ${step.samples[0]}` : ''}`);
}

const tsx = (file: string) => [process.execPath, '--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))];

function machine() {
  const cpu = cpus();
  let postgres: string | undefined;
  return {
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGb: +(totalmem() / 2 ** 30).toFixed(1),
    freeMemoryGb: +(freemem() / 2 ** 30).toFixed(1),
    kernel: `${process.platform} ${release()}`,
    node: process.version,
    loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
    pinning: pinning ? `servers on core ${SERVER_CORE}, load generator on core ${LOAD_CORE} (taskset)` : 'none (taskset missing, one core, or BENCH_NO_PIN=1)',
    postgres,
  };
}

/** SQLite commits with fsync (synchronous=FULL, as the service runs) a second on this disk. */
function fsyncRate(): number {
  const dir = mkdtempSync(join(tmpdir(), 'vid-fsync-'));
  try {
    const out = execFileSync(process.execPath, ['-e', `
      const SQLite = require(${JSON.stringify(join(ROOT, 'node_modules/better-sqlite3'))});
      const db = new SQLite(${JSON.stringify(join(dir, 'f.sqlite'))});
      db.pragma('journal_mode = WAL'); db.pragma('synchronous = FULL');
      db.exec('create table t (v text)');
      const ins = db.prepare('insert into t values (?)');
      for (let i = 0; i < 50; i++) ins.run('w');
      const t = performance.now(); for (let i = 0; i < 300; i++) ins.run('x');
      console.log(300 / (performance.now() - t) * 1000);`]);
    return Number(out.toString().trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresVersion(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: postgresAdminUrl() });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return rows[0]?.server_version;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Redis's own counters (INFO), to price a request in Redis work. */
const redisCountersHere = () => redisCounters(REDIS_URL);

/**
 * What one GET /me asks of Redis, from MONITOR over `requests` sequential requests across the
 * nodes with no other load (the machine is the benchmark's alone): the commands the nodes send,
 * each answered before its request goes on, so its round trips; and the commands Redis runs inside
 * their scripts (MONITOR shows them as coming from lua).
 */
async function redisTripsPerRequest(ports: number[], accounts: BenchDevice[], requests = 50): Promise<{ roundTrips: number; inScripts: number } | undefined> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    const monitor = await redis.monitor();
    let sent = 0;
    let inScripts = 0;
    monitor.on('monitor', (_time: string, _args: string[], source: string) => {
      if (source === 'lua') inScripts++;
      else sent++;
    });
    try {
      for (let i = 0; i < requests; i++) {
        const account = accounts[i % accounts.length]!;
        await expectStatus(200, 'GET /me', clientFor(ports[i % ports.length]!).as(account.device, 'GET', ME_PATH));
      }
      // MONITOR's lines may arrive after the last answer.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      monitor.disconnect();
    }
    return { roundTrips: sent / requests, inScripts: inScripts / requests };
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------

pin(process.pid, LOAD_CORE);
const info = { ...machine(), postgres: kind === 'postgres' || selected.has('nodes') ? await postgresVersion() : undefined, sqliteFsyncCommitsPerSecond: Math.round(fsyncRate()) };
console.log(`# VID benchmark (${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}${quick ? ', quick' : ''})\n`);
console.log(`machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGb} GB, ${info.kernel}, Node ${info.node}${info.postgres ? `, PostgreSQL ${info.postgres}` : ''}`);
console.log(`pinning: ${info.pinning}; load average at start ${info.loadAverageAtStart.join(' ')}`);
console.log(`runs: ${REPS} × ${DURATION} s (+${WARMUP} s warm-up) per scenario, ${CONNECTIONS} connections, medians reported`);
if (info.loadAverageAtStart[0]! > 0.5 * info.cores) console.log(`warning: the machine is busy (load ${info.loadAverageAtStart[0]}); other processes distort every figure`);

log('building (npm run build)');
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');

const generator = new Generator();
await generator.start();
const results: Record<string, Measured> = {};
const memory: Record<string, { idle: number; peak: number }> = {};
const extraRows: Array<[string, string]> = [];
const profiles: Record<string, string> = {};
let signalRows: Array<[string, string]> | undefined;
let signalNotes: string[] = [];
let signalMetrics: Record<string, number> | undefined;
let fanout: BenchResult | undefined;
let scale: ScaleResult | undefined;
let owners: OwnersResult | undefined;
let day: DayResult | undefined;
let regions: RegionsResult | undefined;
/** l: per repetition, the batch's accounts purged and the seconds from marking them due to the last purge. */
const purgeRuns: Array<{ purged: number; seconds: number }> = [];
let redisCost: { commandsPerRequest: number; cpuMsPerRequest: number; roundTripsPerRequest?: number; scriptCommandsPerRequest?: number } | undefined;
const cleanups: Array<() => Promise<void>> = [];

async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch((error) => console.error('cleanup:', error));
}
process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));

try {
  // a, b, c: servers up together; each repetition runs a, b, c in turn, so drift over the run
  // (thermal, other load) touches every scenario alike.
  const abc = ['limit', 'me', 'metrics', 'peer', 'peer2', 'peer2cache'].filter((s) => selected.has(s));
  if (abc.length) {
    const keys = Array.from({ length: DEVICES }, newDeviceKey);
    const servers: Record<string, ServerProcess> = {};
    let meDevices: BenchDevice[] = [];
    let peerTokens: string[] = [];
    const limitPort = await freePort();
    servers.limit = new ServerProcess('limit', tsx('./servers/limit.ts'), { PORT: String(limitPort) }, limitPort);
    await servers.limit.start(async () => false);
    cleanups.push(() => servers.limit!.stop());
    let meDatabase: BenchDatabase | undefined;
    if (selected.has('me')) {
      meDatabase = await createDatabase(kind);
      cleanups.push(() => meDatabase!.drop());
      servers.me = await startVid('vid', meDatabase);
      cleanups.push(() => servers.me!.stop());
      log(`signing up ${DEVICES} accounts on the service (${kind})`);
      meDevices = await signUpDevices(servers.me.port, DEVICES, 'benchme');
      await new Promise((resolve) => setTimeout(resolve, 500));
      memory.me = { idle: servers.me.memory()?.rss ?? Number.NaN, peak: 0 };
    }
    // b+metrics: the same service and setup as b, on its own database, with metrics on.
    let metricsDevices: BenchDevice[] = [];
    let metricsDatabase: BenchDatabase | undefined;
    let scrapeUrl = '';
    let scraper: ReturnType<typeof scrapeWhileRunning> | undefined;
    const scrapes: Array<ReturnType<ReturnType<typeof scrapeWhileRunning>['stop']>> = [];
    if (selected.has('metrics')) {
      metricsDatabase = await createDatabase(kind);
      cleanups.push(() => metricsDatabase!.drop());
      const started = await startVidWithMetrics('vid-metrics', metricsDatabase);
      servers.metrics = started.server;
      scrapeUrl = started.scrapeUrl;
      cleanups.push(() => servers.metrics!.stop());
      log(`signing up ${DEVICES} accounts on the service with METRICS_PORT set (${kind})`);
      metricsDevices = await signUpDevices(servers.metrics.port, DEVICES, 'benchmetrics');
    }
    if (selected.has('peer')) {
      const port = await freePort();
      servers.peer = new ServerProcess('peer', tsx('./servers/peer.ts'), { PORT: String(port), NODE_ENV: 'production', BENCH_JKTS: keys.map((k) => new ProofSigner(k).jkt).join(',') }, port);
      await servers.peer.start(async () => false);
      cleanups.push(() => servers.peer!.stop());
      peerTokens = JSON.parse(servers.peer.line('TOKENS ') ?? '[]') as string[];
    }
    // c2: better-auth as its docs set it up (bench/servers/better-auth.ts), with and without its cookie cache.
    const peerCookies: Record<string, string> = {};
    for (const [name, cache] of [['peer2', false], ['peer2cache', true]] as const) {
      if (!selected.has(name)) continue;
      const port = await freePort();
      servers[name] = new ServerProcess(name, tsx('./servers/better-auth.ts'), { PORT: String(port), NODE_ENV: 'production', ...(cache ? { BENCH_COOKIE_CACHE: '1' } : {}) }, port);
      await servers[name].start(async () => false);
      cleanups.push(() => servers[name]!.stop());
      peerCookies[name] = servers[name].line('COOKIE ') ?? '';
      if (!peerCookies[name]) throw new Error(`${name}: better-auth printed no session cookie`);
    }
    const reps: Record<string, Array<JobResult & { serverCpu: number }>> = { limit: [], me: [], metrics: [], peer: [], peer2: [], peer2cache: [] };
    const expected: Record<string, number> = { limit: 8000, me: 4000, metrics: 4000, peer: 1500, peer2: 500, peer2cache: 1000 };
    for (let rep = 1; rep <= REPS; rep++) {
      for (const name of abc) {
        const server = servers[name]!;
        const target = [{ host: '127.0.0.1', port: server.port }];
        const job =
          name === 'limit'
            ? getJob(target, (meDevices.length ? meDevices.map((d) => ({ key: d.key, accessToken: d.device.tokens.access_token })) : keys.map((key) => ({ key, accessToken: 'at-limit' }))), expected.limit!)
            : name === 'me' || name === 'metrics'
              ? getJob(target, (name === 'me' ? meDevices : metricsDevices).map((d) => ({ key: d.key, accessToken: d.device.tokens.access_token })), expected[name]!)
              : name === 'peer2' || name === 'peer2cache'
                ? getJob(target, [{ headers: { cookie: peerCookies[name]! } }], expected[name]!, `localhost:${server.port}`, '/api/auth/get-session', `http://localhost:${server.port}/api/auth/get-session`)
                : getJob(target, keys.map((key, i) => ({ key, accessToken: peerTokens[i]! })), expected.peer!, `localhost:${server.port}`, '/me', `http://localhost:${server.port}/me`);
        const cost = costWindow('b', name === 'me' ? meDatabase : undefined);
        const hooks =
          name === 'me'
            ? {
                start: () => {
                  server.startSampling();
                  // PostgreSQL's backends for the service's pool exist by now (the warm-up opened them).
                  void meDatabase!.pinBackends();
                  cost.start();
                },
                end: () => (memory.me!.peak = Math.max(memory.me!.peak, server.stopSampling())),
              }
            : name === 'metrics'
              ? {
                  start: () => {
                    scraper = scrapeWhileRunning(scrapeUrl);
                    void metricsDatabase!.pinBackends();
                  },
                  end: () => void scrapes.push(scraper!.stop()),
                }
              : {};
        // On PostgreSQL the service also waits for the database, so there the busy rule is for a and c only.
        const result = await measureBusy(name, `${name} ${rep}/${REPS}`, job, server, hooks, kind === 'sqlite' || (name !== 'me' && name !== 'metrics'));
        if (name === 'me') await cost.finish(result.steps[0]!.ok);
        reps[name]!.push(result);
        expected[name] = Math.max(result.steps[0]!.rate, 100) * 1.1;
        logRun(`${name} ${rep}/${REPS}`, result);
      }
    }
    // b+metrics side by side: both servers on core 0 at once, half the connections each, so the
    // kernel shares the core between them and both see the same moment's machine speed (this
    // host's speed moves by 10-20% between runs of 10 s, more than the 3% being measured). The
    // ratio of their throughputs is then the ratio of their CPU per request.
    if (selected.has('metrics') && servers.me && servers.metrics) {
      const devices: GetDevice[] = [];
      for (let i = 0; i < Math.min(meDevices.length, metricsDevices.length); i++) {
        for (const d of [meDevices[i]!, metricsDevices[i]!]) devices.push({ key: d.key, accessToken: d.device.tokens.access_token });
      }
      const pair = [servers.me, servers.metrics].map((s) => ({ host: '127.0.0.1', port: s.port }));
      for (let rep = 1; rep <= REPS; rep++) {
        const job: Job = { ...getJob(pair, devices, expected.me!), connections: CONNECTIONS - (CONNECTIONS % 2), splitByTarget: true };
        const result = await measure(generator, job, [servers.me, servers.metrics], { start: () => (scraper = scrapeWhileRunning(scrapeUrl)), end: () => void scrapes.push(scraper!.stop()) });
        const [off, on] = result.steps as [JobResult['steps'][0], JobResult['steps'][0]];
        sideBySide.push(on.rate / off.rate);
        log(`metrics side by side ${rep}/${REPS}: off ${off.rate.toFixed(0)} req/s, on ${on.rate.toFixed(0)} req/s (${(on.rate / off.rate).toFixed(3)}x)${off.failed + on.failed ? `, ${off.failed + on.failed} failed: ${[...off.samples, ...on.samples][0]}` : ''}`);
      }
    }
    if (reps.limit!.length) results.limit = summariseRuns('a', 'the limit: node:http + one ES256 verify', 'req/s', reps.limit!);
    if (reps.me!.length) results.me = summariseRuns('b', `GET /me, DPoP-bound token (${kind})`, 'req/s', reps.me!);
    if (reps.metrics!.length) {
      results.metrics = { ...summariseRuns('b+metrics', `GET /me with metrics on (METRICS_PORT, scraped every 5 s, ${kind})`, 'req/s', reps.metrics!), baseline: 'me' };
      // Proof that metrics were on: every run was scraped, and the hook counted its requests.
      const seen = await Promise.all(scrapes);
      const failed = seen.reduce((sum, s) => sum + s.failed, 0);
      const counted = seen.at(-1)?.requestsCounted ?? 0;
      results.metrics.notes.push(failed || !counted ? `metrics not confirmed: ${failed} scrapes failed, ${counted} GET /me counted` : `${seen.reduce((sum, s) => sum + s.scrapes, 0)} scrapes during the runs; the last one counted ${fmtCount(counted)} GET /me`);
      if (sideBySide.length) results.metrics.notes.push(`side by side on one core (metrics off and on at once, ${sideBySide.length} × ${DURATION} s): on/off ${sideBySide.map((r) => r.toFixed(3)).join(', ')}, median ${median(sideBySide).toFixed(3)}x`);
    }
    if (reps.peer!.length) results.peer = summariseRuns('c', 'the peer: oidc-provider userinfo, DPoP', 'req/s', reps.peer!);
    if (reps.peer2!.length) results.peer2 = summariseRuns('c2', 'better-auth get-session, cookie (default options, SQLite)', 'req/s', reps.peer2!);
    if (reps.peer2cache!.length) results.peer2cache = summariseRuns('c2+cache', 'better-auth get-session with session.cookieCache on', 'req/s', reps.peer2cache!);
    await cleanup();
  }

  // h, i, j: one card read privately (the preview, DPoP), publicly (no authentication) and as a
  // subscriber's contact (DPoP), each answered in full (200) and revalidated (If-None-Match: 304),
  // on accounts set up as people use profiles. a2, i's baseline, runs alongside; each repetition
  // runs them all in turn, like a, b, c. Each measured run and the scenario name that selects it.
  const CARD_RUNS = { static: 'public', preview: 'preview', preview304: 'preview', public: 'public', public304: 'public', contact: 'contact', contact304: 'contact' };
  const cardRuns = Object.entries(CARD_RUNS).filter(([, scenario]) => selected.has(scenario)).map(([run]) => run);
  if (cardRuns.length) {
    const database = await createDatabase(kind);
    cleanups.push(() => database.drop());
    const vid = await startVid('vid-cards', database);
    cleanups.push(() => vid.stop());
    let staticServer: ServerProcess | undefined;
    if (cardRuns.includes('static')) {
      const port = await freePort();
      staticServer = new ServerProcess('static', tsx('./servers/static.ts'), { PORT: String(port) }, port);
      await staticServer.start(async () => false);
      cleanups.push(() => staticServer!.stop());
    }
    log(`signing up ${DEVICES} accounts with fields and profiles (${kind})`);
    const accounts = await signUpDevices(vid.port, DEVICES, 'benchcard');
    const cards = await setUpCards(vid.port, accounts);
    // j: each account also subscribes to the next one's previewed profile, approved through the API.
    const contacts = selected.has('contact') ? await setUpContacts(vid.port, accounts, cards) : [];
    const signedIn = (i: number) => ({ key: accounts[i]!.key, accessToken: accounts[i]!.device.tokens.access_token });
    const devices: Record<string, GetDevice[]> = {
      // The very requests of i, so a2 and i differ only by what the server does with them.
      static: cards.map((c) => ({ path: c.publicPath })),
      preview: cards.map((c, i) => ({ ...signedIn(i), path: c.previewPath })),
      preview304: cards.map((c, i) => ({ ...signedIn(i), path: c.previewPath, headers: { 'If-None-Match': c.previewEtag } })),
      public: cards.map((c) => ({ path: c.publicPath })),
      public304: cards.map((c) => ({ path: c.publicPath, headers: { 'If-None-Match': c.publicEtag } })),
      contact: contacts.map((c, i) => ({ ...signedIn(i), path: c.cardPath })),
      contact304: contacts.map((c, i) => ({ ...signedIn(i), path: c.cardPath, headers: { 'If-None-Match': c.cardEtag } })),
    };
    const reps: Record<string, Array<JobResult & { serverCpu: number }>> = Object.fromEntries(cardRuns.map((run) => [run, []]));
    const expected: Record<string, number> = { static: 15000, preview: 4000, preview304: 4000, public: 6000, public304: 6000, contact: 4000, contact304: 4000 };
    for (let rep = 1; rep <= REPS; rep++) {
      for (const run of cardRuns) {
        const server = run === 'static' ? staticServer! : vid;
        // A 304 run counts only 304s: a 200 there would mean the ETag no longer matches.
        const job: Job = { ...getJob([{ host: '127.0.0.1', port: server.port }], devices[run]!, expected[run]!), expectStatus: run.endsWith('304') ? 304 : undefined };
        const hooks = server === vid ? { start: () => void database.pinBackends() } : {};
        const result = await measureBusy(run, `${run} ${rep}/${REPS}`, job, server, hooks, kind === 'sqlite' || server !== vid);
        reps[run]!.push(result);
        expected[run] = Math.max(result.steps[0]!.rate, 100) * 1.1;
        logRun(`${run} ${rep}/${REPS}`, result);
      }
    }
    if (selected.has('photos')) {
      const photos = await measurePhotos(vid, accounts, cards, contacts, log);
      extraRows.push([
        `p, POST /me/photos of a 12-megapixel JPEG (${(photos.bytes / 1e6).toFixed(1)} MB)`,
        `p50 ${photos.uploadP50.toFixed(0)} ms one at a time; 8 at once in ${photos.eightMs.toFixed(0)} ms; RSS ${(photos.idle / MB).toFixed(0)} MB before, ${(photos.peak / MB).toFixed(0)} MB at its highest`,
      ]);
      const photoDevices = photos.withPhoto.map((c, i) => ({ ...signedIn(i), path: c.cardPath }));
      const photoReps: Array<JobResult & { serverCpu: number }> = [];
      let photoExpected = 4000;
      for (let rep = 1; rep <= REPS; rep++) {
        const result = await measureBusy('contactPhoto', `contactPhoto ${rep}/${REPS}`, getJob([{ host: '127.0.0.1', port: vid.port }], photoDevices, photoExpected), vid, {}, true);
        photoReps.push(result);
        photoExpected = Math.max(result.steps[0]!.rate, 100) * 1.1;
        logRun(`contactPhoto ${rep}/${REPS}`, result);
      }
      results.contactPhoto = summariseRuns('jp', 'j once the card shows a photo (its 64 px thumbnail inline) (sqlite)', 'req/s', photoReps);
    }
    const labels: Record<string, [string, string]> = {
      static: ['a2', 'bare node:http, a fixed JSON body, no crypto'],
      preview: ['h', `GET /profiles/{id}/preview, DPoP-bound token (${kind})`],
      preview304: ['h304', `h with If-None-Match: 304 (${kind})`],
      public: ['i', `GET /public/{username}, no authentication (${kind})`],
      public304: ['i304', `i with If-None-Match: 304 (${kind})`],
      contact: ['j', `GET /contacts/{id}/card, subscriber, DPoP-bound token (${kind})`],
      contact304: ['j304', `j with If-None-Match: 304 (${kind})`],
    };
    for (const run of cardRuns) {
      const [id, label] = labels[run]!;
      results[run] = { ...summariseRuns(id, label, 'req/s', reps[run]!), baseline: run.startsWith('public') ? 'static' : undefined };
    }
    await cleanup();
  }

  // m: the address book (CardDAV, Basic auth). First the memory of a 5,000-card first sync with
  // every vCard (RSS idle, then sampled through three of them); then m0 and m1, each repetition
  // running both in turn: a 1,000-contact reader's sync with nothing changed since its token,
  // and from the token before one card changed (one card answered, with its vCard).
  if (selected.has('dav')) {
    const database = await createDatabase('sqlite');
    cleanups.push(() => database.drop());
    const server = await startVid('vid-dav', database);
    cleanups.push(() => server.stop());
    const dav = await setUpAddressBooks(server.port, database.env.SQLITE_PATH!, log);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = server.memory()?.rss ?? Number.NaN;
    server.startSampling();
    const firstSyncs: Array<Awaited<ReturnType<typeof dav.initial>>> = [];
    for (let i = 0; i < 3; i++) firstSyncs.push(await dav.initial());
    memory.dav = { idle, peak: server.stopSampling() };
    const first = firstSyncs.at(-1)!;
    if (first.status !== 207 || first.members !== DAV_LARGE) throw new Error(`the first sync of ${DAV_LARGE} cards answered ${first.status} with ${first.members}`);
    extraRows.push([`m, first sync of ${fmtCount(DAV_LARGE)} cards with their vCards`, `${(first.bytes / MB).toFixed(1)} MB in ${median(firstSyncs.map((r) => r.ms)).toFixed(0)} ms (median of ${firstSyncs.length}); RSS ${(idle / MB).toFixed(0)} MB idle, ${(memory.dav.peak / MB).toFixed(0)} MB at its highest`]);
    const runs = { quiet: dav.quiet, oneChange: dav.oneChange };
    const reps: Record<string, Array<JobResult & { serverCpu: number }>> = { quiet: [], oneChange: [] };
    const expected: Record<string, number> = { quiet: 2000, oneChange: 1500 };
    for (let rep = 1; rep <= REPS; rep++) {
      for (const [run, device] of Object.entries(runs)) {
        const job = getJob([{ host: '127.0.0.1', port: server.port }], [device], expected[run]!, HOST, device.path!);
        const result = await measureBusy(`dav-${run}`, `dav ${run} ${rep}/${REPS}`, job, server, {}, true);
        reps[run]!.push(result);
        expected[run] = Math.max(result.steps[0]!.rate, 100) * 1.1;
        logRun(`dav ${run} ${rep}/${REPS}`, result);
      }
    }
    results.davQuiet = summariseRuns('m0', `CardDAV sync-collection, ${fmtCount(DAV_SMALL)} contacts, nothing changed (sqlite)`, 'req/s', reps.quiet!);
    results.davOne = summariseRuns('m1', `CardDAV sync-collection, ${fmtCount(DAV_SMALL)} contacts, one card changed (sqlite)`, 'req/s', reps.oneChange!);
    await cleanup();
  }

  // d: passkey logins. Each connection holds one account's authenticator and logs in again and again.
  if (selected.has('login')) {
    const database = await createDatabase(kind);
    cleanups.push(() => database.drop());
    const server = await startVid('vid-login', database);
    cleanups.push(() => server.stop());
    log(`signing up ${DEVICES} accounts for logins`);
    const accounts = await signUpDevices(server.port, DEVICES, 'benchlogin');
    await new Promise((resolve) => setTimeout(resolve, 500));
    memory.login = { idle: server.memory()?.rss ?? Number.NaN, peak: 0 };
    let devices: Job['devices'] = accounts.map((a) => ({ key: a.key, credential: a.credential }));
    const reps: Array<JobResult & { serverCpu: number }> = [];
    let expectedRate = 400;
    for (let rep = 1; rep <= REPS; rep++) {
      const job: Job = {
        kind: 'login',
        targets: [{ host: '127.0.0.1', port: server.port }],
        connections: CONNECTIONS,
        warmupSeconds: WARMUP,
        durationSeconds: DURATION,
        host: HOST,
        path: '/api/v1/auth/login/begin',
        htu: `${ORIGIN}/api/v1/auth/login/begin`,
        finishPath: '/api/v1/auth/login/finish',
        finishHtu: `${ORIGIN}/api/v1/auth/login/finish`,
        origin: ORIGIN,
        expectedRate,
        devices: devices as never,
      };
      const cost = costWindow('d', database);
      const result = await measure(generator, job, [server], {
        start: () => {
          server.startSampling();
          void database.pinBackends();
          cost.start();
        },
        end: () => (memory.login!.peak = Math.max(memory.login!.peak, server.stopSampling())),
      });
      // Per login: its begin and its finish.
      await cost.finish(result.steps[1]!.ok);
      const spent = databaseCosts.d;
      if (spent) log(`login ${rep}/${REPS}, database per login: ${spent.statements ? `${spent.statementsPerRequest.toFixed(1)} round trips (${spent.distinctStatements} distinct statements), ${spent.execMsPerRequest.toFixed(3)} ms executing, ` : ''}${spent.transactionsPerRequest.toFixed(1)} transactions, backend CPU ${spent.cpuMsPerRequest.toFixed(3)} ms`);
      devices = result.devices;
      reps.push(result);
      expectedRate = Math.max(result.steps[1]!.rate, 50) * 1.1;
      log(`login ${rep}/${REPS}: ${result.steps[1]!.rate.toFixed(0)} logins/s (begin p99 ${result.steps[0]!.p99.toFixed(1)} ms, finish p99 ${result.steps[1]!.p99.toFixed(1)} ms), server CPU ${result.serverCpu.toFixed(0)}%`);
    }
    results.login = summariseRuns('d', `passkey login, begin + finish (${kind})`, 'logins/s', reps, 1);
    await cleanup();
  }

  // e: token renewal. Each connection renews one session's tokens with the refresh token it got last.
  if (selected.has('renew')) {
    const database = await createDatabase(kind);
    cleanups.push(() => database.drop());
    const server = await startVid('vid-renew', database);
    cleanups.push(() => server.stop());
    log(`signing up ${DEVICES} accounts for renewals`);
    const accounts = await signUpDevices(server.port, DEVICES, 'benchrenew');
    let devices: Job['devices'] = accounts.map((a) => ({ key: a.key, refreshToken: a.device.tokens.refresh_token }));
    const reps: Array<JobResult & { serverCpu: number }> = [];
    let expectedRate = 1000;
    for (let rep = 1; rep <= REPS; rep++) {
      const path = '/api/v1/auth/token/renew';
      const job: Job = { kind: 'renew', targets: [{ host: '127.0.0.1', port: server.port }], connections: CONNECTIONS, warmupSeconds: WARMUP, durationSeconds: DURATION, host: HOST, path, htu: ORIGIN + path, expectedRate, devices: devices as never };
      const cost = costWindow('e', database);
      const result = await measure(generator, job, [server], {
        start: () => {
          void database.pinBackends();
          cost.start();
        },
      });
      await cost.finish(result.steps[0]!.ok);
      devices = result.devices;
      reps.push(result);
      expectedRate = Math.max(result.steps[0]!.rate, 50) * 1.1;
      log(`renew ${rep}/${REPS}: ${result.steps[0]!.rate.toFixed(0)} renewals/s, p99 ${result.steps[0]!.p99.toFixed(1)} ms, server CPU ${result.serverCpu.toFixed(0)}%`);
    }
    results.renew = summariseRuns('e', `token renew (${kind})`, 'renewals/s', reps);
    await cleanup();
  }

  // l: GET /me while the node purges PURGE_ACCOUNTS accounts whose grace is over (PRODUCT §8),
  // against GET /me on the same server with nothing to purge, runs alternating. The accounts are
  // signed up through the API and marked due in the database as the window opens (the grace is
  // days long); the node's own maintenance, every second here, finds and purges them.
  if (selected.has('purge')) {
    const database = await createDatabase('sqlite');
    cleanups.push(() => database.drop());
    const server = await startVid('vid-purge', database, { env: { MAINTENANCE_INTERVAL_S: '1' } });
    cleanups.push(() => server.stop());
    log(`signing up ${DEVICES} accounts for the load and ${fmtCount(PURGE_ACCOUNTS * REPS)} to purge`);
    const load = await signUpDevices(server.port, DEVICES, 'benchpurgeload');
    const doomed = await signUpDevices(server.port, PURGE_ACCOUNTS * REPS, 'benchpurged');
    const sqlite = new SQLite(database.env.SQLITE_PATH!);
    sqlite.pragma('busy_timeout = 10000');
    cleanups.push(async () => void sqlite.close());
    const markDue = sqlite.prepare('update accounts set deleted_at = ?, purge_at = ? where id in (select value from json_each(?))');
    const progress = sqlite.prepare('select count(*) as purged, max(purged_at) as last from accounts where purged_at is not null and id in (select value from json_each(?))');
    const devices = load.map((a) => ({ key: a.key, accessToken: a.device.tokens.access_token }));
    const target = [{ host: '127.0.0.1', port: server.port }];
    const quiet: Array<JobResult & { serverCpu: number }> = [];
    const purging: Array<JobResult & { serverCpu: number }> = [];
    let expected = 3000;
    for (let rep = 1; rep <= REPS; rep++) {
      const batch = JSON.stringify(doomed.slice((rep - 1) * PURGE_ACCOUNTS, rep * PURGE_ACCOUNTS).map((a) => a.device.accountId));
      const without = await measure(generator, getJob(target, devices, expected), [server]);
      quiet.push(without);
      let markedAt = 0;
      const during = await measure(generator, getJob(target, devices, expected), [server], {
        start: () => {
          markedAt = Date.now();
          markDue.run(markedAt - 86_400_000, markedAt, batch);
        },
      });
      purging.push(during);
      // Every account of the batch purged, and how long the node took (purged_at is its clock).
      let done = progress.get(batch) as { purged: number; last: number | null };
      for (let waited = 0; done.purged < PURGE_ACCOUNTS && waited < 60_000; waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        done = progress.get(batch) as { purged: number; last: number | null };
      }
      purgeRuns.push({ purged: done.purged, seconds: done.last === null ? Number.NaN : (done.last - markedAt) / 1000 });
      expected = without.steps[0]!.rate * 1.1;
      log(`purge ${rep}/${REPS}: GET /me p99 ${without.steps[0]!.p99.toFixed(1)} ms without, ${during.steps[0]!.p99.toFixed(1)} ms while purging; ${done.purged} purged in ${purgeRuns.at(-1)!.seconds.toFixed(1)} s`);
    }
    results.purgeQuiet = summariseRuns('l0', 'GET /me, nothing to purge (l\'s baseline, sqlite)', 'req/s', quiet);
    results.purge = { ...summariseRuns('l', `GET /me while the node purges ${fmtCount(PURGE_ACCOUNTS)} accounts (sqlite)`, 'req/s', purging), baseline: 'purgeQuiet' };
    await cleanup();
  }

  // b on PostgreSQL + Redis, one node then two nodes behind round-robin connections (an L4
  // balancer). Nodes are pinned to cores 0 and 1; the generator, PostgreSQL and Redis float.
  if (selected.has('nodes')) {
    if (!(await redisReachable())) {
      extraRows.push(['two nodes', `skipped: Redis is not reachable at ${REDIS_URL}`]);
    } else {
      const database = await createDatabase('postgres');
      cleanups.push(() => database.drop());
      const env = { REDIS_URL };
      const first = await startVid('vid-node-1', database, { env, core: 0 });
      cleanups.push(() => first.stop());
      const second = await startVid('vid-node-2', database, { env, core: 1 });
      cleanups.push(() => second.stop());
      log(`signing up ${DEVICES} accounts for the two-node runs`);
      const accounts = await signUpDevices(first.port, DEVICES, 'benchnodes');
      const devices = accounts.map((a) => ({ key: a.key, accessToken: a.device.tokens.access_token }));
      pin(generator.pid, '0,1');
      const one: Array<JobResult & { serverCpu: number }> = [];
      const two: Array<JobResult & { serverCpu: number }> = [];
      let expected = 3000;
      for (let rep = 1; rep <= REPS; rep++) {
        const single = await measure(generator, getJob([{ host: '127.0.0.1', port: first.port }], devices, expected), [first]);
        one.push(single);
        const redisBefore = await redisCountersHere();
        const both = await measure(generator, getJob([{ host: '127.0.0.1', port: first.port }, { host: '127.0.0.1', port: second.port }], devices, single.steps[0]!.rate * 2), [first, second]);
        const redisAfter = await redisCountersHere();
        two.push(both);
        // What each request asked of Redis (rate-limit and quota counters, the replay cache): commands and CPU.
        // The counters also include the warm-up, so the requests are counted over it too.
        if (redisBefore && redisAfter) {
          const requests = both.steps[0]!.ok * ((DURATION + WARMUP) / DURATION);
          redisCost = { commandsPerRequest: (redisAfter.commands - redisBefore.commands) / requests, cpuMsPerRequest: ((redisAfter.cpuSeconds - redisBefore.cpuSeconds) * 1000) / requests };
        }
        expected = single.steps[0]!.rate * 1.1;
        log(`nodes ${rep}/${REPS}: one node ${single.steps[0]!.rate.toFixed(0)} req/s, two nodes ${both.steps[0]!.rate.toFixed(0)} req/s`);
      }
      pin(generator.pid, LOAD_CORE);
      const trips = await redisTripsPerRequest([first.port, second.port], accounts);
      if (redisCost && trips) redisCost = { ...redisCost, roundTripsPerRequest: trips.roundTrips, scriptCommandsPerRequest: trips.inScripts };
      if (trips) log(`nodes: per GET /me, ${trips.roundTrips.toFixed(2)} Redis round trips, ${trips.inScripts.toFixed(2)} commands inside scripts (MONITOR)`);
      results.node1 = summariseRuns('b1', 'GET /me, one node, PostgreSQL + Redis', 'req/s', one);
      results.node2 = summariseRuns('b2', 'GET /me, two nodes, PostgreSQL + Redis', 'req/s', two);
      await cleanup();
    }
  }

  // --profile: one more run of b, b+metrics, d and e each with the service under node --cpu-prof.
  if (flags.has('--profile')) {
    for (const name of ['me', 'metrics', 'login', 'renew'].filter((s) => selected.has(s))) {
      const dir = mkdtempSync(join(tmpdir(), 'vid-prof-'));
      const database = await createDatabase(kind);
      const metricsPort = name === 'metrics' ? await freePort() : undefined;
      const server = await startVid(`vid-prof-${name}`, database, { profileDir: dir, ...(metricsPort ? { env: { METRICS_PORT: String(metricsPort) } } : {}) });
      try {
        const accounts = await signUpDevices(server.port, DEVICES, `benchprof${name}`);
        const target = [{ host: '127.0.0.1', port: server.port }];
        const base = { targets: target, connections: CONNECTIONS, warmupSeconds: WARMUP, durationSeconds: DURATION, host: HOST, expectedRate: (results[name]?.rate ?? 1000) * 0.8 };
        const job: Job =
          name === 'me' || name === 'metrics'
            ? { ...base, kind: 'get', path: ME_PATH, htu: ORIGIN + ME_PATH, devices: accounts.map((a) => ({ key: a.key, accessToken: a.device.tokens.access_token })) }
            : name === 'login'
              ? { ...base, kind: 'login', path: '/api/v1/auth/login/begin', htu: `${ORIGIN}/api/v1/auth/login/begin`, finishPath: '/api/v1/auth/login/finish', finishHtu: `${ORIGIN}/api/v1/auth/login/finish`, origin: ORIGIN, devices: accounts.map((a) => ({ key: a.key, credential: a.credential })) }
              : { ...base, kind: 'renew', path: '/api/v1/auth/token/renew', htu: `${ORIGIN}/api/v1/auth/token/renew`, devices: accounts.map((a) => ({ key: a.key, refreshToken: a.device.tokens.refresh_token })) };
        log(`profiling ${name} (node --cpu-prof)`);
        const scraping = metricsPort ? scrapeWhileRunning(`http://127.0.0.1:${metricsPort}/metrics`) : undefined;
        await generator.run(job);
        await scraping?.stop();
      } finally {
        await server.stop();
        await database.drop();
      }
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
        const text = formatSummary(summarise(profile, 20, ['verify', 'authenticate', 'findByAccessHash', 'remember', 'executeQuery', 'hit', 'loginFinish', 'loginBegin', 'verifyAuthenticationResponse', 'renew', 'transaction'], DURATION * 1000));
        profiles[name] = text;
        mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
        writeFileSync(join(ROOT, 'bench-results', `profile-${name}-${kind}.cpuprofile`), JSON.stringify(profile));
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // f: signal latency (its own server process, SQLite).
  if (selected.has('signals')) {
    console.log(`\n## signals: ${signalsScenario.description}\n`);
    const result = await signalsScenario.run(log);
    signalRows = result.rows;
    signalMetrics = result.metrics;
    signalNotes = result.notes ?? [];
  }

  // k: card fan-out latency (its own server and database, SQLite).
  if (selected.has('fanout')) {
    const scenario = fanoutScenario(FANOUT_EDITS);
    console.log(`\n## fanout: ${scenario.description}\n`);
    fanout = await scenario.run(log);
  }

  // s: one owner's audience grown with SQL (its own server and database, SQLite or PostgreSQL).
  if (selected.has('scale')) {
    const scenario = scaleScenario(kind, SCALE_SIZES, SCALE_EDITS, SCALE_LIVE);
    console.log(`\n## scale: ${scenario.description}\n`);
    scale = await scenario.run(log);
  }

  // o: many owners editing at once, with the card-change log and without it (its own server and database, PostgreSQL).
  if (selected.has('owners')) {
    if (kind !== 'postgres') {
      console.log('\n## owners: PostgreSQL only (npm run bench -- --pg owners); skipped on SQLite\n');
      extraRows.push(['o, owners editing at once', 'skipped: PostgreSQL only (--pg)']);
    } else {
      const scenario = ownersScenario({
        owners: OWNERS,
        inFlight: OWNERS_IN_FLIGHT,
        reps: REPS,
        warmupSeconds: WARMUP,
        durationSeconds: DURATION,
        measure: (job, server, hooks) => measure(generator, job, [server], hooks),
      });
      console.log(`\n## owners: ${scenario.description}\n`);
      owners = await scenario.run(log);
      const label = (what: string) => `${fmtCount(owners!.owners)} owners editing at once, ${fmtCount(owners!.inFlight)} in flight, ${what} (postgres)`;
      results.owners = { ...summariseRuns('o', label('with the card-change log'), 'edits/s', owners.repetitions.filter((r) => r.mode === 'log')), baseline: 'ownersLimit' };
      results.ownersLimit = summariseRuns('o0', label('without the card-change log: the limit'), 'edits/s', owners.repetitions.filter((r) => r.mode === 'without'));
    }
  }

  // r: delivery across two regions, against the same edits fanned out locally (two servers, a database each).
  if (selected.has('regions')) {
    const scenario = regionsScenario(kind, REGIONS_SIZES, REGIONS_EDITS);
    console.log(`\n## regions: ${scenario.description}\n`);
    regions = await scenario.run(log);
  }

  // day: a population's busiest hour (its own servers and database; two nodes + Redis on PostgreSQL).
  if (selected.has('day')) {
    if (kind === 'postgres' && !(await redisReachable())) {
      extraRows.push(['day', `skipped: Redis is not reachable at ${REDIS_URL}`]);
    } else {
      const scenario = dayScenario({ kind, quick, warmupSeconds: WARMUP, durationSeconds: DURATION, redisUrl: REDIS_URL });
      console.log(`\n## day: ${scenario.description}\n`);
      day = await scenario.run(log);
    }
  }
} finally {
  await cleanup();
  generator.stop();
}

// ---------------------------------------------------------------------------------------------
// The table.

const limit = results.limit;
const ratio = (m: Measured | undefined, to = limit) => (m && to ? m.rate / to.rate : Number.NaN);
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–');
const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : '–');
const mb = (bytes: number) => (Number.isFinite(bytes) && bytes > 0 ? `${(bytes / MB).toFixed(0)} MB` : '–');

interface Target {
  what: string;
  value: string;
  met: boolean | undefined;
}
const targets: Target[] = [];
const check = (what: string, value: number, goal: number, atLeast: boolean, show: (n: number) => string) => {
  const met = Number.isFinite(value) ? (atLeast ? value >= goal : value <= goal) : undefined;
  targets.push({ what, value: show(value), met });
};
if (results.me && limit) {
  if (kind === 'sqlite') {
    check('b ≥ 0.75x the limit', ratio(results.me), 0.75, true, x);
    check('b p99 ≤ 2x the limit\'s p99', results.me.p99 / limit.p99, 2, false, x);
  } else {
    check('b on PostgreSQL ≥ 0.5x the limit', ratio(results.me), 0.5, true, x);
  }
}
if (results.me && results.peer) check('b ≥ 4x the peer c', results.me.rate / results.peer.rate, 4, true, x);
if (results.me && results.peer2) check('b ≥ 6x better-auth c2', results.me.rate / results.peer2.rate, 6, true, x);
if (results.me && results.peer2cache) targets.push({ what: 'b as a multiple of c2 with its cookie cache (reported)', value: x(results.me.rate / results.peer2cache.rate), met: undefined });
if (results.me && results.metrics) {
  // The side-by-side ratio decides (one moment's machine speed for both); the interleaved one is reported.
  targets.push({ what: 'b+metrics / b, runs interleaved (reported)', value: x(ratio(results.metrics, results.me)), met: undefined });
  if (sideBySide.length) check('b+metrics ≥ 0.97x b side by side (metrics cost ≤ 3%)', median(sideBySide), 0.97, true, x);
}
// The card: its ratios are set on SQLite; a 304 answers less than a 200 on any database, so it must be faster.
const { static: bareHttp, preview, preview304, public: publicCard, public304: publicCard304 } = results;
if (preview && limit && kind === 'sqlite') check('h ≥ 0.55x the limit', ratio(preview), 0.55, true, x);
if (preview && preview304) check('h304 faster than h (304 vs 200)', ratio(preview304, preview), 1, true, x);
if (publicCard && bareHttp && kind === 'sqlite') check('i ≥ 0.35x a2, bare node:http', ratio(publicCard, bareHttp), 0.35, true, x);
if (publicCard && publicCard304) check('i304 faster than i (304 vs 200)', ratio(publicCard304, publicCard), 1, true, x);
const { contact, contact304 } = results;
if (contact && limit && kind === 'sqlite') check('j ≥ 0.55x the limit', ratio(contact), 0.55, true, x);
if (contact && contact304) check('j304 faster than j (304 vs 200)', ratio(contact304, contact), 1, true, x);
if (contact && results.contactPhoto) check('jp ≥ 0.8x j (a card with a photo costs little more)', ratio(results.contactPhoto, contact), 0.8, true, x);
const ms = (n: number) => `${fmt(n, 1)} ms`;
if (fanout?.metrics) {
  const k = fanout.metrics;
  check('k edit acknowledged p50 ≤ 50 ms', k.ackP50!, 50, false, ms);
  check('k delivery p99 ≤ 500 ms', k.deliveryP99!, 500, false, ms);
  targets.push({ what: 'k every delivery arrives', value: `${fmt(k.delivered!)} / ${fmt(k.expected!)}`, met: k.delivered === k.expected });
}
if (scale?.sizes.length) {
  const db = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const [first, last] = [scale.sizes[0]!, scale.sizes.at(-1)!];
  for (const r of scale.sizes) check(`s edit acknowledged p50 ≤ 20 ms, ${fmtCount(r.followers)} followers (${db})`, r.ackP50, 20, false, ms);
  if (scale.sizes.length > 1) check(`s edit acknowledged p50 flat: ${fmtCount(last.followers)} followers ≤ 1.5x ${fmtCount(first.followers)}`, last.ackP50 / first.ackP50, 1.5, false, x);
  for (const r of scale.sizes) check(`s delivery p99 ≤ 500 ms, ${fmtCount(r.followers)} followers, ${fmtCount(scale.live)} streams`, r.deliveryP99, 500, false, ms);
  for (const r of scale.sizes) targets.push({ what: `s every delivery arrives, ${fmtCount(r.followers)} followers`, value: `${fmtCount(r.delivered)} / ${fmtCount(r.expected)}`, met: r.delivered === r.expected });
  for (const r of scale.sizes) targets.push({ what: `s polls answered, not shed (503), ${fmtCount(r.followers)} followers`, value: `${fmtCount(r.pollChangeShed)} after a change, ${fmtCount(r.pollQuietShed)} with nothing new shed`, met: r.pollChangeShed + r.pollQuietShed === 0 });
  if (kind === 'postgres') {
    for (const r of scale.sizes) {
      const cost = r.pollCost;
      // Without pg_stat_statements the backends' CPU time bounds the execution time from above.
      if (cost?.statements) check(`s poll with nothing new ≤ 1 ms of database time, ${fmtCount(r.followers)} followers`, cost.execMsPerRequest, 1, false, (n) => `${fmt(n, 3)} ms`);
      else targets.push({ what: `s poll with nothing new ≤ 1 ms of database time, ${fmtCount(r.followers)} followers`, value: pollCostCell(cost), met: cost && cost.cpuMsPerRequest <= 1 ? true : undefined });
    }
  }
  for (const r of scale.sizes) targets.push({ what: `s rows one edit writes, ${fmtCount(r.followers)} followers (reported; constant)`, value: `${r.eventsRows} events + ${r.logRows} card_change_log`, met: undefined });
}
if (regions) {
  const { across, local } = regions;
  targets.push({ what: `r every delivery arrives, across and local, ${fmtCount(regions.followers)} streams`, value: `${fmtCount(across.delivered)} / ${fmtCount(across.expected)} and ${fmtCount(local.delivered)} / ${fmtCount(local.expected)}`, met: across.delivered === across.expected && local.delivered === local.expected });
  // Decision 352: one card delivery per region with followers, whatever their number.
  targets.push({ what: 'r one delivery in one request per edit, whatever the followers in the region', value: regions.sizes.map((s) => `${fmtCount(s.followers)}: ${fmt(s.deliveriesPerEdit, 2)} (${fmt(s.requestsPerEdit, 2)})`).join(', '), met: regions.sizes.every((s) => s.deliveriesPerEdit === 1 && s.requestsPerEdit === 1) });
  targets.push({ what: 'r delivery p99 across regions over r0, local (reported)', value: x(across.p99 / local.p99), met: undefined });
}
if (results.owners && results.ownersLimit) check('o ≥ 0.7x o0, its limit without the card-change log (changes/s)', ratio(results.owners, results.ownersLimit), 0.7, true, x);
// The lifecycle's target: a purge does not double the p99 of the requests served meanwhile.
if (results.purge && results.purgeQuiet) {
  check('l GET /me p99 while purging ≤ 2x its p99 without', results.purge.p99 / results.purgeQuiet.p99, 2, false, x);
  const seconds = purgeRuns.map((r) => r.seconds);
  targets.push({ what: `l every account purged, seconds for ${fmtCount(PURGE_ACCOUNTS)} (median)`, value: `${fmtCount(Math.min(...purgeRuns.map((r) => r.purged)))} / ${fmtCount(PURGE_ACCOUNTS)}, ${fmt(median(seconds), 1)} s`, met: purgeRuns.every((r) => r.purged === PURGE_ACCOUNTS) });
}
// The issue sets the login, renewal and memory targets on SQLite; on PostgreSQL they are reported only.
if (results.login && limit && kind === 'sqlite') check('d ≥ 0.12x the limit', ratio(results.login), 0.12, true, x);
if (results.renew && limit) check(kind === 'sqlite' ? 'e ≥ 0.40x the limit' : 'e on PostgreSQL ≥ 0.25x the limit', ratio(results.renew), kind === 'sqlite' ? 0.4 : 0.25, true, x);
for (const [name, label] of [['me', 'b'], ['login', 'd']] as const) {
  if (!memory[name] || kind !== 'sqlite') continue;
  check(`RSS idle ${label} ≤ 100 MB`, memory[name].idle / MB, 100, false, (n) => `${n.toFixed(0)} MB`);
  check(`RSS under load ${label} ≤ 150 MB`, memory[name].peak / MB, 150, false, (n) => `${n.toFixed(0)} MB`);
}

const rows: string[] = [];
rows.push('| | scenario | throughput | ratio to a | p50 | p99 | server CPU | generator CPU |');
rows.push('|---|---|---:|---:|---:|---:|---:|---:|');
// A row with a baseline of its own shows the ratio to it as well: "0.60x (0.35x a2)".
const ratioCell = (m: Measured) => {
  const base = m.baseline ? results[m.baseline] : undefined;
  return m === limit ? '1.00x' : base ? `${limit ? `${x(ratio(m))} ` : ''}(${x(ratio(m, base))} ${base.id})` : x(ratio(m));
};
for (const m of Object.values(results)) {
  rows.push(`| ${m.id} | ${m.label} | ${fmt(m.rate)} ${m.unit} | ${ratioCell(m)} | ${fmt(m.p50, 1)} ms | ${fmt(m.p99, 1)} ms | ${fmt(m.serverCpu)}% | ${fmt(m.generatorCpu)}% |`);
}
if (signalMetrics) {
  rows.push(`| f | signal latency, write → client, ${fmt(signalMetrics.clients!)} SSE clients (SQLite) | – | – | ${fmt(signalMetrics.latencyP50!, 1)} ms | ${fmt(signalMetrics.latencyP99!, 1)} ms | – | – |`);
}
if (fanout?.metrics) {
  const k = fanout.metrics;
  const owner = `owner with ${fmt(k.subscribers!)} subscribers`;
  rows.push(`| k | field edit acknowledged, ${owner} (SQLite) | – | – | ${fmt(k.ackP50!, 1)} ms | ${fmt(k.ackP99!, 1)} ms | – | – |`);
  rows.push(`| k0 | field edit acknowledged, owner with no subscribers (k's baseline) | – | – | ${fmt(k.baselineAckP50!, 1)} ms | ${fmt(k.baselineAckP99!, 1)} ms | – | – |`);
  rows.push(`| k | contact.card.changed delivery, edit sent → each of ${fmt(k.live!)} SSE streams | – | – | ${fmt(k.deliveryP50!, 1)} ms | ${fmt(k.deliveryP99!, 1)} ms | – | – |`);
}
if (scale) {
  const db = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  for (const r of scale.sizes) {
    const n = fmtCount(r.followers);
    rows.push(`| s | field edit acknowledged, owner with ${n} followers (${db}) | – | – | ${fmt(r.ackP50, 1)} ms | ${fmt(r.ackP99, 1)} ms | – | – |`);
    rows.push(`| s | contact.card.changed delivery to ${fmtCount(scale.live)} SSE streams, ${n} followers | – | – | ${fmt(r.deliveryP50, 1)} ms | ${fmt(r.deliveryP99, 1)} ms | – | – |`);
    rows.push(`| s | GET /events since the cursor before an edit, ${n} followers | – | – | ${fmt(r.pollChangeP50, 1)} ms | ${fmt(r.pollChangeP99, 1)} ms | – | – |`);
    rows.push(`| s | GET /events with nothing new, ${n} followers | – | – | ${fmt(r.pollQuietP50, 1)} ms | ${fmt(r.pollQuietP99, 1)} ms | – | – |`);
  }
}
if (regions) {
  const db = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const n = fmtCount(regions.followers);
  rows.push(`| r | contact.card.changed across regions, EU edit's 200 → each of ${n} US SSE streams (${db}) | – | – | ${fmt(regions.across.p50, 1)} ms | ${fmt(regions.across.p99, 1)} ms | – | – |`);
  rows.push(`| r0 | the same edits by a US owner, US edit's 200 → the same ${n} streams (r's baseline, local fan-out) | – | – | ${fmt(regions.local.p50, 1)} ms | ${fmt(regions.local.p99, 1)} ms | – | – |`);
}
if (day) {
  const hottest = day.steps.filter((s) => s.people === day!.capacity).at(-1);
  const people = Number.isFinite(day.perNode) ? `${day.capped ? '≥ ' : ''}${fmtCount(Math.round(day.perNode))} people` : '–';
  rows.push(`| day | a day in the life: daily active people one node serves (${kind}${day.nodes > 1 ? `, ${day.nodes} nodes` : ''}); first to give out: ${day.firstToGiveOut?.name ?? '–'} | ${people} | – | ${hottest ? `${fmt(hottest.all.p50, 1)} ms` : '–'} | ${hottest ? `${fmt(hottest.all.p99, 1)} ms` : '–'} | ${hottest ? hottest.nodeCpu.map((c) => `${fmt(c)}%`).join(' + ') : '–'} | ${hottest ? `${fmt(hottest.playerCpu)}%` : '–'} |`);
}
for (const [name, count] of Object.entries(repeated)) extraRows.push([`repeated ${name} runs`, `${count} (the server got under 85% of its core: other load on the machine)`]);
const tableNotes: string[] = [];
if (results.node1 && results.node2) tableNotes.push(`Two nodes vs one (PostgreSQL + Redis, same run): scaling factor ${(results.node2.rate / results.node1.rate).toFixed(2)}x.`);
if (redisCost) {
  const trips = redisCost.roundTripsPerRequest === undefined ? '' : `; ${redisCost.roundTripsPerRequest.toFixed(2)} round trips (commands the nodes sent) and ${redisCost.scriptCommandsPerRequest!.toFixed(2)} commands run inside scripts (MONITOR over 50 sequential requests)`;
  tableNotes.push(`Redis per GET /me on two nodes: ${redisCost.commandsPerRequest.toFixed(2)} commands, ${redisCost.cpuMsPerRequest.toFixed(4)} ms of Redis CPU (INFO, warm-up included in the count)${trips}.`);
}
for (const m of Object.values(results)) for (const note of m.notes) tableNotes.push(`${m.id}: ${note}`);
const MEMORY_LABELS: Record<string, string> = { me: 'b', login: 'd', dav: `m (first syncs of ${fmtCount(DAV_LARGE)} cards)` };
const memoryRows = Object.entries(memory).map(([name, m]) => `| ${MEMORY_LABELS[name] ?? name} | ${mb(m.idle)} | ${mb(m.peak)} |`);
// d's figures are per login (its begin and its finish), b's and e's per request.
const costRows = Object.entries(databaseCosts).map(
  ([id, c]) =>
    `| ${id} | ${c.statements ? fmt(c.statementsPerRequest, 1) : 'n/a'} | ${c.statements ? fmt(c.distinctStatements) : 'n/a'} | ${fmt(c.transactionsPerRequest, 1)} | ${c.plansPerRequest === undefined ? 'n/a' : fmt(c.plansPerRequest, 1)} | ${c.statements ? fmt(c.execMsPerRequest, 3) : 'n/a'} | ${fmt(c.cpuMsPerRequest, 3)} |`,
);
const costNotes = Object.entries(databaseCosts).flatMap(([id, c]) =>
  c.statements
    ? [`${id}, where its statements' time goes, per request: ${c.top.map((t) => `${fmt(t.callsPerRequest, 2)} × \`${t.query}\` (${fmt(t.msPerRequest, 3)} ms, ${fmt(t.meanMs, 3)} ms each)`).join('; ')}`]
    : [`${id}: statements are not counted: ${c.unavailable ?? 'pg_stat_statements is not loaded'}; backend CPU (from /proc) and transactions (pg_stat_database) still are`],
);
const targetRows = targets.map((t) => `| ${t.what} | ${t.value} | ${t.met === undefined ? '–' : t.met ? 'met' : '**missed**'} |`);

const markdown = [
  `Run ${new Date().toISOString()} on ${info.cpu} (${info.cores} cores, ${info.memoryGb} GB), ${info.kernel}, Node ${info.node}${info.postgres ? `, PostgreSQL ${info.postgres}` : ''}; ${info.pinning}; load average at start ${info.loadAverageAtStart.join(' ')}; SQLite fsync'd commits/s on this disk: ${info.sqliteFsyncCommitsPerSecond}. ${REPS} × ${DURATION} s per scenario after ${WARMUP} s of warm-up, ${CONNECTIONS} connections, medians.`,
  '',
  ...(rows.length > 2 ? [...rows, ''] : []),
  ...(tableNotes.length ? [...tableNotes, ''] : []),
  ...(memoryRows.length ? ['| g. memory | RSS idle | RSS peak under load |', '|---|---:|---:|', ...memoryRows, ''] : []),
  ...(costRows.length
    ? ['| database cost per request (d: per login) | statement calls (round trips) | distinct statements | transactions | plans | execution ms | backend CPU ms |', '|---|---:|---:|---:|---:|---:|---:|', ...costRows, '', ...costNotes, '']
    : []),
  ...(targetRows.length ? ['| target | measured | |', '|---|---:|---|', ...targetRows, ''] : []),
  ...(signalRows ? ['| f. signals | value |', '|---|---|', ...signalRows.map(([k, v]) => `| ${k} | ${v} |`), '', ...signalNotes, ''] : []),
  ...(fanout ? ['| k. fan-out | value |', '|---|---|', ...fanout.rows.map(([k, v]) => `| ${k} | ${v} |`), '', ...(fanout.notes ?? []), ''] : []),
  ...(owners ? ['| o. owners editing at once | value |', '|---|---|', ...owners.rows.map(([k, v]) => `| ${k} | ${v} |`), '', ...(owners.notes ?? []), ''] : []),
  ...(scale ? [`s. audience scale (${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}), ${fmtCount(scale.live)} followers on live streams, ${scale.edits} edits per size:`, '', ...scale.table, '', ...scale.rows.map(([k, v]) => `${k}: ${v}`), '', ...(scale.notes ?? []), ''] : []),
  ...(regions ? [`r. across regions (${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, a database per region), ${fmtCount(regions.followers)} US followers on live streams, ${regions.edits} edits per owner:`, '', '| r. across regions | value |', '|---|---|', ...regions.rows.map(([k, v]) => `| ${k} | ${v} |`), '', ...regions.sizes.map(perEditLine), '', ...(regions.notes ?? []), ''] : []),
  ...(day ? [`day. a day in the life (${kind === 'sqlite' ? 'SQLite, one node' : `PostgreSQL, ${day.nodes} nodes + Redis`}), ${day.actors} actors:`, '', ...day.habits, '', ...day.table, '', ...day.rows.map(([k, v]) => `${k}: ${v}`), '', ...(day.notes ?? []), ''] : []),
  ...extraRows.map(([k, v]) => `${k}: ${v}`),
].join('\n');

console.log(`\n## Results (${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'})\n`);
console.log(markdown);
for (const [name, text] of Object.entries(profiles)) console.log(`\n## CPU profile of ${name} (last ${DURATION} s, self time)\n\n${text}`);
const missed = targets.filter((t) => t.met === false);
if (missed.length) console.log(`\n${missed.length} target(s) missed: ${missed.map((t) => t.what).join('; ')}. docs/performance.md explains where the time goes (npm run bench -- --profile).`);

const outDir = join(ROOT, 'bench-results');
mkdirSync(outDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const json = { machine: info, kind, quick, reps: REPS, durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, results, memory, databaseCosts, redisCost, targets, signals: signalRows, fanout, scale, owners, day, regions, profiles };
writeFileSync(join(outDir, `${stamp}-${kind}.json`), JSON.stringify(json, (key, value) => (key === 'devices' ? undefined : value), 2));
writeFileSync(join(outDir, `latest-${kind}.md`), `${markdown}\n`);
console.log(`\nwrote bench-results/${stamp}-${kind}.json and bench-results/latest-${kind}.md (${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
process.exit(0);
