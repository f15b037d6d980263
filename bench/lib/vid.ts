// The service under benchmark: the built server (dist/server.js, what `npm start` runs) in
// its own pinned process, on a fresh SQLite file or a fresh PostgreSQL database, and the setup
// its scenarios need (accounts signed up, fields, profiles and subscriptions made, all through the real API).
import { randomUUID } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseWindow } from './pg-stats.js';
import { SoftwareAuthenticator } from '../../test/helpers/authenticator.js';
import { TestClient } from '../../test/helpers/client.js';
import type { CallResult, Device } from '../../test/helpers/client.js';
import type { SerialisedCredential } from './generator.js';
import { LOAD_CORE, ServerProcess, freePort, pin } from './processes.js';
import { ProofSigner, newDeviceKey } from './proofs.js';

/** The origin proofs and WebAuthn are made for (the service is configured with it, as behind a proxy). */
export const ORIGIN = 'http://localhost:8080';
export const HOST = 'localhost:8080';
// BENCH_SERVER_ENTRY runs another build of the service (a profile of a proposed change, say).
const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY || fileURLToPath(new URL('../../dist/server.js', import.meta.url));
// Profiles run the same code unbundled (tsc's dist/src/, one file per module), so a profile's
// summary can say which package or file the time is spent in; the bundle would name one file.
const PROFILE_ENTRY = process.env.BENCH_SERVER_ENTRY || fileURLToPath(new URL('../../dist/src/server.js', import.meta.url));

/**
 * The node flags and environment `npm start` runs the service with (package.json; see
 * docs/deploy.md, Memory): the benchmark measures that process, so it starts it the same way.
 */
const START_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=50'];
// BENCH_NODE_FLAGS adds node flags to the service's (trying a runtime setting before adopting it).
const TRIAL_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const START_ENV = { MALLOC_ARENA_MAX: '2' };
const startScript = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
for (const part of [...START_FLAGS, ...Object.entries(START_ENV).map(([name, value]) => `${name}=\${${name}:-${value}}`)]) {
  if (!startScript.includes(part)) throw new Error(`npm start no longer runs the service with ${part}: update bench/lib/vid.ts`);
}

/**
 * Production defaults except what would measure something else: the per-account and per-address
 * limits and the monthly quota are raised far out of reach (their counters still run on every
 * request), and logging is at `warn` (see docs/performance.md: request logging at `info` is
 * measured separately).
 */
export function serviceEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PUBLIC_ORIGIN: ORIGIN,
    SECRET_KEY: Buffer.alloc(32, 5).toString('base64url'),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    RATE_LIMIT_AUTH_PER_MIN: '1000000000',
    RATE_LIMIT_USER_PER_MIN: '1000000000',
    RATE_LIMIT_PUBLIC_PER_MIN: '1000000000',
    QUOTA_PER_MONTH: '1000000000000',
    NODE_ENV: 'production',
    ...START_ENV,
    // BENCH_SERVICE_ENV (JSON) adds to or overrides this, to measure another configuration.
    ...(JSON.parse(process.env.BENCH_SERVICE_ENV || '{}') as Record<string, string>),
    ...extra,
  };
}

/** A database for one service run: a temporary SQLite file or a fresh PostgreSQL database. */
export interface BenchDatabase {
  kind: 'sqlite' | 'postgres';
  env: Record<string, string>;
  /** Pins this database's PostgreSQL backends to the load core (no-op on SQLite). */
  pinBackends(): Promise<number>;
  /** PostgreSQL: starts a window of what requests cost the database (pg-stats.ts); undefined on SQLite. */
  costWindow?(): ReturnType<typeof databaseWindow>;
  drop(): Promise<void>;
}

export function postgresAdminUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

let databasesMade = 0;

