// The address book (CardDAV, PRODUCT §9) for scenario m of bench/run.ts: a reader following
// 1,000 people syncs with no change since its token (m0) and with one change (m1), both with
// getetag and address-data as Thunderbird asks; and a reader following 5,000 people makes its
// first sync, every card with its vCard, while the server's memory is sampled (g). The people and
// their cards, subscriptions and change-log history are written straight into the service's
// SQLite file (WAL lets a second connection write while it runs): only the rows matter here.
import { randomUUID } from 'node:crypto';
import { STEP_UP_HEADER, stepUp } from '../test/helpers/step-up.js';
import type { GetDevice } from './lib/generator.js';
import { API, clientFor, create, expectStatus, signUpDevices, subscribe } from './lib/vid.js';
import type { BenchDevice } from './lib/vid.js';
import { insertPeople } from './lib/people.js';

export const DAV_SMALL = Number(process.env.BENCH_DAV_CONTACTS ?? 1000);
export const DAV_LARGE = Number(process.env.BENCH_DAV_LARGE ?? 5000);
const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const syncBody = (token: string) =>
  `<?xml version="1.0" encoding="utf-8"?><sync-collection xmlns="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><sync-token>${token}</sync-token><sync-level>1</sync-level><prop><getetag/><card:address-data/></prop></sync-collection>`;

export interface Reader {
  device: BenchDevice['device'];
  authorization: string;
  book: string;
}

/** An address-book password for `account` (POST /dav-tokens with a step-up), as a phone is set up with it. */
export async function davReader(port: number, account: BenchDevice): Promise<Reader> {
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
