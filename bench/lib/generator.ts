// The load generator process (pinned to its own core by bench/run.ts). It receives one job at a
// time over IPC, pre-signs every DPoP proof the job needs before the clock starts, runs the load
// engine and answers with the statistics. Jobs:
// - get: GET with an access token and a fresh proof per request, or with neither (a public route)
//   (scenarios a, a2, b, c, h, i, two nodes); or, with neither, another method and a body as
//   given (a CardDAV REPORT with Basic auth, scenario m);
// - renew: refresh-token rotation chains, one session per connection (scenario e);
// - login: passkey login ceremonies, begin then finish, one authenticator per connection (scenario d);
// - edit: field edits (PATCH with If-Match), many owners, each edited by one connection at a time
//   (scenario o).
import { createPrivateKey } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import { SoftwareAuthenticator } from '../../test/helpers/authenticator.js';
import { runLoad } from './load.js';
import type { Next, Response, RunStats, Script, Target } from './load.js';
import { ProofSigner, accessTokenHash } from './proofs.js';

export interface SerialisedCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKeyPem: string;
  counter: number;
}

interface JobBase {
  targets: Target[];
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Host header sent (the peer derives the expected htu from it). */
  host: string;
  path: string;
  /** The htu the proofs carry. */
  htu: string;
  /** Requests a second expected in the warm-up (sizes its proof pool; the measured run is sized from the warm-up). */
  expectedRate: number;
  /** The one status that counts as success (304 when revalidating); default any 2xx. */
  expectStatus?: number;
  /**
   * GET only: count each target's responses as a step of its own (step i = targets[i]), so
   * servers loaded side by side on one core are compared under the same moment's machine speed.
   * Connection c goes to target c % targets.length with device c % devices.length: interleave the
   * devices to match.
   */
  splitByTarget?: boolean;
}

/**
 * Who sends a GET: a DPoP-bound token (key and access token), or nobody (no key: a public route,
 * no Authorization, no DPoP). `path` is the device's own resource (its profile, its card) instead
 * of the job's, and its proofs' htu follows it; `headers` are sent as given (If-None-Match).
 */
export interface GetDevice {
  key?: JsonWebKey;
  accessToken?: string;
  path?: string;
  headers?: Record<string, string>;
  /** Without a key: the method (default GET) and the body sent, the same bytes every time. */
  method?: string;
  body?: string;
}

/**
 * An owner whose field the edit job changes: PATCH `path` with If-Match on `version`, the value
 * alternating through `values` (the field holds values[edits % length] now), so every edit
 * changes the card.
 */
export interface EditDevice {
  key: JsonWebKey;
  accessToken: string;
  path: string;
  version: number;
  values: string[];
  edits: number;
}

export type Job =
  | (JobBase & { kind: 'get'; devices: GetDevice[] })
  | (JobBase & { kind: 'edit'; devices: EditDevice[] })
  | (JobBase & { kind: 'renew'; devices: Array<{ key: JsonWebKey; refreshToken: string }> })
  | (JobBase & { kind: 'login'; finishPath: string; finishHtu: string; origin: string; devices: Array<{ key: JsonWebKey; credential: SerialisedCredential }> });

export interface StepSummary {
  ok: number;
  failed: number;
  rate: number;
  statuses: Record<string, number>;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  samples: string[];
}

export interface JobResult {
  seconds: number;
  steps: StepSummary[];
  warmupRate: number;
  socketErrors: number;
  reconnects: number;
  generatorCpu: number;
  /** Proofs signed during the measured run because the pre-signed pool ran dry (should be 0). */
  inlineSigned: number;
  proofsSigned: number;
  signSeconds: number;
  /** The devices as they are after the run (rotated refresh tokens, authenticator counters), for the next run. */
  devices: Job['devices'];
}

