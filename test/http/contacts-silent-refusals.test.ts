// Silent refusals (PRODUCT §4, 2026-11-28): a person whose request was denied, or who is blocked,
// cannot tell it from a request not yet answered. The property runs two worlds side by side on one
// server: in world A the owner denies, blocks and unblocks at random; in world B the owner never
// answers. Both requesters take the same steps (ask, ask again, withdraw, wait a month) and the
// owners the same visible ones (approve, revoke, while both still can), and after every step
// everything each requester can observe through the API must be the same: its contact, its list
// under every status filter, the card's answer, the signals it was sent, each answer it got.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { CallResult, Device } from '../helpers/client.js';
import { API, social } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';

const DAY = 86_400_000;

type Step = 'ask' | 'withdraw' | 'wait' | 'approve' | 'revoke' | 'deny' | 'block' | 'unblock';
const stepArb = fc.constantFrom<Step>('ask', 'ask', 'withdraw', 'wait', 'approve', 'revoke', 'deny', 'deny', 'block', 'block', 'unblock', 'unblock');

/** One side of the experiment: an owner, who asks them, and what the owner can see of it. */
interface World {
  owner: Device;
  requester: Device;
  profileId: string;
  /** The requester's current contact id, as the answers told it. */
  contact?: string;
  /** Signals the requester's feed carried so far. */
  seen: number;
}

/** What a requester can observe, made comparable across worlds (ids, names and clock readings relative). */
async function observe(s: Social, w: World): Promise<unknown> {
  const lists: Record<string, unknown> = {};
  for (const status of ['', 'pending', 'active', 'denied', 'revoked', 'ended']) {
    const res = await s.get(w.requester, `/contacts?limit=50${status ? `&status=${status}` : ''}`);
    assert.equal(res.status, 200);
    lists[status || 'all'] = res.body.data.map((c: any) => c.id === w.contact);
  }
  let contact: unknown = null;
  let card: unknown = null;
  if (w.contact) {
    const res = await s.get(w.requester, `/contacts/${w.contact}`);
    contact = res.status === 200 ? normalise(res.body) : [res.status, res.body.code];
    const cardRes = await s.get(w.requester, `/contacts/${w.contact}/card`);
    card = [cardRes.status, cardRes.body?.code ?? null];
  }
  const signals = (await s.signals(w.requester)).slice(w.seen).map(([kind]) => kind);
  w.seen += signals.length;
  return { lists, contact, card, signals };
}

function normalise(view: any): unknown {
  const created = Date.parse(view.created_at);
  return { status: view.status, message: view.message, labels: view.labels, version: view.version, updated: Date.parse(view.updated_at) - created, card: view.card_updated_at === null ? null : 'set' };
}

const answer = (res: CallResult, w: World) => [res.status, res.body?.code ?? null, res.body?.contact_id ? res.body.contact_id === w.contact : null, res.body?.status ?? null];

