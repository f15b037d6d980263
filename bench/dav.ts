// The address book (CardDAV, PRODUCT §9) for scenario m of bench/run.ts: a reader following
// 1,000 people syncs with no change since its token (m0) and with one change (m1), both with
// getetag and address-data as Thunderbird asks; and a reader following 5,000 people makes its
// first sync, every card with its vCard, while the server's memory is sampled (g). The people and
// their cards, subscriptions and change-log history are written straight into the service's
// SQLite file (WAL lets a second connection write while it runs): only the rows matter here.
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { cardContent, renderCard } from '../src/modules/profiles/card.js';
import { STEP_UP_HEADER, stepUp } from '../test/helpers/step-up.js';
import type { GetDevice } from './lib/generator.js';
import { API, clientFor, create, expectStatus, signUpDevices, subscribe } from './lib/vid.js';
import type { BenchDevice } from './lib/vid.js';

export const DAV_SMALL = Number(process.env.BENCH_DAV_CONTACTS ?? 1000);
export const DAV_LARGE = Number(process.env.BENCH_DAV_LARGE ?? 5000);
/** Past changes per card in the log, so a sync reads a log that has history, not an empty one. */
const HISTORY = 3;

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;
const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const syncBody = (token: string) =>
  `<?xml version="1.0" encoding="utf-8"?><sync-collection xmlns="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><sync-token>${token}</sync-token><sync-level>1</sync-level><prop><getetag/><card:address-data/></prop></sync-collection>`;

interface Reader {
  device: BenchDevice['device'];
  authorization: string;
  book: string;
}

async function davReader(port: number, account: BenchDevice): Promise<Reader> {
  const client = clientFor(port);
  const created = await expectStatus(201, 'POST /dav-tokens', client.as(account.device, 'POST', `${API}/dav-tokens`, {
    body: { label: 'bench' },
    headers: { 'idempotency-key': randomUUID(), [STEP_UP_HEADER]: await stepUp(client, account.device) },
  }));
  return { device: account.device, authorization: basic(created.body.username, created.body.secret), book: `/dav/addressbooks/${account.device.accountId}/following/` };
}