export async function createDatabase(kind: 'sqlite' | 'postgres'): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'vid-bench-'));
    return {
      kind,
      env: { SQLITE_PATH: join(dir, 'vid.sqlite') },
      pinBackends: async () => 0,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = postgresAdminUrl();
  // Numbered too: a scenario with two deployments makes two databases in the same moment.
  const name = `vid_bench_${process.pid}_${Date.now().toString(36)}_${++databasesMade}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    kind,
    env: { DATABASE_URL: url.toString() },
    costWindow: () => databaseWindow(adminUrl, name),
    async pinBackends() {
      // The service's connections are served by backend processes forked per connection:
      // they go on the load core, so the service keeps its core to itself.
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name]);
      await client.end();
      return rows.filter((row) => pin(row.pid, LOAD_CORE)).length;
    },
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface VidOptions {
  /** More environment (REDIS_URL, DPOP_REPLAY_CACHE, ...). */
  env?: Record<string, string>;
  /** Run under `node --cpu-prof`, writing the profile here when the server stops. */
  profileDir?: string;
  core?: number;
  /** The port to listen on (another process must know it before this one starts, as regions do); a free one when unset. */
  port?: number;
}

export async function startVid(name: string, database: BenchDatabase, options: VidOptions = {}): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const node = [process.execPath, ...START_FLAGS, ...TRIAL_FLAGS, ...(options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir] : [])];
  const server = new ServerProcess(name, [...node, options.profileDir ? PROFILE_ENTRY : SERVER_ENTRY], serviceEnv({ ...database.env, PORT: String(port), ...options.env }), port, options.core);
  await server.start(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok);
  return server;
}

/** A signed-up account whose device key and authenticator can cross to the generator. */
export interface BenchDevice {
  key: JsonWebKey;
  device: Device;
  credential: SerialisedCredential;
}

export function clientFor(port: number): TestClient {
  return new TestClient(`http://127.0.0.1:${port}`, ORIGIN, { check() {} }, Date.now);
}

/** Signs up `count` accounts, a few at a time, each with its own device key and authenticator. */
export async function signUpDevices(port: number, count: number, prefix: string): Promise<BenchDevice[]> {
  const client = clientFor(port);
  const devices: BenchDevice[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        const i = next++;
        const key = newDeviceKey();
        const authenticator = new SoftwareAuthenticator();
        const device = await client.signUp(`${prefix}${process.pid}x${i}`, authenticator, new ProofSigner(key).asDpopKey());
        const { privateKey, ...credential } = authenticator.credentials[0]!;
        devices[i] = { key, device, credential: { ...credential, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string } };
      }
    }),
  );
  return devices;
}

/** One account's card as the card scenarios read it (h, i): privately through a preview, and publicly. */
export interface BenchCard {
  /** The account's profiles, the first one public (and previewed). */
  profileIds: string[];
  previewPath: string;
  previewEtag: string;
  publicPath: string;
  publicEtag: string;
}

export const API = '/api/v1';
const FIELDS_PER_ACCOUNT = 30;
const PROFILES_PER_ACCOUNT = 5;
/** Field values of four types, so a card mixes plain text, addresses and links. */
const FIELD_VALUES = [
  (n: number) => ({ type: 'nickname', value: `Ada ${n}` }),
  (n: number) => ({ type: 'email', value: `a${n}@example.com` }),
  (n: number) => ({ type: 'url', value: `https://example.com/${n}` }),
  (n: number) => ({ type: 'job_title', value: `Engineer ${n}` }),
];

/** A call that must answer `status`; anything else stops the setup with what the service said. */
export async function expectStatus(status: number, what: string, call: Promise<CallResult>): Promise<CallResult> {
  const res = await call;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** Creates something that needs an Idempotency-Key (201) and returns its id. */
export async function create(client: TestClient, device: Device, path: string, body: unknown): Promise<string> {
  return (await expectStatus(201, `POST ${path}`, client.as(device, 'POST', API + path, { body, headers: { 'idempotency-key': randomUUID() } }))).body.id as string;
}

/**
 * Gives each account what a person using profiles has, through the real API: 30 fields and 5
 * profiles showing 6 of them each, the first profile public. That public profile is also the one
 * previewed, so h and i serve the same card and differ only by authentication.
 */
export async function setUpCards(port: number, accounts: BenchDevice[]): Promise<BenchCard[]> {
  const client = clientFor(port);
  const shown = FIELDS_PER_ACCOUNT / PROFILES_PER_ACCOUNT;
  const cards: BenchCard[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < accounts.length) {
        const i = next++;
        const device = accounts[i]!.device;
        const fields: string[] = [];
        for (let n = 0; n < FIELDS_PER_ACCOUNT; n++) fields.push(await create(client, device, '/me/fields', FIELD_VALUES[n % FIELD_VALUES.length]!(n)));
        const profiles: string[] = [];
        for (let p = 0; p < PROFILES_PER_ACCOUNT; p++) profiles.push(await create(client, device, '/profiles', { name: `P${p + 1}`, public: p === 0 }));
        for (const [p, profile] of profiles.entries()) {
          for (const field of fields.slice(p * shown, (p + 1) * shown)) {
            await expectStatus(201, 'PUT exposure', client.as(device, 'PUT', `${API}/profiles/${profile}/exposures/${field}`, { body: {} }));
          }
        }
        const previewPath = `${API}/profiles/${profiles[0]}/preview`;
        const publicPath = `${API}/public/${device.username}`;
        const preview = await expectStatus(200, 'GET preview', client.as(device, 'GET', previewPath));
        const open = await expectStatus(200, 'GET public card', client.call('GET', publicPath));
        if (preview.body.fields?.length !== shown) throw new Error(`the preview shows ${preview.body.fields?.length} fields, not ${shown}`);
        cards[i] = { profileIds: profiles, previewPath, previewEtag: preview.headers.get('etag')!, publicPath, publicEtag: open.headers.get('etag')! };
      }
    }),
  );
  return cards;
}