for (const backend of backends) {
  describe(`silent refusals: a refused person cannot tell it from no answer [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => {
      // Months pass in these tests: sessions that outlive them, so every step is the same person's.
      t = await startTestApp(backend, { ACCESS_TOKEN_TTL_S: String(5 * 365 * 86_400), SESSION_MAX_AGE_S: String(5 * 365 * 86_400) });
      s = social(t);
    });
    after(() => t.close());

    async function world(): Promise<World> {
      const owner = await s.person('silent-owner');
      return { owner, requester: await s.person('silent-asker'), profileId: (await s.profile(owner, 'Friends')).id, seen: 0 };
    }

    /** The owner's own view of the request in world A, which it may act on. */
    async function ownerSees(w: World): Promise<{ status: string } | undefined> {
      if (!w.contact) return undefined;
      const res = await s.get(w.owner, `/subscriptions/${w.contact}`);
      return res.status === 200 ? res.body : undefined;
    }

    it('after every step, both requesters observe the same', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 6, maxLength: 12 }), async (steps) => {
          const a = await world();
          const b = await world();
          let blocked = false;
          // Both owners have answered nothing visible so far; once world A's owner could not make the
          // same visible move as B's (its request is denied or silenced), the visible moves stop.
          for (const step of steps) {
            t.clock.advance(60_000);
            const seenByA = await ownerSees(a);
            const seenByB = await ownerSees(b);
            const said: unknown[] = [];
            switch (step) {
              case 'ask':
                for (const w of [a, b]) {
                  const res = await s.subscribe(w.requester, w.owner, 'hello');
                  if (res.status === 201) w.contact = res.body.id;
                  said.push(answer(res, w));
                }
                break;
              case 'withdraw':
                for (const w of [a, b]) if (w.contact) said.push((await t.client.as(w.requester, 'DELETE', `${API}/contacts/${w.contact}`)).status);
                break;
              case 'wait':
                t.clock.advance(31 * DAY);
                await t.services.subscriptions.endUnanswered(t.clock.now());
                break;
              case 'approve':
                // Only while both owners see a request they can approve.
                if (seenByA?.status === 'pending' && seenByB?.status === 'pending') {
                  for (const w of [a, b]) said.push((await s.approve(w.owner, w.contact!, w.profileId)).status);
                }
                break;
              case 'revoke':
                if (seenByA?.status === 'active' && seenByB?.status === 'active') {
                  for (const w of [a, b]) said.push((await s.post(w.owner, `/subscriptions/${w.contact}/revoke`, {})).status);
                }
                break;
              case 'deny':
              case 'block':
                // World A's owner refuses (and maybe blocks); world B's owner does nothing.
                if (seenByA?.status === 'pending') {
                  const res = await s.post(a.owner, `/subscriptions/${a.contact}/deny`, { block: step === 'block' });
                  assert.equal(res.status, 200, JSON.stringify(res.body));
                  blocked ||= step === 'block';
                }
                break;
              case 'unblock':
                if (blocked) {
                  assert.equal((await t.client.as(a.owner, 'DELETE', `${API}/blocks/${a.requester.username}`)).status, 204);
                  blocked = false;
                }
                break;
            }
            if (said.length === 2) assert.deepEqual(said[0], said[1], `${step}: the answers`);
            assert.deepEqual(await observe(s, a), await observe(s, b), `after ${step} (${steps.join(', ')})`);
          }
        }),
        { numRuns: backend.name === 'sqlite' ? 6 : 4, includeErrorInReport: true },
      );
    });

    it('the owner never sees a blocked person\'s request, nor is told of it; lifting the block lets it through', async () => {
      const { owner, requester, profileId } = await world();
      const first = (await s.subscribe(requester, owner)).body;
      await s.post(owner, `/subscriptions/${first.id}/deny`, { block: true });
      // The person withdraws and asks again: 201 pending, as anyone gets.
      assert.equal((await t.client.as(requester, 'DELETE', `${API}/contacts/${first.id}`)).status, 204);
      const before = (await s.signals(owner)).length;
      const again = await s.subscribe(requester, owner, 'please');
      assert.equal(again.status, 201);
      assert.equal(again.body.status, 'pending');
      assert.equal((await s.signals(owner)).length, before, 'the owner is told nothing');
      const listed = await s.get(owner, '/subscriptions?limit=50');
      assert.ok(!listed.body.data.some((sub: { id: string }) => sub.id === again.body.id), 'not in the owner\'s list');
      assert.equal((await s.get(owner, `/subscriptions/${again.body.id}`)).status, 404);
      assert.equal((await s.post(owner, `/subscriptions/${again.body.id}/approve`, { profile_id: profileId })).status, 404);
      // Unblocked: the request arrives as any request does, and the owner may approve it.
      assert.equal((await t.client.as(owner, 'DELETE', `${API}/blocks/${requester.username}`)).status, 204);
      assert.ok((await s.signals(owner)).length > before, 'the owner is told it arrived');
      const arrived = await s.get(owner, `/subscriptions/${again.body.id}`);
      assert.equal(arrived.body.status, 'pending');
      assert.equal(arrived.body.message, 'please');
      assert.equal((await s.approve(owner, again.body.id, profileId)).status, 200);
      assert.equal((await s.get(requester, `/contacts/${again.body.id}/card`)).status, 200);
    });

    it('a request left unanswered, denied or silenced ends after 30 days; the owner still sees denied until then', async () => {
      const { owner } = await world();
      const [waiting, blocked, denied] = [await s.person('w'), await s.person('b'), await s.person('d')];
      const w = (await s.subscribe(waiting, owner)).body.id as string;
      const r = (await s.subscribe(blocked, owner)).body.id as string;
      await s.post(owner, `/subscriptions/${r}/deny`, { block: true });
      await t.client.as(blocked, 'DELETE', `${API}/contacts/${r}`);
      // Asked again while blocked: silenced. And another request, denied.
      const q = (await s.subscribe(blocked, owner)).body.id as string;
      const d = (await s.subscribe(denied, owner)).body.id as string;
      await s.post(owner, `/subscriptions/${d}/deny`, {});
      assert.equal((await s.get(owner, `/subscriptions/${r}`)).body.status, 'ended', 'withdrawn');
      assert.equal((await s.get(owner, `/subscriptions/${d}`)).body.status, 'denied');
      t.clock.advance(29 * DAY);
      await t.services.subscriptions.endUnanswered(t.clock.now());
      assert.equal((await s.get(waiting, `/contacts/${w}`)).body.status, 'pending', 'not yet');
      t.clock.advance(2 * DAY);
      await t.services.subscriptions.endUnanswered(t.clock.now());
      for (const [device, id] of [[waiting, w], [blocked, q], [denied, d]] as const) {
        assert.equal((await s.get(device, `/contacts/${id}`)).body.status, 'ended');
      }
      assert.equal((await s.get(owner, `/subscriptions/${w}`)).body.status, 'ended');
      assert.equal((await s.get(owner, `/subscriptions/${d}`)).body.status, 'ended');
      const rows = await t.store.handle.db.selectFrom('subscriptions').select(['id', 'status']).where('id', 'in', [w, q, d]).execute();
      assert.deepEqual(new Set(rows.map((row) => row.status)), new Set(['ended']));
    });
  });
}
