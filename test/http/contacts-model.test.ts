// The promise of the product (PRODUCT §4): a subscriber sees exactly the card of the profile the
// owner chose, nothing else, and is told exactly when that card changes. A property-based test
// drives random sequences of field edits, exposures, approvals, moves, revocations and name
// changes through the real API and compares, after every step, each subscriber's card and the
// contact.card.changed signals they received with what a small model says; and each
// subscriber's address book (PRODUCT §9), kept by one CardDAV sync after every step, with what
// GET /contacts/{id}/vcard shows the same subscriber: the same cards, the same tags, a card
// answered exactly when it changed, and a 404 member at the sync after it went. And each
// subscriber's list with include=card: every contact carrying exactly the single card answer.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { CARDDAV, DAV, bookPaths, clark, dav, davLogin, readMultistatus, syncBody } from '../helpers/address-book.js';
import type { DavLogin } from '../helpers/address-book.js';

const NICKNAMES = ['Ada', 'Countess', 'Lovelace', 'A.', 'Byron'];
const PROFILES = 3;
const SUBSCRIBERS = 4;
const FIELDS = 4;

type Op =
  | { op: 'edit'; field: number; value: number }
  | { op: 'expose'; profile: number; field: number; position: number }
  | { op: 'hide'; profile: number; field: number }
  | { op: 'approve'; subscriber: number; profile: number }
  | { op: 'move'; subscriber: number; profile: number }
  | { op: 'revoke'; subscriber: number }
  | { op: 'resubscribe'; subscriber: number }
  | { op: 'rename'; name: number };

const n = fc.nat({ max: 30 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('edit' as const), field: n, value: n }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('expose' as const), profile: n, field: n, position: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('hide' as const), profile: n, field: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('approve' as const), subscriber: n, profile: n }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('move' as const), subscriber: n, profile: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('revoke' as const), subscriber: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resubscribe' as const), subscriber: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), name: n }) },
);

interface Field {
  id: string;
  version: number;
  value: string;
  body: any;
}
interface Sub {
  device: Device;
  id: string;
  status: 'pending' | 'active' | 'revoked';
  profile: number | null;
  /** contact.card.changed signals received so far. */
  seen: number;
  /** Its address-book password, the sync token of its last sync, and what its address book holds. */
  login: DavLogin;
  token: string;
  book: Map<string, { etag: string; vcard: string }>;
  /** The ETag of its vCard 3.0 after the last step (undefined: no card). */
  etag?: string;
}

/**
 * One sync-collection of a subscriber's address book from its last token, applied to the copy it
 * holds as a client would (200: the card; 404: gone); returns who was answered, and how.
 */
async function syncBook(baseUrl: string, sub: Sub): Promise<Map<string, 'present' | 'gone'>> {
  const res = await dav(baseUrl, sub.login, 'REPORT', bookPaths(sub.login.accountId).book, { body: syncBody(sub.token), depth: '1' });
  assert.equal(res.status, 207, res.text);
  const read = readMultistatus(res.text);
  sub.token = read.syncToken!;
  const answered = new Map<string, 'present' | 'gone'>();
  for (const r of read.responses) {
    const person = /\/following\/(.+)\.vcf$/.exec(r.href)![1]!;
    if (r.status === 'HTTP/1.1 404 Not Found') {
      sub.book.delete(person);
      answered.set(person, 'gone');
    } else {
      sub.book.set(person, { etag: r.ok.get(clark(DAV, 'getetag'))!.textContent!, vcard: r.ok.get(clark(CARDDAV, 'address-data'))!.textContent! });
      answered.set(person, 'present');
    }
  }
  return answered;
}

