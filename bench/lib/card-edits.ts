// What the card-edit scenarios share (k, bench/fanout.ts; s, bench/scale.ts): an owner whose
// profile shows one phone field, edits of it timed from the client (the proof signed before the
// clock starts), followers written straight into the database, and live SSE streams that time
// each contact.card.changed from the moment its edit was sent.
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { TestClient } from '../../test/helpers/client.js';
import { openStream, pool } from '../signals.js';
import type { Stream } from '../signals.js';
import { API, ORIGIN, create, expectStatus } from './vid.js';
import type { BenchDevice } from './vid.js';

/** Two valid numbers the edits alternate between, so every edit changes the card. */
export const PHONES = ['+49 30 22732152', '+49 30 22730'];

/** An owner whose profile shows one phone field, and that field's current version (for If-Match). */
export interface Owner {
  device: BenchDevice['device'];
  profileId: string;
  fieldId: string;
  version: number;
}

export const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

/** A profile showing one phone field, through the real API. */
export async function withPhone(client: TestClient, device: BenchDevice['device']): Promise<Owner> {
  const profileId = await create(client, device, '/profiles', { name: 'Friends' });
  const field = (await expectStatus(201, 'POST /me/fields', client.as(device, 'POST', `${API}/me/fields`, { body: { type: 'phone', value: PHONES[0] }, headers: { 'idempotency-key': randomUUID() } }))).body;
  await expectStatus(201, 'PUT exposure', client.as(device, 'PUT', `${API}/profiles/${profileId}/exposures/${field.id}`, { body: {} }));
  return { device, profileId, fieldId: field.id, version: field.version };
}

/**
 * One edit of the owner's phone (PATCH /me/fields/{id} with If-Match): the proof is signed
 * before the clock starts; `before` runs at the moment the request is sent. Returns when it was
 * sent and when its answer was read.
 */
export async function editPhone(client: TestClient, owner: Owner, value: string, before: (sent: number) => void = () => {}): Promise<{ sent: number; answered: number }> {
  const path = `${API}/me/fields/${owner.fieldId}`;
  const dpop = await owner.device.key.proof('PATCH', ORIGIN + path, { accessToken: owner.device.tokens.access_token });
  const sent = performance.now();
  before(sent);
  const res = await client.as(owner.device, 'PATCH', path, { body: { value }, headers: { 'if-match': `"${owner.version}"`, dpop } });
  const answered = performance.now();
  if (res.status !== 200) throw new Error(`PATCH ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  owner.version = res.body.version;
  return { sent, answered };
}

/**
 * Writes followers `from` to `to` - 1 (accounts and their active subscriptions to the owner's
 * profile) straight into the service's SQLite file, in one transaction with prepared statements
 * (WAL lets a second connection write while the service runs): the API would take minutes, and
 * only the rows matter to the fan-out. The numbers make the usernames, so an audience can grow.
 */
export function insertSubscribers(file: string, owner: Owner, to: number, from = 0): void {
  const db = new Database(file);
  try {
    // The service holds the write lock for a few milliseconds per batch of commits: wait for it.
    db.pragma('busy_timeout = 10000');
    const now = Date.now();
    const { region } = db.prepare('select region from accounts where id = ?').get(owner.device.accountId) as { region: string };
    const account = db.prepare('insert into accounts (id, username, username_canonical, username_skeleton, user_handle, region, version, created_at) values (?, ?, ?, ?, ?, ?, 1, ?)');
    const subscription = db.prepare("insert into subscriptions (id, owner_id, subscriber_id, profile_id, status, version, created_at, updated_at, card_since) values (?, ?, ?, ?, 'active', 1, ?, ?, ?)");
    db.transaction(() => {
      for (let i = from; i < to; i++) {
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

/** The deliveries the current edit is waiting for. */
interface Pending {
  sent: number;
  remaining: number;
  last: number;
  done: () => void;
}

/**
 * Live SSE streams, one per follower, that time each contact.card.changed from its edit's
 * sending. One edit at a time: arm() when it is sent, settle() waits for every stream's signal.
 */
export class LiveStreams {
  /** Edit sent → stream receipt, ms, every delivery. */
  readonly deliveries: number[] = [];
  /** Signals that came when no edit was waiting for them, or of another kind. */
  stray = 0;
  private readonly streams: Stream[] = [];
  private pending: Pending | undefined;

  get count(): number {
    return this.streams.length;
  }

  async open(port: number, followers: BenchDevice[], concurrency = 50): Promise<void> {
    await pool(followers, concurrency, async (f) => {
      this.streams.push(
        await openStream(port, f.device, (kind) => {
          const pending = this.pending;
          if (kind !== 'contact.card.changed' || !pending) {
            this.stray++;
            return;
          }
          const now = performance.now();
          this.deliveries.push(now - pending.sent);
          pending.last = now;
          if (--pending.remaining === 0) pending.done();
        }),
      );
    });
  }

  /** An edit was sent at `sent`: every stream is to receive its signal. Returns settle(). */
  arm(sent: number): (timeoutMs: number) => Promise<{ last: number } | 'timeout'> {
    const wait: Pending = { sent, remaining: this.streams.length, last: 0, done: () => {} };
    const delivered = new Promise<void>((resolve) => (wait.done = resolve));
    this.pending = wait;
    if (wait.remaining === 0) wait.done();
    return async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      const outcome = await Promise.race([delivered.then(() => ({ last: wait.last })), timeout]);
      clearTimeout(timer);
      this.pending = undefined;
      return outcome;
    };
  }

  close(): void {
    for (const stream of this.streams.splice(0)) stream.close();
  }
}
