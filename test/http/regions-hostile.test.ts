// PRODUCT §10, decision 352: what one region's server-to-server routes do with requests nobody
// should send. Forged with plain fetch and the signing code itself, against the EU's
// POST /federation/v1/deliveries and /requests: unsigned, signed by a key no peer lists, by the
// EU's own key, tampered after signing, out of date by the EU's clock, replayed; and correctly
// signed by the US but naming subjects that are not between the US and the EU, or of no shape at
// all. Each is refused with its code, counted by reason, and changes nothing in the EU's database.
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { newRegionKey } from '../../src/platform/federation/keys.js';
import { newNonce, signRequest } from '../../src/platform/federation/signatures.js';
import type { RegionSigningKey } from '../../src/platform/federation/signatures.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';
import { startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { social } from '../helpers/social.js';

const DELIVERIES = '/federation/v1/deliveries';
const REQUESTS = '/federation/v1/requests';

interface Forged {
  /** What is sent: the path, method and body actually on the wire. */
  path?: string;
  method?: string;
  body?: string;
  /** Signed over something else than what is sent (a tampering after signing). */
  signed?: { url?: string; method?: string; body?: string; contentType?: string };
  key?: RegionSigningKey;
  /** The signature's `created`, ms; the EU's clock unless given. */
  at?: number;
  validitySeconds?: number;
  nonce?: string;
  unsigned?: boolean;
  /** Header changes after signing (undefined removes one). */
  headers?: Record<string, string | undefined>;
}

/** What an accepted request itself writes: its nonce, and when its sender was last heard from. */
const ACCEPTED = ['region_nonces', 'region_peers'];

/** One request as fetch sends it, the answer in the shape expectProblem reads. */
interface Answer {
  status: number;
  headers: Headers;
  body: any;
  /** The exact request, to send again byte for byte. */
  again(): Promise<Answer>;
}

async function send(url: string, method: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* kept as text */
  }
  return { status: response.status, headers: response.headers, body: parsed, again: () => send(url, method, headers, body) };
}

/** A signed (or deliberately unsigned) request to `target`, forged exactly as `f` says. */
async function forge(target: TestApp, key: RegionSigningKey, f: Forged = {}): Promise<Answer> {
  const path = f.path ?? DELIVERIES;
  const method = f.method ?? 'POST';
  const body = f.body ?? JSON.stringify({ deliveries: [] });
  const url = `${target.baseUrl}${path}`;
  let headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!f.unsigned) {
    headers = await signRequest(
      { method: f.signed?.method ?? method, url: f.signed?.url ?? url, headers: { 'content-type': f.signed?.contentType ?? 'application/json' }, body: f.signed?.body ?? body },
      f.key ?? key,
      f.at ?? target.clock.now(),
      f.nonce ?? newNonce(),
      f.validitySeconds ?? target.config.regions.maxAgeSeconds,
    );
  }
  for (const [name, value] of Object.entries(f.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return send(url, method, headers, body);
}

/**
 * Every row of every table of a region's database, each table's rows in a stable order: two
 * snapshots are equal when nothing at all was written. `except` leaves tables out (ACCEPTED).
 */
const tablesOf = new WeakMap<TestApp, Promise<string[]>>();
async function snapshot(t: TestApp, except: string[] = []): Promise<Record<string, string[]>> {
  const db = t.store.handle.db as unknown as Kysely<any>;
  // The schema does not change during a suite: read it once.
  if (!tablesOf.has(t)) tablesOf.set(t, db.introspection.getTables().then((tables) => tables.map((table) => table.name)));
  const out: Record<string, string[]> = {};
  for (const table of await tablesOf.get(t)!) {
    if (except.includes(table)) continue;
    const rows = await db.selectFrom(table).selectAll().execute();
    out[table] = rows.map((row) => JSON.stringify(row, (_, value) => (typeof value === 'bigint' ? String(value) : value))).sort();
  }
  return out;
}

/** The tables that differ between two snapshots, with what was added and removed. */
function changes(before: Record<string, string[]>, after: Record<string, string[]>): Record<string, { added: string[]; removed: string[] }> {
  const out: Record<string, { added: string[]; removed: string[] }> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = new Set(before[table] ?? []);
    const now = new Set(after[table] ?? []);
    const added = [...now].filter((row) => !was.has(row));
    const removed = [...was].filter((row) => !now.has(row));
    if (added.length || removed.length) out[table] = { added, removed };
  }
  return out;
}