/** One sync-collection REPORT; the answer's status, size, members and token. */
export async function syncOnce(port: number, reader: Reader, token: string): Promise<{ status: number; bytes: number; members: number; token: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${reader.book}`, {
    method: 'REPORT',
    headers: { authorization: reader.authorization, depth: '1', 'content-type': 'application/xml; charset=utf-8' },
    body: syncBody(token),
  });
  const text = await res.text();
  return {
    status: res.status,
    bytes: Buffer.byteLength(text),
    members: text.split('<D:response>').length - 1,
    token: /<D:sync-token>([^<]+)<\/D:sync-token>/.exec(text)?.[1] ?? '',
    ms: performance.now() - started,
  };
}

/**
 * `count` people, each with one profile whose card shows a nickname, an email and a phone (the
 * card builder renders it, as the service would have), its history in the card-change log, and
 * an active subscription of each reader in `readers` (the first `limits[i]` people for reader i).
 */
function insertPeople(file: string, count: number, readers: Array<{ id: string; limit: number }>): void {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 10000');
    const now = Date.now();
    // A week ago: the people were followed long since (a subscriber's daily request limit counts the last day).
    const then = now - 7 * 86_400_000;
    const account = db.prepare('insert into accounts (id, username, username_canonical, username_skeleton, user_handle, region, version, created_at) values (?, ?, ?, ?, ?, ?, 1, ?)');
    const profile = db.prepare("insert into profiles (id, account_id, name, name_key, description, public, version, created_at, updated_at, card_json, card_hash, card_etag, card_updated_at) values (?, ?, 'Friends', 'friends', null, 0, 1, ?, ?, ?, ?, ?, ?)");
    const subscription = db.prepare("insert into subscriptions (id, owner_id, subscriber_id, profile_id, status, version, created_at, updated_at, card_since) values (?, ?, ?, ?, 'active', 1, ?, ?, ?)");
    const log = db.prepare('insert into card_change_log (seq, owner_id, profile_id, subscriber_id, changed_at) values (?, ?, ?, ?, ?)');
    db.transaction(() => {
      const { region } = db.prepare('select region from accounts where id = ?').get(readers[0]!.id) as { region: string };
      let seq = Number((db.prepare('select seq from card_change_log_head where id = 1').get() as { seq: number }).seq);
      for (let i = 0; i < count; i++) {
        const id = newId('acc');
        const username = `benchdavowner${process.pid}x${i}`;
        account.run(id, username, username, username, randomBytes(32).toString('base64url'), region, then);
        const field = (n: number, type: string, value: string, details: object) => ({ field_id: `fld_${i}x${n}`, label: null, position: n, type, field_label: null, country: type === 'phone' ? 'DE' : null, value: JSON.stringify(value), details: JSON.stringify(details) });
        const card = renderCard(
          cardContent({ username, display_name: `Person ${i}` }, [
            field(0, 'nickname', `Person number ${i}`, {}),
            field(1, 'email', `person${i}@example.org`, {}),
            field(2, 'phone', '+49 30 22732152', { e164: '+493022732152', uri: 'tel:+49-30-22732152', line_type: 'fixed_line' }),
          ]),
          then,
        );
        const profileId = newId('prf');
        profile.run(profileId, id, then, then, card.json, card.hash, card.etag, card.updatedAt);
        for (let h = 0; h < HISTORY; h++) log.run(++seq, id, profileId, null, then);
        for (const reader of readers) {
          if (i >= reader.limit) continue;
          subscription.run(newId('sub'), id, reader.id, profileId, then, then, then);
          log.run(++seq, id, null, reader.id, then);
        }
      }
      db.prepare('update card_change_log_head set seq = ? where id = 1').run(seq);
    })();
  } finally {
    db.close();
  }
}

export interface DavBench {
  /** m0: the 1,000-contact reader's sync with nothing changed since its token. */
  quiet: GetDevice;
  /** m1: the same reader's sync from the token before one of its people edited: one card answered. */
  oneChange: GetDevice;
  /** The 5,000-contact reader's first sync (empty token, every vCard). */
  initial(): ReturnType<typeof syncOnce>;
}

export async function setUpAddressBooks(port: number, sqlitePath: string, progress: (line: string) => void): Promise<DavBench> {
  const client = clientFor(port);
  progress(`signing up 2 readers and 1 person who edits; ${DAV_LARGE.toLocaleString('en')} people written to the database`);
  const [large, small, editor] = await signUpDevices(port, 3, 'benchdav');
  const [largeReader, smallReader] = [await davReader(port, large!), await davReader(port, small!)];
  insertPeople(sqlitePath, DAV_LARGE, [{ id: large!.device.accountId, limit: DAV_LARGE }, { id: small!.device.accountId, limit: DAV_SMALL - 1 }]);

  // The one who edits is a real account, followed through the API: the 1,000th contact.
  const profileId = await create(client, editor!.device, '/profiles', { name: 'Friends' });
  const field = (await expectStatus(201, 'POST /me/fields', client.as(editor!.device, 'POST', `${API}/me/fields`, { body: { type: 'nickname', value: 'Before' }, headers: { 'idempotency-key': randomUUID() } }))).body;
  await expectStatus(201, 'PUT exposure', client.as(editor!.device, 'PUT', `${API}/profiles/${profileId}/exposures/${field.id}`, { body: {} }));
  await subscribe(client, small!.device, editor!.device, profileId);

  const first = await syncOnce(port, smallReader, '');
  if (first.status !== 207 || first.members !== DAV_SMALL) throw new Error(`the ${DAV_SMALL}-contact book's first sync answered ${first.status} with ${first.members} cards`);
  await expectStatus(200, 'PATCH field', client.as(editor!.device, 'PATCH', `${API}/me/fields/${field.id}`, { body: { value: 'After' }, headers: { 'if-match': `"${field.version}"` } }));
  const after = await syncOnce(port, smallReader, first.token);
  if (after.members !== 1) throw new Error(`one edit answered ${after.members} cards`);
  const device = (token: string): GetDevice => ({
    method: 'REPORT',
    path: smallReader.book,
    headers: { Authorization: smallReader.authorization, Depth: '1', 'Content-Type': 'application/xml; charset=utf-8' },
    body: syncBody(token),
  });
  return { quiet: device(after.token), oneChange: device(first.token), initial: () => syncOnce(port, largeReader, '') };
}
