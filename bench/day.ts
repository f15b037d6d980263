// A day in the life (capacity in people): a population with the product's real habits
// (bench/lib/day-habits.ts: opening the app, its live stream, token renewals, field edits fanned
// out to followers, logins on new devices, a phone's address book polling its CTag and syncing on
// change), its busiest hour played at its real rate by the day player (bench/lib/day-player.ts,
// open-loop, on the load core). The population doubles from a start until the p99 of its requests
// (all of them, and each class with enough answers to have a p99: MIN_SAMPLES) passes 100 ms or a
// request fails, then is bisected between the last size that passed and the first that did not; a
// step that failed while another process kept a node from its core is played again (DISTURBED_WAIT). Printed: the daily active people one node (one core) serves, and which
// resource was nearest its ceiling there, the first to give out: the node's CPU, the database's
// CPU (PostgreSQL backends, /proc), Redis (its CPU, and commands a second), the card-change log's
// head (backends waiting on its lock, sampled), or memory (each open stream's share of the RSS
// against a node's budget).
//
// SQLite: one node on core 0. PostgreSQL (--pg): two nodes sharing Redis, on cores 0 and 1 as in
// the nodes scenario, the player floating over both; people per node is the population over two.
//
// The population is played by a pool of real accounts signed up and set up through the API
// (BENCH_DAY_ACTORS: each follows the next FOLLOWS accounts' phone-showing profile, holds a second
// session to renew and an address-book password), each standing for population / actors people:
// the request rates are the population's, the data the pool's. Streams of people whose contacts
// do not edit in the step are held by a few onlooker accounts nobody follows, so an edit reaches
// as many streams as it would in the population (followers × the share of people with the app open).
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { davReader, syncOnce } from './dav.js';
import { withPhone } from './lib/card-edits.js';
import type { Owner } from './lib/card-edits.js';
import { BUSIEST_HOUR_SHARE, CLASSES, FOLLOWS, HABITS, MEMORY_BUDGET_BYTES, SESSION_SECONDS, habitRows, ratesFor, shareWithAppOpen } from './lib/day-habits.js';
import type { DayRates, RequestClass } from './lib/day-habits.js';
import type { PlayerActor, PlayerSetup, StepOutcome } from './lib/day-player.js';
import { redisCounters, runQueueSeconds, sampleHeadWaits } from './lib/day-resources.js';
import type { HeadWaits } from './lib/day-resources.js';
import { LOAD_CORE, SERVER_CORE, pinning } from './lib/processes.js';
import type { ServerProcess } from './lib/processes.js';
import { ProofSigner, newDeviceKey } from './lib/proofs.js';
import { API, HOST, ORIGIN, clientFor, createDatabase, expectStatus, signUpDevices, startVid, subscribe } from './lib/vid.js';
import type { BenchDatabase, BenchDevice } from './lib/vid.js';
import { pool } from './signals.js';
import type { BenchResult, BenchScenario } from './types.js';

/** The latency every request class must keep at p99 for a population to pass. */
const P99_LIMIT_MS = 100;
/**
 * Answered requests a class needs in a window for its p99 to decide: with fewer, the p99 is the
 * slowest one or two, and one pause of the host decides the step. Such a class is printed in
 * parentheses and judged with the others in the p99 of all requests (and by its failures).
 */
const MIN_SAMPLES = 100;
/**
 * A step that did not pass while a node's event loop waited for its core more than this share of
 * the window (other processes on the machine) is played again, twice at most, as run.ts repeats
 * a run whose server did not get its core.
 */
const DISTURBED_WAIT = 0.05;
/** File descriptors: the streams a step may hold (each is a socket in the player and in a node). */
const MAX_STREAMS = Number(process.env.BENCH_DAY_MAX_STREAMS ?? 12_000);
const ONLOOKERS = 10;
const SERVER_ENV = {
  // The streams and the pool's sessions live through the whole ramp; renewals follow the
  // product's default lifetime all the same (day-habits.ts), on sessions of their own.
  ACCESS_TOKEN_TTL_S: '7200',
  // The onlookers hold thousands of streams each.
  EVENTS_MAX_STREAMS_PER_ACCOUNT: '1000000',
  // Each actor's address book stands for many phones.
  RATE_LIMIT_DAV_PER_MIN: '1000000000',
};