/**
 * Makes `subscriber` an active subscriber of `owner`'s profile through the real API, as people
 * do it: a request by username (201, pending), then the owner's approval onto the profile (200).
 * Returns the contact id (the subscription's id, the same from both sides).
 */
export async function subscribe(client: TestClient, subscriber: Device, owner: Device, profileId: string): Promise<string> {
  const id = await create(client, subscriber, '/contacts', { username: owner.username });
  await expectStatus(200, 'POST approve', client.as(owner, 'POST', `${API}/subscriptions/${id}/approve`, { body: { profile_id: profileId }, headers: { 'idempotency-key': randomUUID() } }));
  return id;
}

/** A contact's card as the contact scenario (j) reads it: its path, and its ETag for the 304 run. */
export interface BenchContact {
  cardPath: string;
  cardEtag: string;
}

/**
 * Each account subscribes to the next one's first profile (the card h previews), so every
 * benchmark device reads one contact card and j differs from h by its path and lookup only.
 */
export async function setUpContacts(port: number, accounts: BenchDevice[], cards: BenchCard[]): Promise<BenchContact[]> {
  if (accounts.length < 2) throw new Error('the contact scenario needs two accounts or more (BENCH_CONNECTIONS)');
  const client = clientFor(port);
  const contacts: BenchContact[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < accounts.length) {
        const i = next++;
        const o = (i + 1) % accounts.length;
        const subscriber = accounts[i]!.device;
        const id = await subscribe(client, subscriber, accounts[o]!.device, cards[o]!.profileIds[0]!);
        const cardPath = `${API}/contacts/${id}/card`;
        const card = await expectStatus(200, 'GET contact card', client.as(subscriber, 'GET', cardPath));
        contacts[i] = { cardPath, cardEtag: card.headers.get('etag')! };
      }
    }),
  );
  return contacts;
}

/** The service with metrics on (b+metrics): its /metrics listener on a port of its own. */
export async function startVidWithMetrics(name: string, database: BenchDatabase): Promise<{ server: ServerProcess; scrapeUrl: string }> {
  const metricsPort = await freePort();
  const server = await startVid(name, database, { env: { METRICS_PORT: String(metricsPort) } });
  return { server, scrapeUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

/**
 * Scrapes /metrics every `everyMs` while a run measures, as Prometheus would (every 15 s is usual;
 * more often here, so the cost of collecting is in the figure). stop() says how it went: a run
 * whose scrapes failed did not measure metrics on.
 */
export function scrapeWhileRunning(url: string, everyMs = 5000): { stop(): Promise<{ scrapes: number; failed: number; requestsCounted: number }> } {
  let scrapes = 0;
  let failed = 0;
  let last = '';
  const scrape = () =>
    fetch(url)
      .then(async (res) => {
        if (!res.ok) throw new Error(`GET /metrics ${res.status}`);
        last = await res.text();
        scrapes++;
      })
      .catch(() => void failed++);
  let pending = scrape();
  const timer = setInterval(() => (pending = pending.then(scrape)), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
      await scrape();
      // The counted GET /me requests, summed over status classes: proof the hook ran.
      let requestsCounted = 0;
      for (const match of last.matchAll(/^vid_http_requests_total\{method="GET",route="\/api\/v1\/me",status_class="[^"]+"\} (\d+)$/gm)) requestsCounted += Number(match[1]);
      return { scrapes, failed, requestsCounted };
    },
  };
}
