// The day-in-the-life player (bench/day.ts), a process of its own on the load core like the load
// generator: it holds the population's live SSE streams and plays its habits open-loop, each kind
// of event arriving as a Poisson process at the rate the day-step asks (bench/lib/day-habits.ts),
// whatever the server's answers take, so a slow server meets a growing queue as it would in life.
// Every request is timed from its sending to its last byte, by class; one counts when it was sent
// inside the measured window (answered or not: an answer that never came is a failure).
//
// The population is played by a pool of real accounts (actors), each standing for many people:
// its requests, tokens, card ETags, field version and address-book token are kept here and move
// with the answers (a renewal's new refresh token, a changed card's new ETag, a sync's new token).
// Proofs are signed as each request goes (ES256, a fresh jti): the rates here are far below what
// pre-signing is for, and the player's own CPU is reported with every step.
import { createPrivateKey } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { SoftwareAuthenticator } from '../../test/helpers/authenticator.js';
import type { SerialisedCredential } from './generator.js';
import type { Target } from './load.js';
import { PHONES } from './card-edits.js';
import { CARDS_PER_OPEN, CLASSES } from './day-habits.js';
import type { DayRates, RequestClass } from './day-habits.js';
import { ProofSigner, accessTokenHash } from './proofs.js';
import { readSseBlocks } from './sse-blocks.js';

export interface PlayerActor {
  key: JsonWebKey;
  accessToken: string;
  /** A second session of the account, renewed again and again (a renewal replaces its access token). */
  renewKey: JsonWebKey;
  refreshToken: string;
  credential: SerialisedCredential;
  /** The contacts' cards the app revalidates, with the ETag last seen. */
  cards: Array<{ path: string; etag: string }>;
  /** The phone field the actor edits, and its version for If-Match. */
  field: { id: string; version: number };
  /** The address book: Basic credentials, its URL and the sync token (= CTag) last seen. */
  dav: { authorization: string; book: string; token: string };
}

export interface PlayerSetup {
  targets: Target[];
  host: string;
  origin: string;
  actors: PlayerActor[];
  /** Who holds each stream: an index into actors, or past them into onlookers. */
  onlookers: Array<{ key: JsonWebKey; accessToken: string }>;
}

export interface ClassStats {
  sent: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  samples: string[];
}

export interface StepOutcome {
  seconds: number;
  classes: Record<RequestClass, ClassStats>;
  /** Every answered request of the window, whatever its class. */
  all: { ok: number; p50: number; p99: number };
  /** Events that found every actor busy with the same kind (renewal, edit, login) and were dropped. */
  skipped: Record<string, number>;
  /** Actors whose renewal chain is broken (by a renewal that failed in this step or before). */
  brokenRenewals: number;
  /** Card revalidations answered 304 / answered 200 (changed since last seen). */
  cards304: number;
  cards200: number;
  /** Signals the streams received in the window, by kind. */
  signals: Record<string, number>;
  streamsOpen: number;
  /** The player's CPU in the window, % of one core. */
  playerCpu: number;
}

const STREAM_PATH = '/api/v1/events/stream';
const PROPFIND_CTAG = '<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:" xmlns:cs="http://calendarserver.org/ns/"><prop><cs:getctag/></prop></propfind>';
const syncBody = (token: string) =>
  `<?xml version="1.0" encoding="utf-8"?><sync-collection xmlns="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><sync-token>${token}</sync-token><sync-level>1</sync-level><prop><getetag/><card:address-data/></prop></sync-collection>`;