function percentileOf(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarise(stats: RunStats): StepSummary[] {
  return stats.steps.map((step) => {
    const sorted = Float64Array.from(step.latencies).sort();
    const list = Array.from(sorted);
    return {
      ok: step.ok,
      failed: step.failed,
      rate: step.ok / stats.seconds,
      statuses: step.statuses,
      p50: percentileOf(list, 50),
      p90: percentileOf(list, 90),
      p99: percentileOf(list, 99),
      max: list.length ? list[list.length - 1]! : Number.NaN,
      samples: step.samples,
    };
  });
}

const HEAD = (method: string, path: string, host: string) => `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: vid-bench\r\nAccept: application/json\r\n`;

function jsonRequest(head: string, proof: string, body: string): Buffer {
  return Buffer.from(`${head}DPoP: ${proof}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, 'latin1');
}

/** Per-connection pools of pre-signed proofs, refilled inline only if a pool runs dry. Connections without a signer get none. */
class ProofPools {
  inline = 0;
  signed = 0;
  private pools: string[][] = [];
  private used: number[] = [];

  constructor(
    private readonly signers: Array<ProofSigner | undefined>,
    private readonly make: (signer: ProofSigner, connection: number) => string,
  ) {}

  /** Signs `perConnection` proofs for each of `connections`; returns seconds spent. */
  fill(connections: number, perConnection: number): number {
    const t0 = performance.now();
    this.pools = [];
    this.used = [];
    for (let c = 0; c < connections; c++) {
      const signer = this.signers[c % this.signers.length];
      const pool = new Array<string>(signer ? perConnection : 0);
      for (let i = 0; i < pool.length; i++) pool[i] = this.make(signer!, c);
      this.pools.push(pool);
      this.used.push(0);
      this.signed += pool.length;
    }
    return (performance.now() - t0) / 1000;
  }

  next(connection: number): string {
    const pool = this.pools[connection]!;
    const i = this.used[connection]!++;
    if (i < pool.length) return pool[i]!;
    this.inline++;
    return this.make(this.signers[connection % this.signers.length]!, connection);
  }
}

async function run(job: Job, mark: (phase: 'start' | 'end') => void): Promise<JobResult> {
  const signers = job.devices.map((d) => (d.key ? new ProofSigner(d.key) : undefined));
  let pools: ProofPools;
  let makeScript: (connection: number) => Script;
  let steps = 1;
  let counted = 0;
  let devicesAfter: () => Job['devices'] = () => job.devices;
  /** Proof pools: one per connection, or per owner (edit). */
  let slots = job.connections;

  if (job.kind === 'get') {
    const requests = job.devices.map((d) => {
      const auth = d.accessToken ? `Authorization: DPoP ${d.accessToken}\r\n` : '';
      const extra = Object.entries(d.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      const length = d.body === undefined ? '' : `Content-Length: ${Buffer.byteLength(d.body)}\r\n`;
      return {
        head: `${HEAD(d.method ?? 'GET', d.path ?? job.path, job.host)}${auth}${extra}${length}`,
        body: d.body ?? '',
        htu: d.path ? new URL(d.path, job.htu).href : job.htu,
        ath: d.accessToken ? accessTokenHash(d.accessToken) : undefined,
      };
    });
    pools = new ProofPools(signers, (signer, c) => {
      const { htu, ath } = requests[c % requests.length]!;
      return signer.sign('GET', htu, ath);
    });
    if (job.splitByTarget) steps = job.targets.length;
    makeScript = (c) => {
      const { head, body } = requests[c % requests.length]!;
      const step = job.splitByTarget ? c % job.targets.length : 0;
      if (!signers[c % signers.length]) {
        // No proof, so every request is the same bytes: one buffer, written again and again.
        const request = Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), Buffer.from(body, 'utf8')]);
        return () => ({ request, step });
      }
      return () => ({ request: Buffer.from(`${head}DPoP: ${pools.next(c)}\r\n\r\n`, 'latin1'), step });
    };
  } else if (job.kind === 'renew') {
    const head = HEAD('POST', job.path, job.host);
    const tokens = job.devices.map((d) => d.refreshToken);
    pools = new ProofPools(signers, (signer) => signer.sign('POST', job.htu));
    devicesAfter = () => job.devices.map((d, i) => ({ ...d, refreshToken: tokens[i]! }));
    makeScript = (c) => {
      const device = c % job.devices.length;
      return (last) => {
        if (last) {
          // A broken chain (a refused renewal) ends this connection: its session is gone.
          if (last.status !== 200) return null;
          tokens[device] = (JSON.parse(last.body.toString('utf8')) as { refresh_token: string }).refresh_token;
        }
        return { request: jsonRequest(head, pools.next(c), JSON.stringify({ refresh_token: tokens[device] })), step: 0, keepBody: true };
      };
    };
  } else if (job.kind === 'edit') {
    // Proofs per owner (each carries its owner's htu and token hash): a pool per owner, not per connection.
    const owners = job.devices.map((d) => ({ ...d, htu: new URL(d.path, job.htu).href, ath: accessTokenHash(d.accessToken), broken: false }));
    pools = new ProofPools(signers, (signer, o) => signer.sign('PATCH', owners[o]!.htu, owners[o]!.ath));
    slots = owners.length;
    devicesAfter = () => owners.map(({ key, accessToken, path, version, values, edits }) => ({ key, accessToken, path, version, values, edits }));
    makeScript = (c) => {
      // Connection c edits owners c, c + connections, ... in turn: one edit of an owner in flight at a time.
      const mine = owners.map((_, o) => o).filter((o) => o % job.connections === c);
      let turn = 0;
      let current = -1;
      return (last) => {
        if (last && current >= 0) {
          const owner = owners[current]!;
          if (last.status === 200) {
            owner.version = (JSON.parse(last.body.toString('utf8')) as { version: number }).version;
            owner.edits++;
          } else if (last.status === 412 || (last.status >= 400 && last.status < 500 && last.status !== 429)) {
            // Its version is no longer known (or the edit is refused for good): leave this owner be.
            owner.broken = true;
          }
        }
        const open = mine.filter((o) => !owners[o]!.broken);
        if (!open.length) return null;
        current = open[turn++ % open.length]!;
        const owner = owners[current]!;
        const head = `${HEAD('PATCH', owner.path, job.host)}Authorization: DPoP ${owner.accessToken}\r\nIf-Match: "${owner.version}"\r\n`;
        const body = JSON.stringify({ value: owner.values[(owner.edits + 1) % owner.values.length] });
        return { request: jsonRequest(head, pools.next(current), body), step: 0, keepBody: true };
      };
    };
  } else {
    steps = 2;
    counted = 1;
    const begin = Buffer.from(`${HEAD('POST', job.path, job.host)}Content-Length: 0\r\n\r\n`, 'latin1');
    const finishHead = HEAD('POST', job.finishPath, job.host);
    const authenticators = job.devices.map((d) => {
      const authenticator = new SoftwareAuthenticator();
      const { privateKeyPem, ...rest } = d.credential;
      authenticator.credentials.push({ ...rest, privateKey: createPrivateKey(privateKeyPem) });
      return authenticator;
    });
    pools = new ProofPools(signers, (signer) => signer.sign('POST', job.finishHtu));
    devicesAfter = () => job.devices.map((d, i) => ({ ...d, credential: { ...d.credential, counter: authenticators[i]!.credentials[0]!.counter } }));
    makeScript = (c) => {
      const authenticator = authenticators[c % authenticators.length]!;
      return async (last: Response | undefined, lastStep: number): Promise<Next> => {
        if (!last || lastStep === 1 || last.status !== 200) return { request: begin, step: 0, keepBody: true };
        const started = JSON.parse(last.body.toString('utf8')) as { ceremony_id: string; options: never };
        const credential = await authenticator.getAssertion(started.options, job.origin);
        return { request: jsonRequest(finishHead, pools.next(c), JSON.stringify({ ceremony_id: started.ceremony_id, credential })), step: 1, keepBody: false };
      };
    };
  }

  // Warm-up: a pool sized from the expected rate; its measured rate sizes the real run's pool.
  let signSeconds = pools.fill(slots, Math.ceil((job.expectedRate * job.warmupSeconds * 1.2) / slots) + 2);
  const warm = await runLoad({ targets: job.targets, connections: job.connections, warmupSeconds: 0, durationSeconds: job.warmupSeconds, steps, script: makeScript, expectStatus: job.expectStatus });
  // Side by side, the pool serves every target's connections: size it from all of them.
  const warmupRate = (job.kind === 'get' && job.splitByTarget ? warm.steps.reduce((sum, step) => sum + step.ok, 0) : warm.steps[counted]!.ok) / job.warmupSeconds;
  const ramp = 0.5;
  // A cold server's warm-up understates what it does warm: half again on top, or the caller's estimate.
  const poolRate = Math.max(warmupRate * 1.6, job.expectedRate * 1.3, 50);
  signSeconds += pools.fill(slots, Math.ceil((poolRate * (job.durationSeconds + ramp)) / slots) + 5);
  pools.inline = 0;
  const stats = await runLoad({ targets: job.targets, connections: job.connections, warmupSeconds: ramp, durationSeconds: job.durationSeconds, steps, script: makeScript, expectStatus: job.expectStatus, onWindow: mark });
  return {
    seconds: stats.seconds,
    steps: summarise(stats),
    warmupRate,
    socketErrors: stats.socketErrors,
    reconnects: stats.reconnects,
    generatorCpu: stats.generatorCpu,
    inlineSigned: pools.inline,
    proofsSigned: pools.signed,
    signSeconds,
    devices: devicesAfter(),
  };
}

process.on('message', (message: { type: 'job'; id: number; job: Job } | { type: 'exit' }) => {
  if (message.type === 'exit') process.exit(0);
  const { id } = message;
  run(message.job, (phase) => process.send!({ type: 'mark', id, phase })).then(
    (result) => process.send!({ type: 'result', id, result }),
    (error: Error) => process.send!({ type: 'error', id, error: String(error?.stack ?? error) }),
  );
});
process.send!({ type: 'ready' });