for (const backend of backends) {
  describe(`subscribers see and hear what the model says [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    it('after every step: each card is exactly its profile\'s, and only those whose card changed were signalled', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 8, maxLength: 22 }), async (ops) => {
          const owner = await s.person('model-owner');
          let displayName: string | null = null;
          let meVersion = 1;
          const fields: Field[] = [];
          for (let i = 0; i < FIELDS; i++) {
            const body = await s.field(owner, { type: 'nickname', value: `${NICKNAMES[i]} ${i}` });
            fields.push({ id: body.id, version: 1, value: body.value, body });
          }
          const profiles: Array<{ id: string; shows: string[] }> = [];
          for (let i = 0; i < PROFILES; i++) profiles.push({ id: (await s.profile(owner, `P${i}`)).id, shows: [] });
          const subs: Sub[] = [];
          for (let i = 0; i < SUBSCRIBERS; i++) {
            const device = await s.person('model-sub');
            const sub: Sub = { device, id: (await s.subscribe(device, owner)).body.id, status: 'pending', profile: null, seen: 0, login: await davLogin(t, device), token: '', book: new Map() };
            await syncBook(t.baseUrl, sub);
            assert.equal(sub.book.size, 0, 'a pending request puts nothing in the address book');
            subs.push(sub);
          }

          /** What a subscriber should see: null when it sees no card. */
          const expected = (sub: Sub) =>
            sub.status !== 'active' || sub.profile === null
              ? null
              : {
                  owner: { username: owner.username, display_name: displayName },
                  fields: profiles[sub.profile]!.shows.map((id) => {
                    const f = fields.find((x) => x.id === id)!;
                    return { id: f.id, type: 'nickname', label: null, country: null, value: f.value, details: f.body.details };
                  }),
                };

          for (const step of ops) {
            t.clock.advance(1000);
            const before = subs.map((sub) => JSON.stringify(expected(sub)));
            const apply = await perform(step);
            if (!apply) continue;
            for (const [i, sub] of subs.entries()) {
              const now = expected(sub);
              const res = await s.get(sub.device, `/contacts/${sub.id}/card`);
              if (now === null) {
                assert.equal(res.status, 403, `${JSON.stringify(step)}: subscriber ${i} (${sub.status}) must see no card`);
              } else {
                assert.equal(res.status, 200, `${JSON.stringify(step)}: subscriber ${i}`);
                const { updated_at: _, schema_version: __, changed, ...card } = res.body;
                assert.deepEqual(card, now, `${JSON.stringify(step)}: subscriber ${i}'s card`);
                // What changed names kinds of detail only, of fields this model has (nicknames) or the name.
                for (const kind of changed) assert.ok(kind === 'nickname' || kind === 'display_name', `${JSON.stringify(step)}: subscriber ${i}'s card says ${kind} changed`);
              }
              // The list with include=card, unsorted and sorted (two paths through the service):
              // each contact carries exactly the single card answer (its JSON and ETag), or null
              // where that answer is a refusal; and no subscriber's list holds another's contact.
              for (const query of ['include=card', 'include=card&sort=given_name']) {
                const list = await s.get(sub.device, `/contacts?${query}&limit=200`);
                assert.equal(list.status, 200);
                const listed = list.body.data.filter((c: any) => c.id === sub.id);
                assert.equal(listed.length, 1, `${JSON.stringify(step)}: subscriber ${i} lists its contact once (${query})`);
                if (res.status === 200) {
                  assert.deepEqual(listed[0].card, res.body, `${JSON.stringify(step)}: subscriber ${i}'s listed card is the single answer (${query})`);
                  assert.equal(listed[0].card_etag, res.headers.get('etag'), `${JSON.stringify(step)}: subscriber ${i}'s listed card's tag (${query})`);
                } else {
                  assert.equal(listed[0].card, null, `${JSON.stringify(step)}: subscriber ${i} lists no card (${query})`);
                  assert.equal(listed[0].card_etag, null);
                }
                const others = new Set(subs.filter((x) => x !== sub).map((x) => x.id));
                assert.ok(list.body.data.every((c: any) => !others.has(c.id)), `${JSON.stringify(step)}: subscriber ${i} lists only its own contacts`);
              }
              const plain = await s.get(sub.device, '/contacts?limit=200');
              assert.ok(plain.body.data.every((c: any) => !('card' in c) && !('card_etag' in c)), 'without include=card no card is listed');

              // Told exactly when the card it sees changed (an approval or a revocation is a
              // status change, told by contacts.changed; a card that stayed the same, by nothing).
              const cardChanged = before[i] !== 'null' && now !== null && before[i] !== JSON.stringify(now);
              const received = (await s.signals(sub.device)).filter(([kind]) => kind === 'contact.card.changed');
              assert.equal(received.length - sub.seen, cardChanged ? 1 : 0, `${JSON.stringify(step)}: contact.card.changed to subscriber ${i}`);
              for (const [, resource] of received) assert.match(resource, /^\/contacts\/sub_[^/]+\/card$/);
              sub.seen = received.length;

              // The address book after one sync: exactly what the vCard of the JSON card shows
              // this subscriber, answered exactly when it changed, and a 404 once it went.
              const answered = await syncBook(t.baseUrl, sub);
              const vcard = now === null ? undefined : await s.get(sub.device, `/contacts/${sub.id}/vcard?version=3.0`);
              const etag = vcard?.headers.get('etag') ?? undefined;
              if (now === null) {
                assert.ok(!sub.book.has(owner.accountId), `${JSON.stringify(step)}: subscriber ${i}'s address book holds no card`);
                if (before[i] !== 'null') assert.equal(answered.get(owner.accountId), 'gone', `${JSON.stringify(step)}: subscriber ${i} hears the card went`);
              } else {
                assert.equal(vcard!.status, 200);
                assert.deepEqual(sub.book.get(owner.accountId), { etag: etag!, vcard: vcard!.body }, `${JSON.stringify(step)}: subscriber ${i}'s address book shows its card`);
              }
              const changed = (before[i] === 'null') !== (now === null) || etag !== sub.etag;
              assert.equal(answered.has(owner.accountId), changed, `${JSON.stringify(step)}: subscriber ${i}'s sync answers the card exactly when it changed`);
              assert.ok([...answered.keys()].every((person) => person === owner.accountId), 'only this owner is in the book');
              sub.etag = etag;
            }
          }

          async function perform(step: Op): Promise<boolean> {
            const sub = 'subscriber' in step ? subs[step.subscriber % SUBSCRIBERS]! : undefined;
            const profile = 'profile' in step ? step.profile % PROFILES : 0;
            const field = 'field' in step ? fields[step.field % FIELDS]! : undefined;
            switch (step.op) {
              case 'edit': {
                const value = `${NICKNAMES[step.value % NICKNAMES.length]} ${step.value}`;
                const res = await t.client.as(owner, 'PATCH', `${API}/me/fields/${field!.id}`, { body: { value }, headers: { 'if-match': `"${field!.version}"` } });
                assert.equal(res.status, 200);
                Object.assign(field!, { version: res.body.version, value: res.body.value, body: res.body });
                return true;
              }
              case 'expose': {
                const shows = profiles[profile]!.shows;
                const rest = shows.filter((id) => id !== field!.id);
                const position = step.position % (rest.length + 1);
                const res = await t.client.as(owner, 'PUT', `${API}/profiles/${profiles[profile]!.id}/exposures/${field!.id}`, { body: { position } });
                assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
                rest.splice(position, 0, field!.id);
                profiles[profile]!.shows = rest;
                return true;
              }
              case 'hide': {
                const shown = profiles[profile]!.shows.includes(field!.id);
                const res = await t.client.as(owner, 'DELETE', `${API}/profiles/${profiles[profile]!.id}/exposures/${field!.id}`);
                assert.equal(res.status, shown ? 204 : 404);
                profiles[profile]!.shows = profiles[profile]!.shows.filter((id) => id !== field!.id);
                return true;
              }
              case 'approve':
              case 'move': {
                const action = sub!.status === 'pending' ? 'approve' : sub!.status === 'active' ? 'move' : undefined;
                if (!action) return false;
                const res = await s.post(owner, `/subscriptions/${sub!.id}/${action}`, { profile_id: profiles[profile]!.id });
                assert.equal(res.status, 200, JSON.stringify(res.body));
                Object.assign(sub!, { status: 'active', profile });
                return true;
              }
              case 'revoke': {
                if (sub!.status !== 'active') return false;
                assert.equal((await s.post(owner, `/subscriptions/${sub!.id}/revoke`, {})).status, 200);
                sub!.status = 'revoked';
                return true;
              }
              case 'resubscribe': {
                if (sub!.status !== 'revoked') return false;
                assert.equal((await t.client.as(sub!.device, 'DELETE', `${API}/contacts/${sub!.id}`)).status, 204);
                const res = await s.post(sub!.device, '/contacts', { username: owner.username }, { 'idempotency-key': randomUUID() });
                assert.equal(res.status, 201, JSON.stringify(res.body));
                Object.assign(sub!, { id: res.body.id, status: 'pending', profile: null });
                return true;
              }
              case 'rename': {
                displayName = step.name % 4 === 0 ? null : `Alice ${step.name}`;
                const res = await t.client.as(owner, 'PATCH', `${API}/me`, { body: { display_name: displayName }, headers: { 'if-match': `"${meVersion}"` } });
                assert.equal(res.status, 200);
                meVersion = res.body.version;
                return true;
              }
            }
          }
        }),
        { numRuns: process.env.CI ? 10 : 6 },
      );
    });
  });
}