export interface DayOptions {
  kind: 'sqlite' | 'postgres';
  quick: boolean;
  warmupSeconds: number;
  durationSeconds: number;
  redisUrl: string;
}

/** One population played. */
export interface DayStep {
  people: number;
  rates: DayRates;
  passed: boolean;
  /** Why it did not pass: the classes over the p99 limit or with failures. */
  broken: string[];
  classes: Record<RequestClass, { sent: number; ok: number; failed: number; p50: number; p99: number; samples: string[] }>;
  /** Every answered request of the window, whatever its class. */
  all: { ok: number; p50: number; p99: number };
  /** Requests a second answered, all classes. */
  rate: number;
  /** Per node, % of its core. */
  nodeCpu: number[];
  /** Per node, the share of the window its event loop waited for a core (%). */
  runQueueWait: number[];
  /** PostgreSQL backends of the database, % of one core (all backends together). */
  dbCpu?: number;
  redisCommandsPerSecond?: number;
  redisCpu?: number;
  head?: HeadWaits;
  streams: number;
  streamsFailed: number;
  /** Per node, bytes resident with the step's streams open, before its load. */
  rss: number[];
  /** RSS added per open stream, against the nodes with no stream open. */
  rssPerStream: number;
  playerCpu: number;
  cards304: number;
  cards200: number;
  deliveries: number;
  skipped: Record<string, number>;
  /** Actors whose renewal session a failed renewal ended (they renew no more). */
  brokenRenewals: number;
}

export interface Resource {
  name: string;
  /** Its use at the capacity, as a share of its ceiling (1 = given out). */
  use: number;
  detail: string;
}

export interface DayResult extends BenchResult {
  kind: 'sqlite' | 'postgres';
  nodes: number;
  actors: number;
  /** The largest population that passed, and per node; NaN when none did. */
  capacity: number;
  perNode: number;
  /** Whether the ramp stopped at the harness's stream cap with every step passing (capacity is then a floor). */
  capped: boolean;
  steps: DayStep[];
  resources: Resource[];
  firstToGiveOut?: Resource;
  /** Markdown: the habits, then the steps. */
  habits: string[];
  table: string[];
}

/** The day player's process, on the load core (both cores with two nodes), driven over IPC. */
class DayPlayer {
  private child!: ChildProcess;
  private nextId = 1;

  async start(cores: number | string): Promise<void> {
    const entry = fileURLToPath(new URL('./lib/day-player.ts', import.meta.url));
    const command = [process.execPath, '--import', 'tsx', entry];
    const [file, ...args] = pinning ? ['taskset', '-c', String(cores), ...command] : command;
    this.child = spawn(file!, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      this.child.once('exit', (code) => reject(new Error(`day player exited (${code})`)));
      this.child.once('message', () => resolve());
    });
  }

  call<T>(message: Record<string, unknown>, onMark?: (phase: 'start' | 'end') => void): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`day player exited (${code})`));
      const onMessage = (m: { id: number; type: string; result?: T; error?: string; phase?: 'start' | 'end' }) => {
        if (m.id !== id) return;
        if (m.type === 'mark') return onMark?.(m.phase!);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        if (m.type === 'result') resolve(m.result as T);
        else reject(new Error(`day player: ${m.error}`));
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send({ ...message, id });
    });
  }

  stop(): void {
    if (this.child?.connected) this.child.send({ type: 'exit' });
  }
}

