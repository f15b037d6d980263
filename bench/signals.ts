// Signal latency and stream memory (the event-signals issue): one node on SQLite in a child
// process; 1,000 live SSE clients measure write -> receipt latency, then 10,000 idle SSE streams
// measure the server's resident memory. Clients use node:http (no extra packages).
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { SoftwareAuthenticator } from '../test/helpers/authenticator.js';
import { TestClient } from '../test/helpers/client.js';
import type { Device } from '../test/helpers/client.js';
import { SERVER_CORE, pin } from './lib/processes.js';
import { readSseBlocks } from './lib/sse-blocks.js';
import type { BenchScenario } from './types.js';
import { percentile } from './types.js';

const ORIGIN = 'http://localhost:8080';
const STREAM_PATH = '/api/v1/events/stream';
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 250);
const LIVE_CLIENTS = Number(process.env.BENCH_LIVE_CLIENTS ?? 1000);
const IDLE_STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? 10_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 500);
const WRITERS = 4;
const MB = 1024 * 1024;

/** The server in its own process; its env relaxes what would otherwise measure something else. */
const SERVER_ENV = {
  PUBLIC_ORIGIN: ORIGIN,
  LOG_LEVEL: 'error',
  RATE_LIMIT_AUTH_PER_MIN: '1000000',
  RATE_LIMIT_USER_PER_MIN: '1000000',
  // Load shedding counts an open SSE stream as a request in flight (see the notes).
  SHED_MAX_IN_FLIGHT: '0',
  SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
  // Opening 10,000 streams would otherwise be 10,000 fsync'd SQLite inserts of proof ids.
  DPOP_REPLAY_CACHE: 'memory',
  EVENTS_MAX_STREAMS_PER_ACCOUNT: String(Math.ceil(Math.max(IDLE_STREAMS, LIVE_CLIENTS) / ACCOUNTS)),
};

interface ServerStats {
  rss: number;
  heapUsed: number;
  streams: { streams: number; droppedSlowConsumers: number };
}

class ServerProcess {
  private child!: ChildProcess;
  private nextId = 1;
  port = 0;

  async start(): Promise<void> {
    const entry = fileURLToPath(new URL('./support/signals-server.ts', import.meta.url));
    this.child = fork(entry, [], { execArgv: ['--import', 'tsx', '--expose-gc'], env: { ...process.env, BENCH_ENV: JSON.stringify(SERVER_ENV) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // The server on its own core, like every other scenario's (a no-op without taskset).
    pin(this.child.pid!, SERVER_CORE);
    this.port = await new Promise<number>((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
      this.child.on('message', (m: { type?: string; port?: number }) => {
        if (m.type === 'ready') resolve(m.port!);
      });
    });
  }

  stats(): Promise<ServerStats> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const onMessage = (m: ServerStats & { id?: number }) => {
        if (m.id !== id) return;
        this.child.off('message', onMessage);
        resolve(m);
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'stats', id });
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' });
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (this.child.exitCode === null) this.child.kill();
  }
}

/** Runs fn over items, `concurrency` at a time. */
export async function pool<T>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        await fn(items[index]!, index);
      }
    }),
  );
}

export interface Stream {
  response: IncomingMessage;
  close(): void;
}