/** vid_region_requests_refused_total by "region reason", read off the metrics listener. */
async function refusals(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const out = new Map<string, number>();
  for (const [, labels, value] of text.matchAll(/^vid_region_requests_refused_total\{([^}]*)\} (\S+)$/gm)) {
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels!)?.[1];
    out.set(`${label('region')} ${label('reason')}`, Number(value));
  }
  return out;
}

for (const backend of backends) {
  describe(`hostile requests between regions [${backend.name}]`, { skip: backend.skip }, () => {
    let r: RegionPair;
    let eu: ReturnType<typeof social>;
    let us: ReturnType<typeof social>;
    /** The US's own signing key, as its sender uses it. */
    let usKey: RegionSigningKey;
    let alice: Device;
    let carol: Device;
    let bob: Device;
    let dave: Device;
    let work: { id: string };
    let desk: { id: string };
    /** bob@us → alice, carol → alice (both EU), carol → dave@us: every one active. */
    const subs = { bobAlice: '', carolAlice: '', carolDave: '' };

    before(async () => {
      r = await startRegions(backend, {}, { eu: { METRICS_PORT: '0' } });
      eu = social(r.eu);
      us = social(r.us);
      usKey = r.us.config.regions.self.key!;

      alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152' });
      work = await eu.profile(alice, 'Work');
      await eu.expose(alice, work.id, phone.id);
      carol = await eu.person('carol');
      subs.carolAlice = await eu.connect(carol, alice, work.id);

      bob = await us.person('bob');
      const asked = await us.post(bob, '/contacts', { username: `${alice.username}@eu` });
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      subs.bobAlice = asked.body.id;
      assert.equal((await eu.approve(alice, subs.bobAlice, work.id)).status, 200);

      dave = await us.person('dave');
      const email = await us.field(dave, { type: 'email', value: 'dave@example.com' });
      desk = await us.profile(dave, 'Desk');
      await us.expose(dave, desk.id, email.id);
      const follows = await eu.post(carol, '/contacts', { username: `${dave.username}@us` });
      assert.equal(follows.status, 201, JSON.stringify(follows.body));
      subs.carolDave = follows.body.id;
      assert.equal((await us.approve(dave, subs.carolDave, desk.id)).status, 200);
      await r.settle();
      // The snapshots below see the tables that matter.
      const tables = Object.keys(await snapshot(r.eu));
      for (const table of ['accounts', 'subscriptions', 'profiles', 'region_outbox', 'region_nonces', 'region_peers', 'events']) assert.ok(tables.includes(table), table);
      assert.equal((await us.get(bob, `/contacts/${subs.bobAlice}`)).body.status, 'active');
      assert.equal((await eu.get(carol, `/contacts/${subs.carolDave}`)).body.status, 'active');
    });
    after(() => r.close());

    /**
     * Sends one forged request and asserts the refusal: its status and code, one more count of
     * `reason` under `region` when given, and not one row written in the EU's database.
     */
    async function refused(f: Forged, status: number, code: string, counted?: { region: string; reason: string }): Promise<void> {
      const was = await snapshot(r.eu);
      const counts = await refusals(r.eu.metricsUrl!);
      const answer = await forge(r.eu, usKey, f);
      expectProblem(answer, status, code, JSON.stringify({ ...f, key: f.key?.kid }));
      assert.deepEqual(changes(was, await snapshot(r.eu)), {}, 'nothing written');
      if (counted) {
        const now = await refusals(r.eu.metricsUrl!);
        const name = `${counted.region} ${counted.reason}`;
        assert.equal(now.get(name), (counts.get(name) ?? 0) + 1, `${name} counted once`);
        const others = [...now].filter(([label, n]) => label !== name && n !== (counts.get(label) ?? 0));
        assert.deepEqual(others, [], 'no other reason counted');
      }
    }

    it('accepts what the US itself would send (the forging is faithful)', async () => {
      const answer = await forge(r.eu, usKey);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { results: [] });
    });

    it('refuses an unsigned request (401 region_signature_required), on both routes', async () => {
      await refused({ unsigned: true }, 401, 'region_signature_required', { region: 'unknown', reason: 'unsigned' });
      await refused({ unsigned: true, path: REQUESTS, body: JSON.stringify({ owner: alice.username, subscriber: 'mallory', message: null }) }, 401, 'region_signature_required', { region: 'unknown', reason: 'unsigned' });
      // Half a signature is no signature either.
      await refused({ headers: { signature: undefined } }, 401, 'region_signature_invalid', { region: 'unknown', reason: 'malformed' });
      await refused({ headers: { 'signature-input': 'vid=("@method");created=1' } }, 401, 'region_signature_invalid', { region: 'unknown', reason: 'malformed' });
    });

    it('refuses a key no peer lists, the EU\'s own key, and another key under the US\'s kid (401 region_signature_invalid)', async () => {
      const stranger = newRegionKey('mars-1');
      const strangerKey = { kid: stranger.privateJwk.kid, privateKey: createPrivateKey({ key: stranger.privateJwk, format: 'jwk' }) };
      await refused({ key: strangerKey }, 401, 'region_signature_invalid', { region: 'unknown', reason: 'unknown_key' });
      // The EU signing to itself: its own kid is no peer's.
      await refused({ key: r.eu.config.regions.self.key! }, 401, 'region_signature_invalid', { region: 'unknown', reason: 'unknown_key' });
      const impostor = newRegionKey(usKey.kid);
      await refused({ key: { kid: usKey.kid, privateKey: createPrivateKey({ key: impostor.privateJwk, format: 'jwk' }) } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
      // A subscription request under a stranger's key creates nobody.
      await refused({ key: strangerKey, path: REQUESTS, body: JSON.stringify({ owner: alice.username, subscriber: 'mallory', message: null }) }, 401, 'region_signature_invalid', { region: 'unknown', reason: 'unknown_key' });
    });

    it('refuses a request changed after signing: body, path, method, query, host, content type (401 region_signature_invalid)', async () => {
      const end = JSON.stringify({ deliveries: [{ kind: 'account', username: bob.username, display_name: null, deleted: true, locked: false, gone: true, version: 99 }] });
      // The body swapped, its digest left: the digest does not match.
      await refused({ body: end, signed: { body: JSON.stringify({ deliveries: [] }) } }, 401, 'region_signature_invalid', { region: 'us', reason: 'digest_mismatch' });
      // The body swapped and its digest made again: the signature covers the digest.
      const swapped = await signRequest({ method: 'POST', url: `${r.eu.baseUrl}${DELIVERIES}`, headers: {}, body: end }, usKey, r.eu.clock.now());
      await refused({ body: end, signed: { body: JSON.stringify({ deliveries: [] }) }, headers: { 'content-digest': swapped['content-digest'] } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
      // Signed for /requests, sent to /deliveries.
      await refused({ signed: { url: `${r.eu.baseUrl}${REQUESTS}` } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
      await refused({ path: `${DELIVERIES}?again=1`, signed: { url: `${r.eu.baseUrl}${DELIVERIES}` } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
      await refused({ signed: { method: 'PUT' } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
      // Signed for the US's own address: a request to one region is not good at another.
      await refused({ signed: { url: `${r.us.baseUrl}${DELIVERIES}` } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
      await refused({ headers: { 'content-type': 'application/json; charset=utf-8' } }, 401, 'region_signature_invalid', { region: 'us', reason: 'bad_signature' });
    });

    it('refuses a signature out of date by the receiver\'s clock: expired, from the future, valid too long', async () => {
      const signedAt = r.eu.clock.now();
      const maxAge = r.eu.config.regions.maxAgeSeconds;
      const signedNow = await signRequest({ method: 'POST', url: `${r.eu.baseUrl}${DELIVERIES}`, headers: {}, body: JSON.stringify({ deliveries: [] }) }, usKey, signedAt);
      r.eu.clock.advance((maxAge + 1) * 1000);
      try {
        // Good when made; no longer by the EU's clock.
        await refused({ headers: signedNow }, 401, 'region_signature_invalid', { region: 'us', reason: 'stale' });
      } finally {
        r.eu.clock.set(signedAt);
      }
      await refused({ at: r.eu.clock.now() + 60_000 }, 401, 'region_signature_invalid', { region: 'us', reason: 'stale' });
      await refused({ validitySeconds: maxAge + 1 }, 401, 'region_signature_invalid', { region: 'us', reason: 'stale' });
      await refused({ validitySeconds: 3600 * 24 }, 401, 'region_signature_invalid', { region: 'us', reason: 'stale' });
    });

    it('refuses the second send of an accepted request, and its nonce in a new signature (401 region_request_replayed)', async () => {
      const erin = 'erin-from-us';
      const first = await forge(r.eu, usKey, { path: REQUESTS, body: JSON.stringify({ owner: alice.username, subscriber: erin, message: 'hello' }) });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.subscription.status, 'pending');
      const pending = await eu.get(alice, '/subscriptions?status=pending');
      assert.deepEqual(pending.body.data.map((x: any) => [x.id, x.subscriber.username, x.subscriber.region]), [[first.body.subscription.id, erin, 'us']]);

      const was = await snapshot(r.eu);
      const counts = await refusals(r.eu.metricsUrl!);
      expectProblem(await first.again(), 401, 'region_request_replayed');
      assert.deepEqual(changes(was, await snapshot(r.eu)), {}, 'nothing written');
      assert.equal((await refusals(r.eu.metricsUrl!)).get('us replayed'), (counts.get('us replayed') ?? 0) + 1);

      // The same nonce, signed again over another body.
      const nonce = newNonce();
      assert.equal((await forge(r.eu, usKey, { nonce })).status, 200);
      await refused({ nonce, body: JSON.stringify({ deliveries: [{ kind: 'account', username: bob.username, display_name: null, deleted: true, locked: false, gone: true, version: 99 }] }) }, 401, 'region_request_replayed', { region: 'us', reason: 'replayed' });
    });

    it('refuses, one by one, deliveries about subjects that are not between the US and the EU, and applies the rest', async () => {
      const db = r.eu.store.handle.db as unknown as Kysely<any>;
      const subscription = (id: string, owner: string, subscriber: string, status: string, card: unknown = null) => ({
        id,
        owner: { username: owner, display_name: null },
        subscriber,
        status,
        version: 1000,
        message: null,
        created_at: 1,
        updated_at: r.eu.clock.now(),
        card_since: null,
        card_changes: null,
        card,
      });
      const aliceCard = await db.selectFrom('profiles').select(['card_json', 'card_hash', 'card_updated_at']).where('id', '=', work.id).executeTakeFirstOrThrow();
      const localCard = { id: work.id, card_json: aliceCard.card_json, card_hash: 'forged', card_updated_at: Number(aliceCard.card_updated_at) + 1 };
      const hostile = [
        // The US as the owner's region of alice's subscriptions: she is the EU's.
        { kind: 'subscription', from: 'owner', subscription: subscription(subs.carolAlice, alice.username, carol.username, 'revoked') },
        { kind: 'subscription', from: 'owner', subscription: subscription(subs.bobAlice, alice.username, carol.username, 'revoked') },
        // The US's dave, owner of carol's subscription, handing her alice's EU profile as his card.
        { kind: 'subscription', from: 'owner', subscription: subscription(subs.carolDave, dave.username, carol.username, 'active', localCard) },
        // The US as the subscriber's region of subscriptions whose subscriber is no US person.
        { kind: 'subscription', from: 'subscriber', subscription: subscription(subs.carolAlice, alice.username, carol.username, 'ended') },
        { kind: 'subscription', from: 'subscriber', subscription: subscription(subs.carolAlice, alice.username, bob.username, 'ended') },
        // …or whose owner is no EU person.
        { kind: 'subscription', from: 'subscriber', subscription: subscription(subs.carolDave, dave.username, carol.username, 'ended') },
        // A card of the EU's own profile, said to be the US bob's.
        { kind: 'card', owner: bob.username, card: localCard },
        // A contact carol never asked for: a new id, a US owner made up, active with a card.
        { kind: 'subscription', from: 'owner', subscription: subscription('sub_neverAskedFor00000000', 'zed', carol.username, 'active', { ...localCard, id: 'prf_neverAskedFor0000000', card_hash: 'zed' }) },
      ];
      const mismatch = { status: 'refused', code: 'region_subject_mismatch' };

      let was = await snapshot(r.eu, ACCEPTED);
      const alone = await forge(r.eu, usKey, { body: JSON.stringify({ deliveries: hostile }) });
      assert.equal(alone.status, 200, JSON.stringify(alone.body));
      assert.deepEqual(alone.body.results, hostile.map(() => mismatch));
      assert.deepEqual(changes(was, await snapshot(r.eu, ACCEPTED)), {}, 'nothing written');

      // Between them, a card edit the US may well send (dave's, whose follower carol is here): applied.
      const daveCard = await db.selectFrom('profiles').select(['card_json', 'card_hash', 'card_updated_at']).where('id', '=', desk.id).executeTakeFirstOrThrow();
      const edited = { id: desk.id, card_json: daveCard.card_json, card_hash: `${daveCard.card_hash}-2`, card_updated_at: Number(daveCard.card_updated_at) + 1 };
      const mixed = [hostile[0], { kind: 'card', owner: dave.username, card: edited }, ...hostile.slice(1)];
      was = await snapshot(r.eu, ACCEPTED);
      const batch = await forge(r.eu, usKey, { body: JSON.stringify({ deliveries: mixed }) });
      assert.equal(batch.status, 200, JSON.stringify(batch.body));
      assert.deepEqual(batch.body.results, [mismatch, { status: 'applied' }, ...hostile.slice(1).map(() => mismatch)]);
      const written = changes(was, await snapshot(r.eu, ACCEPTED));
      const copy = await db.selectFrom('profiles').select(['account_id', 'card_hash', 'card_updated_at']).where('id', '=', desk.id).executeTakeFirstOrThrow();
      assert.equal(copy.card_hash, edited.card_hash);
      assert.equal(Number(copy.card_updated_at), edited.card_updated_at);
      // Only dave's copy changed (and what a changed card tells carol: her feed, the card-change log).
      assert.deepEqual(written.profiles?.added.map((row) => JSON.parse(row).id), [desk.id]);
      for (const table of ['accounts', 'subscriptions', 'region_outbox', 'profile_exposures', 'fields']) assert.equal(written[table], undefined, `${table} unchanged`);
      assert.equal((await eu.get(alice, `/subscriptions/${subs.carolAlice}`)).body.status, 'active');
      assert.equal((await eu.get(alice, `/subscriptions/${subs.bobAlice}`)).body.status, 'active');
      assert.equal((await eu.get(carol, `/contacts/${subs.carolAlice}`)).body.status, 'active');
      assert.equal((await eu.get(carol, `/contacts/${subs.carolDave}`)).body.status, 'active');
    });

    it('answers deliveries about nobody here as old news, without writing a thing', async () => {
      const was = await snapshot(r.eu, ACCEPTED);
      const nobody = [
        // An account of the EU's, said by the US to be gone: the US speaks only of its own people.
        { kind: 'account', username: alice.username, display_name: 'gone', deleted: true, locked: true, gone: true, version: 99 },
        { kind: 'account', username: 'nobody-here', display_name: null, deleted: true, locked: false, gone: false, version: 99 },
        // bob's subscription to alice, the US posing as its owner's region, its subscriber named as
        // the US names him: no person of the EU has that name, so there is nobody here to tell.
        {
          kind: 'subscription',
          from: 'owner',
          subscription: { id: subs.bobAlice, owner: { username: alice.username, display_name: null }, subscriber: bob.username, status: 'revoked', version: 1000, message: null, created_at: 1, updated_at: 1, card_since: null, card_changes: null, card: null },
        },
        // A card of a US person nobody here follows.
        { kind: 'card', owner: 'nobody-here', card: { id: 'prf_nothere', card_json: '{}', card_hash: 'x', card_updated_at: 1 } },
      ];
      const answer = await forge(r.eu, usKey, { body: JSON.stringify({ deliveries: nobody }) });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.results, nobody.map(() => ({ status: 'unchanged' })));
      assert.deepEqual(changes(was, await snapshot(r.eu, ACCEPTED)), {}, 'nothing written');
    });

    it('refuses bodies of no shape, whole or one delivery at a time, never with a 5xx', async () => {
      const invalid = { status: 'refused', code: 'validation_failed' };
      for (const [body, code] of [
        ['{"deliveries": [', 'invalid_json'],
        ['', 'invalid_json'],
        ['null', 'validation_failed'],
        ['[]', 'validation_failed'],
        ['"deliveries"', 'validation_failed'],
        ['{}', 'validation_failed'],
        ['{"deliveries": {"0": {}}}', 'validation_failed'],
      ] as const) {
        for (const path of [DELIVERIES, REQUESTS]) {
          const was = await snapshot(r.eu, ACCEPTED);
          const answer = await forge(r.eu, usKey, { path, body });
          const expected = path === REQUESTS && code === 'validation_failed' ? 'validation_failed' : code;
          expectProblem(answer, 400, expected, `${path} ${body}`);
          assert.deepEqual(changes(was, await snapshot(r.eu, ACCEPTED)), {}, 'nothing written');
        }
      }

      const shapes: unknown[] = [
        null,
        1,
        'card',
        [],
        {},
        { kind: 'mystery' },
        { kind: 'card', owner: dave.username },
        { kind: 'card', owner: dave.username, card: { id: desk.id, card_json: 'not json', card_hash: 'x', card_updated_at: 1 } },
        { kind: 'card', owner: dave.username, card: { id: desk.id, card_json: '[]', card_hash: 'x', card_updated_at: 1 } },
        { kind: 'card', owner: dave.username, card: { id: desk.id, card_json: '{}', card_hash: 'x', card_updated_at: -1 } },
        { kind: 'card', owner: '', card: { id: desk.id, card_json: '{}', card_hash: 'x', card_updated_at: 1 } },
        { kind: 'account', username: bob.username, deleted: 'yes', locked: false, gone: false, display_name: null, version: 99 },
        { kind: 'account', username: bob.username, deleted: true, locked: false, gone: false, display_name: null },
        { kind: 'account', username: bob.username, deleted: true, locked: false, gone: false, display_name: null, version: '99' },
        { kind: 'subscription', from: 'somebody', subscription: {} },
        { kind: 'subscription', from: 'owner', subscription: { id: subs.bobAlice, owner: { username: alice.username, display_name: null }, subscriber: bob.username, status: 'blocked', version: 9 } },
        { kind: 'subscription', from: 'owner', subscription: { id: subs.carolDave, owner: { username: dave.username, display_name: null }, subscriber: carol.username, status: 'revoked', version: 1.5, message: null, created_at: 1, updated_at: 1, card_since: null, card_changes: null, card: null } },
        { kind: 'subscription', from: 'owner', subscription: { id: 'x'.repeat(65), owner: { username: dave.username, display_name: null }, subscriber: carol.username, status: 'revoked', version: 2, message: null, created_at: 1, updated_at: 1, card_since: null, card_changes: null, card: null } },
      ];
      const was = await snapshot(r.eu, ACCEPTED);
      const answer = await forge(r.eu, usKey, { body: JSON.stringify({ deliveries: shapes }) });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.results, shapes.map(() => invalid));
      assert.deepEqual(changes(was, await snapshot(r.eu, ACCEPTED)), {}, 'nothing written');

      // Subscription requests of no shape, or naming nobody here.
      for (const [body, status, code] of [
        [{ owner: alice.username }, 400, 'validation_failed'],
        [{ owner: 1, subscriber: 'mallory' }, 400, 'validation_failed'],
        [{ owner: alice.username, subscriber: 'mallory', message: 5 }, 400, 'validation_failed'],
        [{ owner: alice.username, subscriber: '' }, 400, 'validation_failed'],
        [{ owner: alice.username, subscriber: 'm'.repeat(129) }, 400, 'validation_failed'],
        [{ owner: alice.username, subscriber: `${carol.username}@eu` }, 400, 'validation_failed'],
        [{ owner: alice.username, subscriber: 'mallory', message: 'm'.repeat(5000) }, 400, 'validation_failed'],
        [{ owner: `${bob.username}@us`, subscriber: 'mallory' }, 404, 'account_not_found'],
        [{ owner: 'nobody-here', subscriber: 'mallory' }, 404, 'account_not_found'],
      ] as const) {
        const before = await snapshot(r.eu, ACCEPTED);
        expectProblem(await forge(r.eu, usKey, { path: REQUESTS, body: JSON.stringify(body) }), status, code, JSON.stringify(body));
        assert.deepEqual(changes(before, await snapshot(r.eu, ACCEPTED)), {}, 'nothing written');
      }

      // Not JSON at all, by its content type: refused before anything is read.
      const before = await snapshot(r.eu);
      expectProblem(await forge(r.eu, usKey, { signed: { contentType: 'text/plain' }, headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
      assert.deepEqual(changes(before, await snapshot(r.eu)), {}, 'nothing written');
    });
  });
}