const count = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '–');
const pct = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? `${n.toFixed(0)}%` : '–');
const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)}` : '–');
const MB = 1024 * 1024;

/** The pool: actors following one another in a ring, each set up as the app and a phone would be. */
async function setUpPool(port: number, kind: 'sqlite' | 'postgres', actors: number, progress: (line: string) => void): Promise<{ setup: Omit<PlayerSetup, 'targets'>; owners: Owner[] }> {
  if (actors <= FOLLOWS) throw new Error(`BENCH_DAY_ACTORS must be more than the ${FOLLOWS} people each one follows`);
  const client = clientFor(port);
  progress(`signing up ${actors} actors and ${ONLOOKERS} onlookers`);
  const accounts = await signUpDevices(port, actors + ONLOOKERS, 'benchday');
  const pool_ = accounts.slice(0, actors);
  const owners: Owner[] = [];
  await pool(pool_, 4, async (a, i) => void (owners[i] = await withPhone(client, a.device)));

  progress(`${actors * FOLLOWS} subscriptions through the API (request + approval), each actor following the next ${FOLLOWS}`);
  const cardPaths: string[][] = pool_.map(() => []);
  // Round by round, so no two requests of a round approve onto one owner; one at a time on
  // PostgreSQL, where concurrent requests touching one account can deadlock (see scale.ts).
  for (let r = 1; r <= FOLLOWS; r++) {
    await pool(pool_, kind === 'postgres' ? 1 : 4, async (a, i) => {
      const o = (i + r) % actors;
      const id = await subscribe(client, a.device, owners[o]!.device, owners[o]!.profileId);
      cardPaths[i]!.push(`${API}/contacts/${id}/card`);
    });
  }

  progress('a second session per actor (a passkey login) for its renewals, an address-book password, the cards and the book read once');
  const built: PlayerActor[] = [];
  await pool(pool_, kind === 'postgres' ? 2 : 4, async (a: BenchDevice, i) => {
    const renewKey = newDeviceKey();
    const login = await client.logIn(a.device.authenticator, new ProofSigner(renewKey).asDpopKey());
    if (login.status !== 200 || !login.body.refresh_token) throw new Error(`login for a renewal session: ${login.status} ${JSON.stringify(login.body)}`);
    const reader = await davReader(port, a);
    const first = await syncOnce(port, reader, '');
    if (first.status !== 207 || !first.token) throw new Error(`the first sync answered ${first.status}`);
    const cards = [];
    for (const path of cardPaths[i]!) {
      const card = await expectStatus(200, 'GET contact card', client.as(a.device, 'GET', path));
      cards.push({ path, etag: card.headers.get('etag')! });
    }
    // The authenticator's counter after the login and the step-up: logins go on from there.
    const { privateKey, ...credential } = a.device.authenticator.credentials[0]!;
    built[i] = {
      key: a.key,
      accessToken: a.device.tokens.access_token,
      renewKey,
      refreshToken: login.body.refresh_token,
      credential: { ...credential, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string },
      cards,
      field: { id: owners[i]!.fieldId, version: owners[i]!.version },
      dav: { authorization: reader.authorization, book: reader.book, token: first.token },
    };
  });
  const onlookers = accounts.slice(actors).map((a) => ({ key: a.key, accessToken: a.device.tokens.access_token }));
  return { setup: { host: HOST, origin: ORIGIN, actors: built, onlookers }, owners };
}

/**
 * Who holds each of `streams` streams: the actors' share is what the population's is (the
 * share of people with the app open), at least one so the delivery path runs; the rest go to
 * the onlookers in turn. Prefix-stable, so a smaller population closes onlookers' streams.
 */
function streamPlan(streams: number, actors: number, openShare: number): number[] {
  const held = Math.min(streams, Math.max(1, Math.round(actors * openShare)));
  const plan: number[] = [];
  for (let i = 0; i < held; i++) plan.push(Math.floor((i * actors) / held));
  for (let j = 0; plan.length < streams; j++) plan.push(actors + (j % ONLOOKERS));
  return plan;
}

export function dayScenario(options: DayOptions): BenchScenario<DayResult> {
  const { kind, quick } = options;
  const nodes = kind === 'postgres' ? 2 : 1;
  const actors = Number(process.env.BENCH_DAY_ACTORS ?? (quick ? 30 : 200));
  const start = Number(process.env.BENCH_DAY_START ?? (quick ? 10_000 : 40_000) * nodes);
  const bisections = Number(process.env.BENCH_DAY_BISECT ?? (quick ? 2 : 4));
  const openShare = shareWithAppOpen();
  const maxPeople = Math.floor(MAX_STREAMS / openShare);
  return {
    name: 'day',
    description: `a day in the life (${kind === 'sqlite' ? 'SQLite, one node' : 'PostgreSQL, two nodes + Redis'}): the population's busiest hour played open-loop by ${actors} actors, doubled from ${count(start)} people until a p99 passes ${P99_LIMIT_MS} ms or a request fails, then bisected ${bisections} times; ${options.warmupSeconds} + ${options.durationSeconds} s per step`,
    async run(progress) {
      const database = await createDatabase(kind);
      const servers: ServerProcess[] = [];
      const player = new DayPlayer();
      try {
        const env = { ...SERVER_ENV, ...(kind === 'postgres' ? { REDIS_URL: options.redisUrl } : {}) };
        for (let n = 0; n < nodes; n++) servers.push(await startVid(`vid-day-${n + 1}`, database, { env, core: nodes === 1 ? SERVER_CORE : n }));
        const { setup } = await setUpPool(servers[0]!.port, kind, actors, progress);
        await player.start(nodes === 1 ? LOAD_CORE : '0,1');
        await player.call({ type: 'setup', setup: { ...setup, targets: servers.map((s) => ({ host: '127.0.0.1', port: s.port })) } });
        await new Promise((resolve) => setTimeout(resolve, 500));
        const baseRss = servers.map((s) => s.memory()?.rss ?? Number.NaN);

        const steps: DayStep[] = [];
        const play = async (people: number): Promise<DayStep> => {
          const rates = ratesFor(people);
          const plan = streamPlan(rates.streams, actors, openShare);
          progress(`${count(people)} people: ${count(rates.streams)} streams open, events/s: openings ${rates.open.toFixed(1)}, renewals ${rates.renew.toFixed(1)}, edits ${rates.edit.toFixed(2)}, logins ${rates.login.toFixed(3)}, CTag polls ${rates.ctag.toFixed(1)}`);
          // A step over the line leaves work behind: let the node finish it first.
          if (steps.at(-1)?.passed === false) await new Promise((resolve) => setTimeout(resolve, 3000));
          const opened = await player.call<{ open: number; failed: number; samples: string[] }>({ type: 'streams', plan });
          if (opened.failed) progress(`${opened.failed} streams failed to open: ${opened.samples[0]}`);
          await new Promise((resolve) => setTimeout(resolve, 500));
          const rss = servers.map((s) => s.memory()?.rss ?? Number.NaN);

          let cpuBefore: number[] = [];
          let cpuAfter: number[] = [];
          let waitBefore: number[] = [];
          let waitAfter: number[] = [];
          let redisBefore: Promise<Awaited<ReturnType<typeof redisCounters>>> = Promise.resolve(undefined);
          let redisAfter: Promise<Awaited<ReturnType<typeof redisCounters>>> = Promise.resolve(undefined);
          let dbWindow: ReturnType<NonNullable<BenchDatabase['costWindow']>> | undefined;
          let headSampler: ReturnType<typeof sampleHeadWaits> | undefined;
          let opened_at = 0;
          let closed_at = 0;
          const outcome = await player.call<StepOutcome>({ type: 'step', rates, warmupSeconds: options.warmupSeconds, durationSeconds: options.durationSeconds }, (phase) => {
            if (phase === 'start') {
              opened_at = performance.now();
              cpuBefore = servers.map((s) => s.cpuSeconds() ?? Number.NaN);
              waitBefore = servers.map((s) => runQueueSeconds(s.pid));
              if (kind === 'postgres') {
                redisBefore = redisCounters(options.redisUrl);
                dbWindow = database.costWindow?.();
                dbWindow?.catch(() => undefined);
                headSampler = sampleHeadWaits(database.env.DATABASE_URL!);
                headSampler.catch(() => undefined);
              }
            } else {
              closed_at = performance.now();
              cpuAfter = servers.map((s) => s.cpuSeconds() ?? Number.NaN);
              waitAfter = servers.map((s) => runQueueSeconds(s.pid));
              if (kind === 'postgres') redisAfter = redisCounters(options.redisUrl);
            }
          });
          const seconds = (closed_at - opened_at) / 1000 || options.durationSeconds;
          const nodeCpu = servers.map((_, i) => ((cpuAfter[i]! - cpuBefore[i]!) / seconds) * 100);
          const runQueueWait = servers.map((_, i) => ((waitAfter[i]! - waitBefore[i]!) / seconds) * 100);
          const [rb, ra] = [await redisBefore, await redisAfter];
          const db = await (await dbWindow?.catch(() => undefined))?.stop(1).catch(() => undefined);
          const head = await (await headSampler?.catch(() => undefined))?.stop();

          const broken: string[] = [];
          const classes = {} as DayStep['classes'];
          let answered = 0;
          for (const klass of CLASSES) {
            const c = outcome.classes[klass];
            classes[klass] = { sent: c.sent, ok: c.ok, failed: c.failed, p50: c.p50, p99: c.p99, samples: c.samples };
            answered += c.ok;
            if (c.failed) broken.push(`${klass}: ${c.failed} of ${c.sent} failed (${c.samples[0] ?? ''})`);
            if (c.ok >= MIN_SAMPLES && c.p99 > P99_LIMIT_MS) broken.push(`${klass}: p99 ${c.p99.toFixed(0)} ms`);
          }
          if (outcome.all.ok >= MIN_SAMPLES && outcome.all.p99 > P99_LIMIT_MS) broken.push(`all requests: p99 ${outcome.all.p99.toFixed(0)} ms`);
          if (opened.failed) broken.push(`streams: ${opened.failed} of ${plan.length} failed to open (${opened.samples[0] ?? ''})`);
          const addedRss = rss.reduce((s, r) => s + r, 0) - baseRss.reduce((s, r) => s + r, 0);
          const result: DayStep = {
            people,
            rates,
            passed: broken.length === 0,
            broken,
            classes,
            all: outcome.all,
            rate: answered / outcome.seconds,
            nodeCpu,
            runQueueWait,
            dbCpu: db ? (db.cpuMsPerRequest / (seconds * 1000)) * 100 : undefined,
            redisCommandsPerSecond: rb && ra ? (ra.commands - rb.commands) / seconds : undefined,
            redisCpu: rb && ra ? ((ra.cpuSeconds - rb.cpuSeconds) / seconds) * 100 : undefined,
            head,
            streams: opened.open,
            streamsFailed: opened.failed,
            rss,
            rssPerStream: opened.open ? addedRss / opened.open : Number.NaN,
            playerCpu: outcome.playerCpu,
            cards304: outcome.cards304,
            cards200: outcome.cards200,
            deliveries: outcome.signals['contact.card.changed'] ?? 0,
            skipped: outcome.skipped,
            brokenRenewals: outcome.brokenRenewals,
          };
          steps.push(result);
          const worst = CLASSES.filter((k) => classes[k].ok >= MIN_SAMPLES).sort((x, y) => classes[y].p99 - classes[x].p99)[0];
          progress(
            `${count(people)} people: ${result.passed ? 'passed' : `did not pass (${broken.join('; ')})`}; ${result.rate.toFixed(0)} req/s answered, p99 of all ${ms(outcome.all.p99)} ms${worst ? `, worst class with ${MIN_SAMPLES}+ answers ${worst} ${classes[worst].p99.toFixed(1)} ms` : ''}; ` +
              `node CPU ${nodeCpu.map((c) => pct(c)).join(' + ')} (waiting for it ${runQueueWait.map((c) => pct(c)).join(' + ')})${result.dbCpu !== undefined ? `, database CPU ${pct(result.dbCpu)}` : ''}${result.redisCpu !== undefined ? `, Redis ${count(result.redisCommandsPerSecond!)} commands/s (CPU ${pct(result.redisCpu)})` : ''}` +
              `${head ? `, log head: a waiter in ${head.withWaiter}/${head.samples} samples` : ''}${result.brokenRenewals ? `; ${result.brokenRenewals} actors' renewal sessions ended by a failed renewal` : ''}; RSS ${rss.map((r) => `${(r / MB).toFixed(0)} MB`).join(' + ')} (${(result.rssPerStream / 1024).toFixed(1)} KB per stream); player CPU ${pct(result.playerCpu)}`,
          );
          return result;
        };

        // Doubling from the start until a step does not pass (or the streams would pass the cap),
        // halving first if the start itself does not; then bisecting between the two.
        let pass: number | undefined;
        let fail: number | undefined;
        let people = Math.min(start, maxPeople);
        /** A population played, again while the host kept a node from its core (DISTURBED_WAIT). */
        const playSteady = async (n: number) => {
          let step = await play(n);
          for (let again = 1; again <= 2 && !step.passed && Math.max(...step.runQueueWait) > DISTURBED_WAIT * 100; again++) {
            progress(`${count(n)} people: a node waited for its core ${pct(Math.max(...step.runQueueWait))} of the window (other load on the machine); playing it again`);
            step = await play(n);
          }
          return step;
        };
        for (;;) {
          const step = await playSteady(people);
          if (step.passed) {
            pass = people;
            if (fail !== undefined || people >= maxPeople) break;
            people = Math.min(people * 2, maxPeople);
          } else {
            fail = people;
            if (pass !== undefined || people < 1000) break;
            people = Math.floor(people / 2);
          }
        }
        for (let b = 0; b < bisections && pass !== undefined && fail !== undefined && fail - pass > Math.max(1000, pass * 0.05); b++) {
          const mid = Math.round((pass + fail) / 2 / 1000) * 1000;
          if ((await playSteady(mid)).passed) pass = mid;
          else fail = mid;
        }

        const capacity = pass ?? Number.NaN;
        const capped = fail === undefined && pass !== undefined;
        const at = steps.filter((s) => s.people === pass).at(-1);
        const resources: Resource[] = [];
        if (at) {
          const hottest = Math.max(...at.nodeCpu);
          resources.push({ name: 'node CPU', use: hottest / 100, detail: `${at.nodeCpu.map((c) => pct(c)).join(' + ')} of ${nodes === 1 ? 'its core' : 'their cores'}, waiting for it ${at.runQueueWait.map((c) => pct(c)).join(' + ')} of the window` });
          if (at.dbCpu !== undefined) resources.push({ name: 'database CPU', use: at.dbCpu / 100, detail: `PostgreSQL backends ${pct(at.dbCpu)} of one core` });
          if (at.redisCpu !== undefined) resources.push({ name: 'Redis', use: at.redisCpu / 100, detail: `${count(at.redisCommandsPerSecond!)} commands/s, ${pct(at.redisCpu)} of its core` });
          if (at.head) resources.push({ name: "the log's head", use: at.head.samples ? at.head.withWaiter / at.head.samples : 0, detail: `a backend waiting on card_change_log_head in ${at.head.withWaiter} of ${at.head.samples} samples (${at.head.meanWaiters.toFixed(2)} on average)` });
          const rssMax = Math.max(...at.rss);
          resources.push({ name: 'memory per stream', use: rssMax / MEMORY_BUDGET_BYTES, detail: `${(rssMax / MB).toFixed(0)} MB of a ${(MEMORY_BUDGET_BYTES / MB).toFixed(0)} MB budget with ${count(at.streams / nodes)} streams per node, ${(at.rssPerStream / 1024).toFixed(1)} KB each` });
        }
        const firstToGiveOut = [...resources].sort((x, y) => y.use - x.use)[0];
        const broke = steps.filter((s) => !s.passed).at(-1);

        const habits = habitRows();
        const table = [
          `| people | streams | req/s answered | p99 ms, all | p99 ms: ${CLASSES.join(' / ')} | node CPU (waiting for it) | ${kind === 'postgres' ? 'database CPU | Redis commands/s (CPU) | log head waits | ' : ''}RSS (per stream) | player CPU | |`,
          `|---:|---:|---:|---:|---|---:|${kind === 'postgres' ? '---:|---:|---:|' : ''}---:|---:|---|`,
          ...steps.map(
            (s) =>
              `| ${count(s.people)} | ${count(s.streams)} | ${count(s.rate)} | ${ms(s.all.p99)} | ${CLASSES.map((k) => (s.classes[k].ok >= MIN_SAMPLES || !s.classes[k].ok ? ms(s.classes[k].p99) : `(${ms(s.classes[k].p99)})`)).join(' / ')} | ${s.nodeCpu.map((c) => pct(c)).join(' + ')} (${s.runQueueWait.map((c) => pct(c)).join(' + ')}) | ` +
              `${kind === 'postgres' ? `${pct(s.dbCpu)} | ${s.redisCommandsPerSecond !== undefined ? `${count(s.redisCommandsPerSecond)} (${pct(s.redisCpu)})` : '–'} | ${s.head ? `${s.head.withWaiter}/${s.head.samples}` : '–'} | ` : ''}` +
              `${s.rss.map((r) => `${(r / MB).toFixed(0)} MB`).join(' + ')} (${(s.rssPerStream / 1024).toFixed(1)} KB) | ${pct(s.playerCpu)} | ${s.passed ? 'passed' : 'over'} |`,
          ),
        ];
        const perNode = capacity / nodes;
        const rows: Array<[string, string]> = [
          ['daily active people one node serves', Number.isFinite(perNode) ? `${capped ? '≥ ' : ''}${count(perNode)}${nodes > 1 ? ` (${count(capacity)} on ${nodes} nodes)` : ''}` : `fewer than ${count(Math.min(...steps.map((s) => s.people)))}`],
          ['first to give out', firstToGiveOut ? `${firstToGiveOut.name}: ${(firstToGiveOut.use * 100).toFixed(0)}% of its ceiling (${firstToGiveOut.detail})` : '–'],
          ...resources.filter((r) => r !== firstToGiveOut).map((r) => [`  then ${r.name}`, `${(r.use * 100).toFixed(0)}% (${r.detail})`] as [string, string]),
          ...(at && Math.max(...at.runQueueWait) > DISTURBED_WAIT * 100
            ? [['the host', `other processes kept a node from its core ${pct(Math.max(...at.runQueueWait))} of the window at ${count(capacity)} people: the latency on a shared core, not a resource of the service, drew the line (run it on a quiet machine)`] as [string, string]]
            : []),
          ['the step over the line', broke ? `${count(broke.people)} people: ${broke.broken.join('; ')}` : capped ? `none: the ramp stopped at ${count(MAX_STREAMS)} streams (BENCH_DAY_MAX_STREAMS)` : '–'],
        ];
        return {
          kind,
          nodes,
          actors,
          capacity,
          perNode,
          capped,
          steps,
          resources,
          firstToGiveOut,
          habits,
          table,
          metrics: { capacity, perNode },
          rows,
          notes: [
            `Each step plays the population's busiest hour (${(BUSIEST_HOUR_SHARE * 100).toFixed(0)}% of a day's app use; CTag polls evenly all day) at its real rate, open-loop (Poisson arrivals per habit), for ${options.durationSeconds} s after ${options.warmupSeconds} s of warm-up, ` +
              `with the population's live streams held (the people with the app open: openings a second × ${SESSION_SECONDS} s) and churned (each opening closes one and opens one, timed as "stream", to its first block). ` +
              `A request counts when sent inside the window; one not answered 5 s after it is a failure. A step that did not pass while a node's event loop waited for its core more than ${DISTURBED_WAIT * 100}% of the window (/proc/<pid>/schedstat: other processes on its core) is played again, twice at most; "waiting for it" in the table. A step passes when the p99 of all requests, and of each class with ${MIN_SAMPLES} answers or more in the window, is at most ${P99_LIMIT_MS} ms and nothing failed (a p99 in parentheses is of fewer answers: printed, not judged on its own). ` +
              `${actors} actors play the population (each follows ${FOLLOWS}, so its address book changes as often as a person's would); the request rates are the population's, the data (accounts, cards, log) the pool's. ` +
              `"First to give out": the resource nearest its ceiling at the largest population that passed: a node's CPU (its core), the database backends' CPU (one core), Redis's CPU (its core), the log's head (share of 50-ms samples with a backend waiting on its lock), memory (the fullest node's RSS against ${(MEMORY_BUDGET_BYTES / MB).toFixed(0)} MB, docs/deploy.md). ` +
              `Proofs are signed by the player as each request goes; its CPU is in the table. Server: the built service, production settings as in the other scenarios, plus ${Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}.`,
            `Edits reach followers' streams: ${steps.map((s) => `${count(s.deliveries)}`).join(', ')} contact.card.changed delivered in the steps' windows; card revalidations answered 304 / 200: ${steps.map((s) => `${s.cards304}/${s.cards200}`).join(', ')}.`,
            ...(steps.some((s) => Object.keys(s.skipped).length) ? [`Events dropped because every actor was busy with one of that kind: ${steps.map((s) => JSON.stringify(s.skipped)).join(', ')}.`] : []),
            `Habits (per person per day): ${Object.values(HABITS).map((h) => `${h.name} ${h.perDay.toFixed(2)}`).join('; ')}.`,
          ],
        };
      } catch (error) {
        for (const server of servers) progress(`${server.name}'s last output:\n${server.log()}`);
        throw error;
      } finally {
        player.stop();
        for (const server of servers) await server.stop();
        await database.drop();
      }
    },
  };
}