/** An SSE client: resolves once the opening block arrived; calls onSignal(kind) per signal, with the block it came in. */
export async function openStream(port: number, device: Device, onSignal: (kind: string, at: string | undefined, block: string) => void): Promise<Stream> {
  const proof = await device.key.proof('GET', ORIGIN + STREAM_PATH, { accessToken: device.tokens.access_token });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: STREAM_PATH, agent: false, headers: { accept: 'text/event-stream', authorization: `DPoP ${device.tokens.access_token}`, dpop: proof } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`stream answered ${response.statusCode}`));
          response.resume();
          return;
        }
        readSseBlocks(response, {
          opened: () => resolve({ response, close: () => response.destroy() }),
          signal: (kind, block) => onSignal(kind, /"at":"([^"]+)"/.exec(block)?.[1], block),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Account {
  device: Device;
  version: number;
  pending?: { t0: number; remaining: number; done: () => void };
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

export const signalsScenario: BenchScenario = {
  name: 'signals',
  description: `one node (SQLite, child process): latency with ${LIVE_CLIENTS.toLocaleString('en')} live SSE clients, RSS with ${IDLE_STREAMS.toLocaleString('en')} idle streams`,
  async run(progress) {
    const server = new ServerProcess();
    await server.start();
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const client = new TestClient(baseUrl, ORIGIN, { check() {} }, Date.now);
    const streams: Stream[] = [];
    try {
      progress(`signing up ${ACCOUNTS} accounts`);
      const accounts: Account[] = [];
      await pool(Array.from({ length: ACCOUNTS }, (_, i) => i), 8, async (i) => {
        const device = await client.signUp(`bench${process.pid}x${i}`, new SoftwareAuthenticator());
        accounts[i] = { device, version: 1 };
      });
      const empty = await server.stats();

      // Part 1: live latency. Each account has LIVE_CLIENTS / ACCOUNTS streams (its devices).
      progress(`opening ${LIVE_CLIENTS} live SSE streams`);
      const latencies: number[] = [];
      const sinceAt: number[] = [];
      let stray = 0;
      await pool(Array.from({ length: LIVE_CLIENTS }, (_, i) => i), 50, async (i) => {
        const account = accounts[i % ACCOUNTS]!;
        const stream = await openStream(server.port, account.device, (kind, at) => {
          const pending = account.pending;
          if (kind !== 'me.changed' || !pending) {
            stray++;
            return;
          }
          latencies.push(performance.now() - pending.t0);
          if (at) sinceAt.push(Date.now() - Date.parse(at));
          if (--pending.remaining === 0) pending.done();
        });
        streams.push(stream);
      });
      await waitFor(async () => (await server.stats()).streams.streams === LIVE_CLIENTS, 10_000, 'all live streams');
      const perAccount = LIVE_CLIENTS / ACCOUNTS;
      progress(`${WRITES} writes (PATCH /me), ${WRITERS} at a time, each fanned out to the account's ${perAccount} streams`);
      const writeTimes: number[] = [];
      let timedOut = 0;
      await pool(Array.from({ length: WRITES }, (_, i) => i), WRITERS, async (i) => {
        const account = accounts[i % ACCOUNTS]!;
        const delivered = new Promise<void>((done) => {
          account.pending = { t0: performance.now(), remaining: perAccount, done };
        });
        const res = await client.as(account.device, 'PATCH', '/api/v1/me', { body: { display_name: `bench ${i}` }, headers: { 'if-match': `"${account.version}"` } });
        writeTimes.push(performance.now() - account.pending!.t0);
        if (res.status !== 200) throw new Error(`PATCH /me ${res.status}: ${JSON.stringify(res.body)}`);
        account.version = res.body.version;
        const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5000));
        if ((await Promise.race([delivered, timer])) === 'timeout') timedOut++;
        account.pending = undefined;
      });
      for (const stream of streams.splice(0)) stream.close();
      await waitFor(async () => (await server.stats()).streams.streams === 0, 10_000, 'live streams to close');

      // Part 2: idle streams and memory.
      const before = await server.stats();
      progress(`opening ${IDLE_STREAMS} idle SSE streams`);
      const opening = performance.now();
      await pool(Array.from({ length: IDLE_STREAMS }, (_, i) => i), 100, async (i) => {
        streams.push(await openStream(server.port, accounts[i % ACCOUNTS]!.device, () => {}));
      });
      const openSeconds = (performance.now() - opening) / 1000;
      await waitFor(async () => (await server.stats()).streams.streams === IDLE_STREAMS, 20_000, 'all idle streams');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idle = await server.stats();
      const health: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await fetch(`${baseUrl}/health/live`).then((r) => r.arrayBuffer());
        health.push(performance.now() - t0);
      }

      return {
        metrics: { latencyP50: percentile(latencies, 50), latencyP99: percentile(latencies, 99), clients: LIVE_CLIENTS },
        rows: [
          ['live SSE clients / accounts', `${LIVE_CLIENTS} / ${ACCOUNTS} (${perAccount} per account)`],
          ['writes (PATCH /me), deliveries expected / received', `${WRITES}, ${WRITES * perAccount} / ${latencies.length}${timedOut ? ` (${timedOut} writes timed out)` : ''}${stray ? `, ${stray} unexpected` : ''}`],
          ['signal latency p50 (write sent -> client receipt)', ms(percentile(latencies, 50))],
          ['signal latency p99', ms(percentile(latencies, 99))],
          ['signal latency max', ms(Math.max(...latencies))],
          ['signal at -> client receipt p50 / p99', `${ms(percentile(sinceAt, 50))} / ${ms(percentile(sinceAt, 99))}`],
          ['PATCH /me response p50 / p99 (part of the above)', `${ms(percentile(writeTimes, 50))} / ${ms(percentile(writeTimes, 99))}`],
          ['server RSS, accounts only, no streams', mb(empty.rss)],
          ['server RSS before idle streams (after part 1)', mb(before.rss)],
          [`server RSS with ${IDLE_STREAMS.toLocaleString('en')} idle SSE streams`, mb(idle.rss)],
          ['RSS per idle stream', `${((idle.rss - before.rss) / IDLE_STREAMS / 1024).toFixed(1)} KB`],
          [`server heap used with ${IDLE_STREAMS.toLocaleString('en')} idle streams`, mb(idle.heapUsed)],
          ['time to open the idle streams (100 at a time)', `${openSeconds.toFixed(1)} s`],
          ['GET /health/live p50 with the idle streams open', ms(percentile(health, 50))],
        ],
        notes: [
          'Latency is measured by the client, from sending PATCH /me (its SQLite commit, fsync included) to each stream receiving the ' +
            'signal; "signal at -> receipt" starts at the change\'s own timestamp (taken in its transaction, before the commit; ms ' +
            'resolution). Client and server share the machine. Server env: ' +
            Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ') +
            '.',
        ],
      };
    } finally {
      for (const stream of streams) stream.close();
      await server.stop();
    }
  },
};
