// Card changes fanned out on read (decision 220; PRODUCT §4, §7): an edit is one row of the
// card-change log whatever the owner's audience; every follower's feed (GET /events, the stream)
// reads it as contact.card.changed; live streams hear it on every node; and a follower revoked in
// the same millisecond as an edit never hears of it unless the edit committed first.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse, postOn, startNodes } from '../helpers/nodes.js';
import type { SseClient, TestCluster, TestNode } from '../helpers/nodes.js';

const API = '/api/v1';

for (const backend of backends) {
  describe(`signals: card edits in every follower's feed, written once [${backend.name}]`, { skip: backend.skip }, () => {
    let cluster: TestCluster;
    /** The owner's node, and the followers' (another node on PostgreSQL: the wake-up crosses nodes). */
    let ownerNode: TestNode;
    let followerNode: TestNode;
    const open: SseClient[] = [];
    before(async () => {
      cluster = await startNodes(backend, backend.name === 'postgres' ? 2 : 1, { EVENTS_HEARTBEAT_S: '0.2' });
      ownerNode = cluster.nodes[0]!;
      followerNode = cluster.nodes.at(-1)!;
    });
    after(async () => {
      for (const stream of open) stream.close();
      await cluster.close();
    });

    const db = () => cluster.store.handle.db;
    const count = async (table: 'events' | 'card_change_log') => Number((await db().selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    /** An owner with a phone shown on one profile; `edit()` changes the number (the card changes). */
    async function owner() {
      const device = await ownerNode.client.signUp(uniqueName('owner'));
      const phone = await postOn(ownerNode, device, '/me/fields', { type: 'phone', value: '+49 30 22732150' });
      const work = await postOn(ownerNode, device, '/profiles', { name: 'Work' });
      const other = await postOn(ownerNode, device, '/profiles', { name: 'Other' });
      assert.equal((await ownerNode.client.as(device, 'PUT', `${API}/profiles/${work.id}/exposures/${phone.id}`, { body: {} })).status, 201);
      let version = 1;
      let n = 0;
      return {
        device,
        work: work.id as string,
        other: other.id as string,
        async edit(): Promise<number> {
          const res = await ownerNode.client.as(device, 'PATCH', `${API}/me/fields/${phone.id}`, { body: { value: `+49 30 2273${String(++n).padStart(4, '0')}` }, headers: { 'if-match': `"${version}"` } });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          version++;
          return res.status;
        },
      };
    }

    async function follow(follower: Device, of: Device, profileId: string): Promise<string> {
      const contact = await postOn(followerNode, follower, '/contacts', { username: of.username });
      await postOn(ownerNode, of, `/subscriptions/${contact.id}/approve`, { profile_id: profileId });
      return contact.id as string;
    }

    async function poll(device: Device, since?: string): Promise<{ data: Array<{ id: string; kind: string; resource: string }>; next_cursor: string }> {
      const res = await followerNode.client.as(device, 'GET', `${API}/events?limit=200${since ? `&since=${since}` : ''}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    }
    const cardSignals = (page: { data: Array<{ id: string; kind: string; resource: string }> }, contactId: string) =>
      page.data.filter((s) => s.kind === 'contact.card.changed' && s.resource === `/contacts/${contactId}/card`);

    it('writes the same rows for an edit whatever the audience: one log row, no signal row per follower', async () => {
      const written = async (followers: number) => {
        const o = await owner();
        for (let i = 0; i < followers; i++) await follow(await followerNode.client.signUp(uniqueName('f')), o.device, o.work);
        const [events, log] = [await count('events'), await count('card_change_log')];
        await o.edit();
        return { events: (await count('events')) - events, log: (await count('card_change_log')) - log };
      };
      const one = await written(1);
      const many = await written(12);
      assert.deepEqual(many, one, 'twelve followers cost what one does');
      assert.equal(one.log, 1, 'one row of the card-change log per edited card');
    });

    it('puts the edit in every follower\'s feed as contact.card.changed, once per poll, and not in anyone else\'s', async () => {
      const o = await owner();
      const [bob, carol, dave] = [await followerNode.client.signUp(uniqueName('bob')), await followerNode.client.signUp(uniqueName('carol')), await followerNode.client.signUp(uniqueName('dave'))];
      const bobContact = await follow(bob, o.device, o.work);
      const carolContact = await follow(carol, o.device, o.other);
      const daveRequest = await postOn(followerNode, dave, '/contacts', { username: o.device.username });
      const cursors = { bob: (await poll(bob)).next_cursor, carol: (await poll(carol)).next_cursor, dave: (await poll(dave)).next_cursor };
      await o.edit();
      await o.edit();
      const bobPage = await poll(bob, cursors.bob);
      assert.equal(cardSignals(bobPage, bobContact).length, 1, 'two edits since the last poll: one signal, the card is pulled once');
      assert.equal(cardSignals(await poll(bob, bobPage.next_cursor), bobContact).length, 0, 'nothing new after it');
      assert.equal(cardSignals(await poll(carol, cursors.carol), carolContact).length, 0, 'Carol receives another profile');
      assert.equal((await poll(dave, cursors.dave)).data.length, 0, 'a pending request hears of nothing');
      assert.ok(daveRequest.id);
      // The signal's id resumes after it, as every cursor does.
      const signal = cardSignals(bobPage, bobContact)[0]!;
      await o.edit();
      assert.equal(cardSignals(await poll(bob, signal.id), bobContact).length, 1);
    });

    it('delivers an edit live to a follower who was let in after the stream opened, and after a move', async () => {
      const o = await owner();
      const bob = await followerNode.client.signUp(uniqueName('bob'));
      const stream = await openSse(followerNode.client, bob);
      open.push(stream);
      await stream.waitForComment('heartbeat');
      const contact = await follow(bob, o.device, o.work);
      await o.edit();
      await stream.waitForSignals(3, 3000);
      assert.deepEqual(stream.signals.filter((s) => s.kind === 'contact.card.changed').map((s) => s.resource), [`/contacts/${contact}/card`]);
      // Moved to a profile that shows nothing: the move changes his card (told once), and edits of Work no longer concern him.
      const beforeMove = stream.signals.length;
      await postOn(ownerNode, o.device, `/subscriptions/${contact}/move`, { profile_id: o.other });
      await stream.waitForSignals(beforeMove + 1, 3000);
      assert.deepEqual(stream.signals.slice(beforeMove).map((s) => s.kind), ['contact.card.changed'], 'the move');
      const heard = stream.signals.length;
      await o.edit();
      await sleep(300);
      assert.deepEqual(stream.signals.slice(heard).filter((s) => s.kind === 'contact.card.changed'), [], 'Bob no longer receives Work');
      stream.close();
    });

    it('never tells a follower moved by a profile\'s deletion (move_to) of an edit of the new profile made before the move', async () => {
      const o = await owner();
      const bob = await followerNode.client.signUp(uniqueName('bob'));
      const contact = await follow(bob, o.device, o.other);
      const cursor = (await poll(bob)).next_cursor;
      // Work changes while Bob receives Other: not his card.
      await o.edit();
      const other = await ownerNode.client.as(o.device, 'GET', `${API}/profiles/${o.other}`);
      const removed = await ownerNode.client.as(o.device, 'DELETE', `${API}/profiles/${o.other}?move_to=${o.work}`, { headers: { 'if-match': `"${other.body.version}"` } });
      assert.equal(removed.status, 204, JSON.stringify(removed.body));
      const page = await poll(bob, cursor);
      assert.equal(cardSignals(page, contact).length, 1, `the move alone changed his card: ${JSON.stringify(page.data)}`);
      // Edits after the move are his to hear of, as for any other way in.
      await o.edit();
      assert.equal(cardSignals(await poll(bob, page.next_cursor), contact).length, 1, 'an edit after the move');
      const rows = await db().selectFrom('card_change_log').select(['subscriber_id', 'profile_id']).where('owner_id', '=', o.device.accountId).orderBy('seq', 'desc').limit(2).execute();
      assert.deepEqual(rows[1], { subscriber_id: bob.accountId, profile_id: null }, 'the move is a row of his own, like a move of one');
    });

    it('never tells a follower revoked in the same millisecond of an edit that committed after the revocation', async () => {
      const o = await owner();
      const bob = await followerNode.client.signUp(uniqueName('bob'));
      const stream = await openSse(followerNode.client, bob);
      open.push(stream);
      await stream.waitForComment('heartbeat');
      const orders = { editFirst: 0, revokeFirst: 0 };
      for (let round = 0; round < 12; round++) {
        const contact = await follow(bob, o.device, o.work);
        const cursor = (await poll(bob)).next_cursor;
        const heard = stream.signals.length;
        const logStart = await count('card_change_log');
        // The clock stands still: the edit and the revocation happen in the same millisecond.
        await Promise.all([o.edit(), ownerNode.client.as(o.device, 'POST', `${API}/subscriptions/${contact}/revoke`, { body: {}, headers: { 'idempotency-key': randomUUID() } }).then((res) => assert.equal(res.status, 200))]);
        const rows = await db().selectFrom('card_change_log').select(['seq', 'profile_id', 'subscriber_id', 'edited']).where('owner_id', '=', o.device.accountId).orderBy('seq', 'desc').limit(2).execute();
        assert.ok((await count('card_change_log')) >= logStart + 2);
        const editSeq = Number(rows.find((r) => Number(r.edited) === 1)!.seq);
        const revokeSeq = Number(rows.find((r) => r.subscriber_id === bob.accountId)!.seq);
        const editFirst = editSeq < revokeSeq;
        if (editFirst) orders.editFirst++;
        else orders.revokeFirst++;
        // Polled after both: a follower who no longer receives the card hears of no change of it.
        assert.deepEqual(cardSignals(await poll(bob, cursor), contact), [], `round ${round}: the poll after the revocation`);
        // Live: only an edit that committed while he still received the card may have reached him.
        await stream.waitForSignals(heard + 1, 3000);
        await sleep(100);
        const live = stream.signals.slice(heard).filter((s) => s.kind === 'contact.card.changed' && s.resource === `/contacts/${contact}/card`);
        if (!editFirst) assert.deepEqual(live, [], `round ${round}: the edit committed after the revocation`);
        // Unsubscribed for the next round (a revoked subscription is final; he asks again).
      }
      assert.equal(orders.editFirst + orders.revokeFirst, 12);
      stream.close();
    });
  });
}
