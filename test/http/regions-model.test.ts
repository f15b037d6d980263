// PRODUCT §4 and §10, decision 352: the privacy promise holds across regions. A property-based
// test drives random follows (across and at home), approvals, denials, moves, revocations (with
// and without a block), unblocks at home, unsubscriptions and field edits through both deployments'
// APIs, some with several changes in flight between two settles, and after every settle compares
// each side with a small model: each follower sees exactly the status it may see (a denied or
// silenced request reads pending) and, while active, exactly the card its owner's preview of the
// chosen profile shows; the owner's list says where each subscription stands; and each region
// holds of the other's people only what residency allows (stand-ins without credentials or
// fields; card copies only of profiles someone here receives).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { CallResult, Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';
import { startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { API, social } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';

type Region = 'eu' | 'us';
type Status = 'pending' | 'active' | 'denied' | 'silenced' | 'revoked' | 'ended';

/** Owners: two in the EU, one in the US; followers: two in the US, one in the EU (both directions). */
const OWNER_REGIONS: readonly Region[] = ['eu', 'eu', 'us'];
const FOLLOWER_REGIONS: readonly Region[] = ['us', 'us', 'eu'];
const FIELDS = 3;
/** Which fields each profile of every owner shows: no two alike, so a card names its profile. */
const SHOWS: readonly (readonly number[])[] = [[0, 1], [2]];
const NICKNAMES = ['Ada', 'Countess', 'Lovelace', 'A.', 'Byron'];

const LIVE: readonly Status[] = ['pending', 'active', 'denied', 'silenced'];
/** TRANSITIONS.unsubscribe.from: what an unsubscription ends. */
const ENDS: readonly Status[] = ['pending', 'active', 'denied', 'silenced'];
const SEEN: Record<Status, string> = { pending: 'pending', active: 'active', denied: 'pending', silenced: 'pending', revoked: 'revoked', ended: 'ended' };

type Op =
  | { op: 'follow'; f: number; o: number }
  | { op: 'approve'; o: number; pick: number; profile: number }
  | { op: 'deny'; o: number; pick: number; block: boolean }
  | { op: 'move'; o: number; pick: number; profile: number }
  | { op: 'revoke'; o: number; pick: number; block: boolean }
  | { op: 'unblock'; o: number; f: number }
  | { op: 'unsubscribe'; f: number; pick: number }
  | { op: 'edit'; o: number; field: number; value: number }
  | { op: 'settle' };

const n = fc.nat({ max: 30 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('follow' as const), f: n, o: n }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('approve' as const), o: n, pick: n, profile: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deny' as const), o: n, pick: n, block: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), o: n, pick: n, profile: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('revoke' as const), o: n, pick: n, block: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('unblock' as const), o: n, f: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('unsubscribe' as const), f: n, pick: n }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('edit' as const), o: n, field: n, value: n }) },
  { weight: 2, arbitrary: fc.constant({ op: 'settle' as const }) },
);

interface Person {
  device: Device;
  region: Region;
  username: string;
}
interface Owner extends Person {
  fields: Array<{ id: string; version: number; value: string }>;
  profiles: Array<{ id: string; shows: readonly number[] }>;
  /** The followers this owner blocked. */
  blocked: Set<number>;
}
interface Sub {
  id: string;
  f: number;
  o: number;
  /** As the owner's region holds it. */
  status: Status;
  profile: number | null;
  /** Removed from the follower's list (DELETE /contacts/{id}). */
  hidden: boolean;
  /** Unsubscribed in the follower's region, which has not told the owner's yet (across regions only). */
  endInFlight: boolean;
}

/** Tables holding a person's own data or credentials: nothing of a stand-in is ever in one. */
const PERSONAL_TABLES: ReadonlyArray<[string, string]> = [
  ['fields', 'account_id'],
  ['passkeys', 'account_id'],
  ['sessions', 'account_id'],
  ['totp_authenticators', 'account_id'],
  ['recovery_keys', 'account_id'],
  ['dav_tokens', 'account_id'],
  ['key_bundles', 'account_id'],
  ['photos', 'account_id'],
  ['share_links', 'owner_id'],
];

for (const backend of backends) {
  describe(`what each side sees across regions is what the model says [${backend.name}]`, { skip: backend.skip }, () => {
    let r: RegionPair;
    let api: Record<Region, Social>;
    let apps: Record<Region, TestApp>;
    before(async () => {
      r = await startRegions(backend);
      apps = { eu: r.eu, us: r.us };
      api = { eu: social(r.eu), us: social(r.us) };
    });
    after(() => r.close());

    it('after every settle: statuses, cards, the owners\' lists and what each region holds of the other\'s people', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 25 }), async (ops) => {
          const owners: Owner[] = [];
          for (const [i, region] of OWNER_REGIONS.entries()) {
            const device = await api[region].person(`rmo${i}`);
            const fields: Owner['fields'] = [];
            for (let k = 0; k < FIELDS; k++) {
              const body = await api[region].field(device, { type: 'nickname', value: `${NICKNAMES[k]} ${k}` });
              fields.push({ id: body.id, version: body.version, value: body.value });
            }
            const profiles: Owner['profiles'] = [];
            for (const [p, shows] of SHOWS.entries()) {
              const profile = await api[region].profile(device, `P${p}`);
              for (const k of shows) await api[region].expose(device, profile.id, fields[k]!.id);
              profiles.push({ id: profile.id, shows });
            }
            owners.push({ device, region, username: device.username, fields, profiles, blocked: new Set() });
          }
          const followers: Person[] = [];
          for (const [i, region] of FOLLOWER_REGIONS.entries()) {
            const device = await api[region].person(`rmf${i}`);
            followers.push({ device, region, username: device.username });
          }
          const subs: Sub[] = [];
          const across = (sub: { f: number; o: number }) => followers[sub.f]!.region !== owners[sub.o]!.region;
          /** How one side names the other: a bare name at home, `name@region` across. */
          const nameFor = (who: Person, from: Region) => (who.region === from ? who.username : `${who.username}@${who.region}`);
          const log: string[] = [];

          for (const step of ops) {
            apps.eu.clock.advance(1000);
            apps.us.clock.advance(1000);
            const done = await perform(step);
            if (done) log.push(done);
            if (step.op === 'settle') await settleAndCheck();
          }
          await settleAndCheck();

          /** The subscriptions of an owner it can act on (the owner never sees a silenced one), in the order they were made. */
          function ownersWith(o: number, status: Status): Sub[] {
            return subs.filter((sub) => sub.o === o && sub.status === status);
          }

          /**
           * An unsubscription across regions is sent at once (the outbox is kicked on commit), so
           * the owner's region may have ended it before the next settle: an owner's decision on
           * it is then refused as on any ended subscription. Answers whether it was.
           */
          function endedMeanwhile(sub: Sub, res: CallResult): boolean {
            if (!sub.endInFlight || res.status !== 409) return false;
            expectProblem(res, 409, 'invalid_transition');
            Object.assign(sub, { status: 'ended', endInFlight: false });
            return true;
          }

          async function perform(step: Op): Promise<string | undefined> {
            switch (step.op) {
              case 'follow': {
                const f = step.f % followers.length;
                const o = step.o % owners.length;
                const follower = followers[f]!;
                const owner = owners[o]!;
                const s = api[follower.region];
                const live = subs.find((sub) => sub.f === f && sub.o === o && LIVE.includes(sub.status) && !sub.endInFlight);
                const res = await s.post(follower.device, '/contacts', { username: nameFor(owner, follower.region) });
                // An unsubscription of the pair the owner's region has not heard of yet is told before asking.
                for (const sub of subs) if (sub.f === f && sub.o === o && sub.endInFlight) Object.assign(sub, { status: ENDS.includes(sub.status) ? 'ended' : sub.status, endInFlight: false });
                const what = `follow f${f}→o${o}${across({ f, o }) ? ' (across)' : ''}`;
                if (live) {
                  // At home and across alike (PRODUCT §10: the refusals of §4): the live request is named.
                  const problem = expectProblem(res, 409, 'already_subscribed', what);
                  assert.equal(problem.contact_id, live.id, what);
                  return `${what}: already`;
                }
                assert.equal(res.status, 201, `${what}: ${JSON.stringify(res.body)}`);
                assert.equal(res.body.status, 'pending', what);
                assert.deepEqual(res.body.owner, { username: owner.username, display_name: null, region: owner.region }, what);
                assert.ok(!subs.some((sub) => sub.id === res.body.id), `${what}: a new request`);
                subs.push({ id: res.body.id, f, o, status: owner.blocked.has(f) ? 'silenced' : 'pending', profile: null, hidden: false, endInFlight: false });
                return `${what}: ${owner.blocked.has(f) ? 'silenced' : 'pending'}`;
              }
              case 'approve':
              case 'move': {
                const o = step.o % owners.length;
                const owner = owners[o]!;
                const candidates = ownersWith(o, step.op === 'approve' ? 'pending' : 'active');
                if (candidates.length === 0) return undefined;
                const sub = candidates[step.pick % candidates.length]!;
                const profile = step.profile % owner.profiles.length;
                const res = await api[owner.region].post(owner.device, `/subscriptions/${sub.id}/${step.op}`, { profile_id: owner.profiles[profile]!.id });
                if (endedMeanwhile(sub, res)) return `${step.op} o${o}←f${sub.f}: ended meanwhile`;
                assert.equal(res.status, 200, `${step.op} ${sub.id}: ${JSON.stringify(res.body)}`);
                Object.assign(sub, { status: 'active', profile });
                return `${step.op} o${o}←f${sub.f} onto P${profile}`;
              }
              case 'deny':
              case 'revoke': {
                const o = step.o % owners.length;
                const owner = owners[o]!;
                const candidates = ownersWith(o, step.op === 'deny' ? 'pending' : 'active');
                if (candidates.length === 0) return undefined;
                const sub = candidates[step.pick % candidates.length]!;
                const res = await api[owner.region].post(owner.device, `/subscriptions/${sub.id}/${step.op}`, { block: step.block });
                if (endedMeanwhile(sub, res)) return `${step.op} o${o}←f${sub.f}: ended meanwhile`;
                assert.equal(res.status, 200, `${step.op} ${sub.id}: ${JSON.stringify(res.body)}`);
                Object.assign(sub, { status: step.op === 'deny' ? 'denied' : 'revoked', profile: step.op === 'deny' ? null : sub.profile });
                if (step.block) owner.blocked.add(sub.f);
                return `${step.op} o${o}←f${sub.f}${step.block ? ' and block' : ''}`;
              }
              case 'unblock': {
                const o = step.o % owners.length;
                const f = step.f % followers.length;
                const owner = owners[o]!;
                // Someone of another region is unblocked by `name@region`, as they were followed.
                const name = nameFor(followers[f]!, owner.region);
                const res = await apps[owner.region].client.as(owner.device, 'DELETE', `${API}/blocks/${encodeURIComponent(name)}`);
                const what = `unblock o${o}→f${f}${across({ f, o }) ? ' (across)' : ''}`;
                if (!owner.blocked.has(f)) {
                  expectProblem(res, 404, 'block_not_found', what);
                  return `${what}: none`;
                }
                assert.equal(res.status, 204, `${what}: ${JSON.stringify(res.body)}`);
                owner.blocked.delete(f);
                // A request made meanwhile, which the owner never saw, arrives now.
                for (const sub of subs) if (sub.o === o && sub.f === f && sub.status === 'silenced') sub.status = 'pending';
                return what;
              }
              case 'unsubscribe': {
                const f = step.f % followers.length;
                const follower = followers[f]!;
                const candidates = subs.filter((sub) => sub.f === f && !sub.hidden);
                if (candidates.length === 0) return undefined;
                const sub = candidates[step.pick % candidates.length]!;
                const res = await apps[follower.region].client.as(follower.device, 'DELETE', `${API}/contacts/${sub.id}`);
                assert.equal(res.status, 204, `unsubscribe ${sub.id}: ${JSON.stringify(res.body)}`);
                sub.hidden = true;
                if (across(sub)) sub.endInFlight = true;
                else if (ENDS.includes(sub.status)) sub.status = 'ended';
                return `unsubscribe f${f}→o${sub.o}`;
              }
              case 'edit': {
                const o = step.o % owners.length;
                const owner = owners[o]!;
                const field = owner.fields[step.field % FIELDS]!;
                const value = `${NICKNAMES[step.value % NICKNAMES.length]} ${step.value}`;
                const res = await apps[owner.region].client.as(owner.device, 'PATCH', `${API}/me/fields/${field.id}`, { body: { value }, headers: { 'if-match': `"${field.version}"` } });
                assert.equal(res.status, 200, JSON.stringify(res.body));
                Object.assign(field, { version: res.body.version, value: res.body.value });
                return `edit o${o} field ${step.field % FIELDS}`;
              }
              case 'settle':
                return 'settle';
            }
          }

          /** Both outboxes flushed; then each side, and what each region holds, against the model. */
          async function settleAndCheck(): Promise<void> {
            await r.settle();
            // What the owners' regions heard of the unsubscriptions: an end ends what it still can.
            for (const sub of subs) {
              if (!sub.endInFlight) continue;
              if (ENDS.includes(sub.status)) sub.status = 'ended';
              sub.endInFlight = false;
            }
            const at = `after ${log.join('; ')}`;
            for (const region of ['eu', 'us'] as const) {
              const waiting = await apps[region].store.handle.db.selectFrom('region_outbox' as any).select('subject' as any).execute();
              assert.deepEqual(waiting, [], `${region}'s outbox is empty once settled (${at})`);
            }

            // Each owner's previews are its profiles as the model has them; each owner's list, the model's subscriptions.
            const previews = new Map<string, any>();
            for (const [o, owner] of owners.entries()) {
              const s = api[owner.region];
              for (const profile of owner.profiles) {
                const res = await s.get(owner.device, `/profiles/${profile.id}/preview`);
                assert.equal(res.status, 200);
                assert.deepEqual(res.body.fields.map((x: any) => [x.id, x.value]), profile.shows.map((k) => [owner.fields[k]!.id, owner.fields[k]!.value]), `o${o}'s preview`);
                previews.set(profile.id, res.body);
              }
              const list = await s.get(owner.device, '/subscriptions?limit=200');
              assert.equal(list.status, 200);
              const seen = list.body.data.map((x: any) => ({ id: x.id, status: x.status, profile_id: x.profile_id, subscriber: x.subscriber })).sort(byId);
              const expected = subs
                .filter((sub) => sub.o === o && sub.status !== 'silenced')
                .map((sub) => ({
                  id: sub.id,
                  status: sub.status,
                  profile_id: sub.profile === null ? null : owner.profiles[sub.profile]!.id,
                  subscriber: { username: followers[sub.f]!.username, display_name: null, region: followers[sub.f]!.region },
                }))
                .sort(byId);
              assert.deepEqual(seen, expected, `o${o}'s subscriptions (${at})`);
            }

            // Each follower: the status it may see, and while active exactly the card of the model's profile.
            for (const [f, follower] of followers.entries()) {
              const s = api[follower.region];
              const list = await s.get(follower.device, '/contacts?include=card&limit=200');
              assert.equal(list.status, 200);
              const listed = new Map<string, any>(list.body.data.map((c: any) => [c.id, c]));
              const mine = subs.filter((sub) => sub.f === f);
              assert.deepEqual([...listed.keys()].sort(), mine.filter((sub) => !sub.hidden).map((sub) => sub.id).sort(), `f${f}'s contacts (${at})`);
              for (const sub of mine) {
                const owner = owners[sub.o]!;
                const what = `f${f}'s contact ${sub.id} of o${sub.o} (${sub.status}${across(sub) ? ', across' : ''}; ${at})`;
                const card = await s.get(follower.device, `/contacts/${sub.id}/card`);
                if (sub.hidden) {
                  expectProblem(card, 404, 'contact_not_found', what);
                  continue;
                }
                const contact = listed.get(sub.id);
                assert.equal(contact.status, SEEN[sub.status], `${what}: status`);
                assert.deepEqual(contact.owner, { username: owner.username, display_name: null, region: owner.region }, `${what}: owner`);
                if (sub.status !== 'active') {
                  expectProblem(card, 403, 'contact_not_active', what);
                  assert.equal(contact.card, null, `${what}: no card listed`);
                  continue;
                }
                assert.equal(card.status, 200, `${what}: ${JSON.stringify(card.body)}`);
                const preview = previews.get(owner.profiles[sub.profile!]!.id);
                assert.deepEqual(card.body.owner, across(sub) ? { ...preview.owner, region: owner.region } : preview.owner, `${what}: card owner`);
                assert.deepEqual(card.body.fields, preview.fields, `${what}: the card is the preview of its profile`);
                assert.deepEqual(contact.card, card.body, `${what}: the listed card is the card`);
              }
            }

            await checkResidency(at);
          }

          /**
           * What each region holds of the other's people of this run: for a remote owner, copies
           * of exactly the profiles some follower here is active on; for every stand-in, its
           * name and region, and nothing in any table of a person's own data.
           */
          async function checkResidency(at: string): Promise<void> {
            for (const region of ['eu', 'us'] as const) {
              const db = apps[region].store.handle.db as any;
              const other = region === 'eu' ? 'us' : 'eu';
              const theirs = [...owners, ...followers].filter((p) => p.region === other);
              const standIns = await db
                .selectFrom('accounts')
                .select(['id', 'username', 'username_canonical', 'region'])
                .where('username_canonical', 'in', theirs.map((p) => `${p.username}@${other}`))
                .execute();
              for (const row of standIns) assert.deepEqual([row.region, row.username_canonical], [other, `${row.username}@${other}`], `${region}: a stand-in's name and region`);
              // Nobody of the other region is held under their bare name.
              const bare = await db.selectFrom('accounts').select('id').where('username_canonical', 'in', theirs.map((p) => p.username)).execute();
              assert.deepEqual(bare, [], `${region} holds no account of ${other}'s people under their own name`);
              const ids = standIns.map((row: any) => row.id);
              if (ids.length > 0) {
                for (const [table, column] of PERSONAL_TABLES) {
                  const rows = await db.selectFrom(table).select(column).where(column, 'in', ids).execute();
                  assert.deepEqual(rows, [], `${region} holds nothing in ${table} for ${other}'s people (${at})`);
                }
              }
              const followerIds = standIns.filter((row: any) => followers.some((p) => p.region === other && `${p.username}@${other}` === row.username_canonical)).map((row: any) => row.id);
              if (followerIds.length > 0) {
                const rows = await db.selectFrom('profiles').select('id').where('account_id', 'in', followerIds).execute();
                assert.deepEqual(rows, [], `${region} holds no profile of ${other}'s followers (${at})`);
              }
              const expected = new Set<string>();
              for (const sub of subs) {
                const owner = owners[sub.o]!;
                if (owner.region === other && followers[sub.f]!.region === region && sub.status === 'active') expected.add(owner.profiles[sub.profile!]!.id);
              }
              const ownerIds = standIns.filter((row: any) => owners.some((p) => p.region === other && `${p.username}@${other}` === row.username_canonical)).map((row: any) => row.id);
              const copies = ownerIds.length === 0 ? [] : await db.selectFrom('profiles').select('id').where('account_id', 'in', ownerIds).execute();
              assert.deepEqual(copies.map((row: any) => row.id).sort(), [...expected].sort(), `${region}'s card copies of ${other}'s owners are of the profiles followed here (${at})`);
            }
          }
        }),
        { numRuns: 10, includeErrorInReport: true },
      );
    });

    it('asking again while the other side\'s change still waits in its outbox: that change is known first, and the request is neither refused nor lost', async () => {
      /**
       * Runs `change` while `region` is away for its peer: its clock ahead by more than a
       * signature may be (REGION_REQUEST_MAX_AGE_S), so its deliveries are refused and wait in
       * its outbox; back once its sender failed (it retries after a second, settle() at once).
       */
      async function whileAway(region: Region, change: () => Promise<void>): Promise<void> {
        const failed = apps[region].services.regions.stats().failures;
        apps[region].clock.advance(AWAY_MS);
        await change();
        while (apps[region].services.regions.stats().failures === failed) await new Promise((resolve) => setTimeout(resolve, 5));
        apps[region].clock.advance(-AWAY_MS);
      }
      const owner = await api.eu.person('rmo');
      const profile = await api.eu.profile(owner, 'P');
      const follower = await api.us.person('rmf');
      const ask = () => api.us.post(follower, '/contacts', { username: `${owner.username}@eu` });
      const statuses = async () => ({
        owner: Object.fromEntries((await api.eu.get(owner, '/subscriptions?limit=200')).body.data.map((x: any) => [x.id, x.status])),
        follower: Object.fromEntries((await api.us.get(follower, '/contacts?limit=200')).body.data.map((x: any) => [x.id, x.status])),
      });

      // Revoked in the EU, the revocation not yet in the US: the follower's region learns it with the answer.
      const first = (await ask()).body.id;
      assert.equal((await api.eu.approve(owner, first, profile.id)).status, 200);
      await r.settle();
      await whileAway('eu', async () => assert.equal((await api.eu.post(owner, `/subscriptions/${first}/revoke`, {})).status, 200));
      const second = await ask();
      assert.equal(second.status, 201, JSON.stringify(second.body));
      assert.notEqual(second.body.id, first);
      await r.settle();
      assert.deepEqual(await statuses(), { owner: { [first]: 'revoked', [second.body.id]: 'pending' }, follower: { [first]: 'revoked', [second.body.id]: 'pending' } });

      // Unsubscribed in the US, the end not yet in the EU: told before asking, so a new request, not the ended one.
      await whileAway('us', async () => assert.equal((await r.us.client.as(follower, 'DELETE', `${API}/contacts/${second.body.id}`)).status, 204));
      const third = await ask();
      assert.equal(third.status, 201, JSON.stringify(third.body));
      assert.ok(![first, second.body.id].includes(third.body.id), 'a new request');
      await r.settle();
      assert.deepEqual(await statuses(), { owner: { [first]: 'revoked', [second.body.id]: 'ended', [third.body.id]: 'pending' }, follower: { [first]: 'revoked', [third.body.id]: 'pending' } });
    });
  });
}

/** Further than a signature may be from its receiver's clock (REGION_REQUEST_MAX_AGE_S, 60 s by default). */
const AWAY_MS = 300_000;
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