let setup: PlayerSetup;
let agents: Agent[] = [];
let actorSigners: ProofSigner[] = [];
let renewSigners: ProofSigner[] = [];
let onlookerSigners: ProofSigner[] = [];
let authenticators: SoftwareAuthenticator[] = [];
/** Edits made per actor (which of PHONES its field holds). */
let edits: number[] = [];
/** Actors whose renewal chain a failed renewal broke (see renew()). */
const brokenRenewals = new Set<number>();
const busy = { renew: new Set<number>(), edit: new Set<number>(), login: new Set<number>(), sync: new Set<number>() };
let nextTarget = 0;

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One request on a keep-alive connection to the next target; resolves with the whole answer. */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const t = nextTarget++ % setup.targets.length;
  const target = setup.targets[t]!;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.host, port: target.port, method, path, agent: agents[t], headers: { host: setup.host, 'user-agent': 'vid-bench-day', ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// Statistics of the step in progress.

interface Recording {
  from: number;
  to: number;
  latencies: Map<RequestClass, number[]>;
  stats: Map<RequestClass, { sent: number; ok: number; failed: number; statuses: Record<string, number>; samples: string[] }>;
  pending: Set<Promise<unknown>>;
  skipped: Record<string, number>;
  cards304: number;
  cards200: number;
  signals: Record<string, number>;
}
let recording: Recording | undefined;

function newRecording(from: number, to: number): Recording {
  return {
    from,
    to,
    latencies: new Map(CLASSES.map((c) => [c, []])),
    stats: new Map(CLASSES.map((c) => [c, { sent: 0, ok: 0, failed: 0, statuses: {}, samples: [] }])),
    pending: new Set(),
    skipped: {},
    cards304: 0,
    cards200: 0,
    signals: {},
  };
}

/**
 * Times one request of `klass`: counted when sent inside the window; `ok` decides from the
 * answer. Returns the answer (or undefined when it failed to arrive).
 */
async function timed(klass: RequestClass, call: () => Promise<Answer>, ok: (a: Answer) => boolean = (a) => a.status >= 200 && a.status < 300): Promise<Answer | undefined> {
  const rec = recording;
  const sent = performance.now();
  const counted = rec && sent >= rec.from && sent < rec.to;
  const st = counted ? rec.stats.get(klass)! : undefined;
  if (st) st.sent++;
  const promise = call();
  if (counted) {
    rec.pending.add(promise);
    void promise.catch(() => {}).finally(() => rec.pending.delete(promise));
  }
  try {
    const answer = await promise;
    if (st) {
      st.statuses[answer.status] = (st.statuses[answer.status] ?? 0) + 1;
      if (ok(answer)) {
        st.ok++;
        rec!.latencies.get(klass)!.push(performance.now() - sent);
      } else {
        st.failed++;
        if (st.samples.length < 3) st.samples.push(`${answer.status} ${answer.body.slice(0, 300)}`);
      }
    }
    return answer;
  } catch (error) {
    if (st) {
      st.failed++;
      if (st.samples.length < 3) st.samples.push(String(error));
    }
    return undefined;
  }
}

const authorized = (signer: ProofSigner, token: string, method: string, path: string) => ({
  authorization: `DPoP ${token}`,
  dpop: signer.sign(method, setup.origin + path.split('?')[0], accessTokenHash(token)),
});

/** An actor not busy with `what`, starting from a random one; undefined when all are. */
function freeActor(what: keyof typeof busy): number | undefined {
  const n = setup.actors.length;
  const start = Math.floor(Math.random() * n);
  for (let i = 0; i < n; i++) {
    const a = (start + i) % n;
    if (!busy[what].has(a) && !(what === 'renew' && brokenRenewals.has(a))) return a;
  }
  if (recording) recording.skipped[what] = (recording.skipped[what] ?? 0) + 1;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The habits.

async function openApp(): Promise<void> {
  const a = Math.floor(Math.random() * setup.actors.length);
  const actor = setup.actors[a]!;
  const signer = actorSigners[a]!;
  await timed('me', () => send('GET', '/api/v1/me', { accept: 'application/json', ...authorized(signer, actor.accessToken, 'GET', '/api/v1/me') }));
  const cards = [...actor.cards].sort(() => Math.random() - 0.5).slice(0, CARDS_PER_OPEN);
  const churn = reopenStream();
  await Promise.all(
    cards.map(async (card) => {
      const answer = await timed(
        'card',
        () => send('GET', card.path, { accept: 'application/json', 'if-none-match': card.etag, ...authorized(signer, actor.accessToken, 'GET', card.path) }),
        (r) => r.status === 304 || r.status === 200,
      );
      if (answer?.status === 200) {
        card.etag = String(answer.headers.etag ?? card.etag);
        if (recording) recording.cards200++;
      } else if (answer?.status === 304 && recording) recording.cards304++;
    }),
  );
  await churn;
}

async function renew(): Promise<void> {
  const a = freeActor('renew');
  if (a === undefined) return;
  busy.renew.add(a);
  const actor = setup.actors[a]!;
  const path = '/api/v1/auth/token/renew';
  try {
    const answer = await timed('renew', () =>
      send('POST', path, { accept: 'application/json', 'content-type': 'application/json', dpop: renewSigners[a]!.sign('POST', setup.origin + path) }, JSON.stringify({ refresh_token: actor.refreshToken })),
    );
    if (answer?.status === 200) actor.refreshToken = (JSON.parse(answer.body) as { refresh_token: string }).refresh_token;
    // A renewal answered late or not at all may have rotated the token: presenting the old one again
    // would be a reuse, and end the session. That actor renews no more.
    else brokenRenewals.add(a);
  } finally {
    busy.renew.delete(a);
  }
}

async function edit(): Promise<void> {
  const a = freeActor('edit');
  if (a === undefined) return;
  busy.edit.add(a);
  const actor = setup.actors[a]!;
  const path = `/api/v1/me/fields/${actor.field.id}`;
  try {
    // The field starts as PHONES[0]; each edit takes the other number, so every edit changes the card.
    const value = PHONES[(edits[a]! + 1) % PHONES.length]!;
    const answer = await timed('edit', () =>
      send('PATCH', path, { accept: 'application/json', 'content-type': 'application/json', 'if-match': `"${actor.field.version}"`, ...authorized(actorSigners[a]!, actor.accessToken, 'PATCH', path) }, JSON.stringify({ value })),
    );
    if (answer?.status === 200) {
      actor.field.version = (JSON.parse(answer.body) as { version: number }).version;
      edits[a]!++;
    } else {
      // An edit the server may have made all the same (answered late, or lost): read the field
      // again (not timed), so the actor's next edit names its version.
      const field = await send('GET', path, { accept: 'application/json', ...authorized(actorSigners[a]!, actor.accessToken, 'GET', path) }).catch(() => undefined);
      if (field?.status === 200) {
        const { version, value } = JSON.parse(field.body) as { version: number; value: unknown };
        const digits = (v: unknown) => String(v).replace(/\D/g, '');
        actor.field.version = version;
        edits[a] = digits(value) === digits(PHONES[0]) ? 0 : 1;
      }
    }
  } finally {
    busy.edit.delete(a);
  }
}

async function login(): Promise<void> {
  const a = freeActor('login');
  if (a === undefined) return;
  busy.login.add(a);
  try {
    const begin = await timed('login-begin', () => send('POST', '/api/v1/auth/login/begin', { accept: 'application/json', 'content-length': '0' }));
    if (begin?.status !== 200) return;
    const started = JSON.parse(begin.body) as { ceremony_id: string; options: never };
    const credential = await authenticators[a]!.getAssertion(started.options, setup.origin);
    const path = '/api/v1/auth/login/finish';
    // A new device: a key of its own would be the same work for the server; the actor's renewal key stands in.
    await timed('login-finish', () =>
      send('POST', path, { accept: 'application/json', 'content-type': 'application/json', dpop: renewSigners[a]!.sign('POST', setup.origin + path) }, JSON.stringify({ ceremony_id: started.ceremony_id, credential })),
    );
  } finally {
    busy.login.delete(a);
  }
}

let nextPoller = 0;
async function pollCtag(): Promise<void> {
  const a = nextPoller++ % setup.actors.length;
  const { dav } = setup.actors[a]!;
  const answer = await timed(
    'ctag',
    () => send('PROPFIND', dav.book, { authorization: dav.authorization, depth: '0', 'content-type': 'application/xml; charset=utf-8' }, PROPFIND_CTAG),
    (r) => r.status === 207,
  );
  const ctag = answer && /getctag[^>]*>([^<]+)</.exec(answer.body)?.[1];
  if (!ctag || ctag === dav.token || busy.sync.has(a)) return;
  busy.sync.add(a);
  try {
    const synced = await timed(
      'sync',
      () => send('REPORT', dav.book, { authorization: dav.authorization, depth: '1', 'content-type': 'application/xml; charset=utf-8' }, syncBody(dav.token)),
      (r) => r.status === 207,
    );
    const token = synced && /<D:sync-token>([^<]+)<\/D:sync-token>/.exec(synced.body)?.[1];
    if (token) dav.token = token;
  } finally {
    busy.sync.delete(a);
  }
}

// ---------------------------------------------------------------------------------------------
// Live streams.

interface Stream {
  holder: number;
  request: ClientRequest;
}
const streams: Stream[] = [];
let streamFailures: string[] = [];

function holderOf(index: number): { signer: ProofSigner; token: string } {
  const actors = setup.actors.length;
  return index < actors ? { signer: actorSigners[index]!, token: setup.actors[index]!.accessToken } : { signer: onlookerSigners[index - actors]!, token: setup.onlookers[index - actors]!.accessToken };
}

/** Opens one SSE stream for `holder`; resolves once its opening block (retry:) arrived. */
function openStream(holder: number): Promise<Answer> {
  const { signer, token } = holderOf(holder);
  const target = setup.targets[nextTarget++ % setup.targets.length]!;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.host, port: target.port, path: STREAM_PATH, agent: false, headers: { host: setup.host, accept: 'text/event-stream', ...authorized(signer, token, 'GET', STREAM_PATH) } },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
          return;
        }
        readSseBlocks(res, {
          opened() {
            streams.push({ holder, request: req });
            resolve({ status: 200, headers: res.headers, body: '' });
          },
          signal(kind) {
            if (recording && performance.now() >= recording.from && performance.now() < recording.to) recording.signals[kind] = (recording.signals[kind] ?? 0) + 1;
          },
        });
        res.on('close', () => {
          const at = streams.findIndex((s) => s.request === req);
          if (at >= 0) streams.splice(at, 1);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** An app opening: one stream (a past opening's) closes, a new one opens for its holder. */
async function reopenStream(): Promise<void> {
  if (!streams.length) return;
  const old = streams[Math.floor(Math.random() * streams.length)]!;
  old.request.destroy();
  await timed('stream', () => openStream(old.holder), (r) => r.status === 200);
}

/** Brings the open streams to `plan` (plan[i]: who holds stream i), a few at a time. */
async function setStreams(plan: number[]): Promise<{ open: number; failed: number; samples: string[] }> {
  streamFailures = [];
  while (streams.length > plan.length) streams.pop()!.request.destroy();
  let next = streams.length;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < plan.length) {
        const holder = plan[next++]!;
        const answer = await openStream(holder).catch((error: Error) => ({ status: 0, body: String(error) }) as Answer);
        if (answer.status !== 200) {
          failed++;
          if (streamFailures.length < 3) streamFailures.push(`${answer.status} ${answer.body.slice(0, 200)}`);
        }
      }
    }),
  );
  return { open: streams.length, failed, samples: streamFailures };
}

// ---------------------------------------------------------------------------------------------
// A day-step.

function percentileOf(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Arrival times (ms from the step's start) of a Poisson process of `rate` a second over `seconds`. */
function arrivals(rate: number, seconds: number): number[] {
  const out: number[] = [];
  if (!(rate > 0)) return out;
  for (let t = -Math.log(1 - Math.random()) / rate; t < seconds; t += -Math.log(1 - Math.random()) / rate) out.push(t * 1000);
  return out;
}

async function step(rates: DayRates, warmupSeconds: number, durationSeconds: number, mark: (phase: 'start' | 'end') => void): Promise<StepOutcome> {
  const total = warmupSeconds + durationSeconds;
  const actions: Record<string, () => Promise<void>> = { open: openApp, renew, edit, login, ctag: pollCtag };
  const events: Array<{ at: number; run: () => Promise<void> }> = [];
  for (const [kind, run] of Object.entries(actions)) for (const at of arrivals(rates[kind as keyof DayRates], total)) events.push({ at, run });
  events.sort((x, y) => x.at - y.at);

  const start = performance.now();
  const rec = newRecording(start + warmupSeconds * 1000, start + total * 1000);
  recording = rec;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let cpu: NodeJS.CpuUsage | undefined;
  const startTimer = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
    mark('start');
  }, warmupSeconds * 1000);
  const endTimer = setTimeout(() => {
    cpu = process.cpuUsage(cpuAtStart);
    mark('end');
  }, total * 1000);

  const running = new Set<Promise<void>>();
  let i = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now() - start;
      while (i < events.length && events[i]!.at <= now) {
        const p = events[i++]!.run().catch(() => {});
        running.add(p);
        void p.finally(() => running.delete(p));
      }
      if (i >= events.length) return resolve();
      setTimeout(tick, Math.max(0, events[i]!.at - (performance.now() - start)));
    };
    tick();
  });
  // The window's requests get a few seconds more to be answered; after that they count as failed.
  const until = rec.to + 5000;
  while (performance.now() < rec.to || (rec.pending.size && performance.now() < until)) await new Promise((resolve) => setTimeout(resolve, 20));
  clearTimeout(startTimer);
  clearTimeout(endTimer);
  if (!cpu) {
    cpu = process.cpuUsage(cpuAtStart);
    mark('end');
  }
  recording = undefined;

  const classes = {} as Record<RequestClass, ClassStats>;
  for (const klass of CLASSES) {
    const st = rec.stats.get(klass)!;
    // Sent in the window and still unanswered: failures.
    const unanswered = st.sent - st.ok - st.failed;
    if (unanswered > 0) {
      st.failed += unanswered;
      st.samples.push(`${unanswered} unanswered 5 s after the window`);
    }
    const sorted = rec.latencies.get(klass)!.sort((x, y) => x - y);
    classes[klass] = { ...st, p50: percentileOf(sorted, 50), p99: percentileOf(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
  }
  const pooled = CLASSES.flatMap((k) => rec.latencies.get(k)!).sort((x, y) => x - y);
  return {
    seconds: durationSeconds,
    classes,
    all: { ok: pooled.length, p50: percentileOf(pooled, 50), p99: percentileOf(pooled, 99) },
    skipped: rec.skipped,
    brokenRenewals: brokenRenewals.size,
    cards304: rec.cards304,
    cards200: rec.cards200,
    signals: rec.signals,
    streamsOpen: streams.length,
    playerCpu: ((cpu.user + cpu.system) / 1000 / (durationSeconds * 1000)) * 100,
  };
}

type Message = { id: number } & ({ type: 'setup'; setup: PlayerSetup } | { type: 'streams'; plan: number[] } | { type: 'step'; rates: DayRates; warmupSeconds: number; durationSeconds: number } | { type: 'state' });

async function handle(message: Message): Promise<unknown> {
  switch (message.type) {
    case 'setup': {
      setup = message.setup;
      // Idle sockets close on this side first (the service keeps them 72 s), so none is reused as the server closes it.
      agents = setup.targets.map(() => new Agent({ keepAlive: true, maxSockets: 512, timeout: 30_000 }));
      actorSigners = setup.actors.map((a) => new ProofSigner(a.key));
      edits = setup.actors.map(() => 0);
      renewSigners = setup.actors.map((a) => new ProofSigner(a.renewKey));
      onlookerSigners = setup.onlookers.map((o) => new ProofSigner(o.key));
      authenticators = setup.actors.map((a) => {
        const authenticator = new SoftwareAuthenticator();
        const { privateKeyPem, ...rest } = a.credential;
        authenticator.credentials.push({ ...rest, privateKey: createPrivateKey(privateKeyPem) });
        return authenticator;
      });
      return { actors: setup.actors.length };
    }
    case 'streams':
      return setStreams(message.plan);
    case 'step':
      return step(message.rates, message.warmupSeconds, message.durationSeconds, (phase) => process.send!({ type: 'mark', id: message.id, phase }));
    case 'state':
      return { streams: streams.length };
  }
}

process.on('message', (message: Message | { type: 'exit' }) => {
  if (message.type === 'exit') {
    for (const s of streams.splice(0)) s.request.destroy();
    process.exit(0);
  }
  handle(message).then(
    (result) => process.send!({ type: 'result', id: message.id, result }),
    (error: Error) => process.send!({ type: 'error', id: message.id, error: String(error?.stack ?? error) }),
  );
});
process.send!({ type: 'ready' });
