// Card changes committing at once (decisions 180, 342): owners edit, approve and revoke
// concurrently while their followers sync their address books and read their feeds from their
// positions, on both backends. A position is only useful if no change commits below it after
// it was read: so at the end every follower's book, kept up to date only by syncs from its
// tokens, must equal a full read of its book, and every round's edits must have reached every
// follower's feed after the cursor it held when the round began.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { bookPaths, dav, davLogin, readMultistatus, syncBody } from '../helpers/address-book.js';
import type { DavLogin } from '../helpers/address-book.js';

const OWNERS = 6;
const FOLLOWERS = 4;
const ROUNDS = 4;

interface Owner {
  device: Device;
  profile: string;
  nickname: { id: string; version: number };
}

/** A follower's book as its phone keeps it: only what syncs from its last token told it. */
interface Replica {
  login: DavLogin;
  token: string;
  cards: Map<string, string>;
}

for (const backend of backends) {
  describe(`card changes committing at once [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;

    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    /** One sync from the replica's token, applied to it; a token of a full read when `full`. */
    async function sync(replica: Replica, full = false): Promise<Map<string, string>> {
      const paths = bookPaths(replica.login.accountId);
      const cards = full ? new Map<string, string>() : replica.cards;
      let token = full ? '' : replica.token;
      for (;;) {
        const res = await dav(t.baseUrl, replica.login, 'REPORT', paths.book, { body: syncBody(token), depth: '1' });
        assert.equal(res.status, 207, res.text);
        const read = readMultistatus(res.text);
        token = read.syncToken!;
        let truncated = false;
        for (const r of read.responses) {
          if (r.href === paths.book) {
            truncated = true;
            continue;
          }
          if (r.status?.includes('404')) cards.delete(r.href);
          else cards.set(r.href, r.ok.get('{DAV:}getetag')!.textContent!);
        }
        if (!truncated) break;
      }
      if (!full) replica.token = token;
      return cards;
    }

    async function editNickname(o: Owner, value: string): Promise<void> {
      const res = await t.client.as(o.device, 'PATCH', `${API}/me/fields/${o.nickname.id}`, { body: { value }, headers: { 'if-match': `"${o.nickname.version}"` } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      o.nickname.version = res.body.version;
    }

    it('no follower\'s sync or feed misses a change that commits while it reads, whatever the interleaving', async () => {
      const owners: Owner[] = [];
      for (let i = 0; i < OWNERS; i++) {
        const device = await s.person(`racer${i}`);
        const nickname = await s.field(device, { type: 'nickname', value: `racer ${i}` });
        const profile = (await s.profile(device, 'Friends')).id;
        await s.expose(device, profile, nickname.id);
        owners.push({ device, profile, nickname: { id: nickname.id, version: 1 } });
      }
      // Each follower follows every other owner from the start; the rest ask during the race.
      const followers: Array<{ device: Device; replica: Replica; contacts: Map<string, string> }> = [];
      for (let f = 0; f < FOLLOWERS; f++) {
        const device = await s.person(`watcher${f}`);
        const contacts = new Map<string, string>();
        for (const [i, o] of owners.entries()) if ((i + f) % 2 === 0) contacts.set(o.device.accountId, await s.connect(device, o.device, o.profile));
        const replica: Replica = { login: await davLogin(t, device), token: '', cards: new Map() };
        await sync(replica);
        await s.signals(device);
        followers.push({ device, replica, contacts });
      }
      const pending: Array<{ follower: number; owner: Owner; id: string }> = [];
      for (const [f, follower] of followers.entries()) {
        for (const o of owners) {
          if (follower.contacts.has(o.device.accountId)) continue;
          const request = await s.subscribe(follower.device, o.device);
          assert.equal(request.status, 201);
          pending.push({ follower: f, owner: o, id: request.body.id });
        }
      }

      for (let round = 0; round < ROUNDS; round++) {
        t.clock.advance(1000);
        const heardBefore = followers.map(() => 0);
        for (const [f, follower] of followers.entries()) heardBefore[f] = (await s.signals(follower.device)).length;
        // Every owner edits; some let a waiting follower in, one revokes; followers sync and read all along.
        const writes = owners.map((o, i) => editNickname(o, `racer ${i} round ${round}`));
        // An edit racing the approval may come before it: not that follower's to hear of (rule 4 of read-side.ts).
        const justLetIn = new Set<string>();
        const lettingIn = pending.splice(0, 3).map(async (p) => {
          justLetIn.add(p.id);
          const res = await s.approve(p.owner.device, p.id, p.owner.profile);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          followers[p.follower]!.contacts.set(p.owner.device.accountId, p.id);
        });
        // Followers read from their positions for as long as the writes go on.
        let writing = true;
        const written = Promise.all([...writes, ...lettingIn]).finally(() => (writing = false));
        const reads = followers.map(async (follower) => {
          while (writing) {
            await sync(follower.replica);
            await s.signals(follower.device);
          }
        });
        await Promise.all([written, ...reads]);
        if (round === 1) {
          // A revoke racing an edit of the same owner.
          const [f, follower] = [0, followers[0]!];
          const [ownerId, contactId] = [...follower.contacts][0]!;
          const owner = owners.find((o) => o.device.accountId === ownerId)!;
          const [revoked] = await Promise.all([
            s.post(owner.device, `/subscriptions/${contactId}/revoke`, {}),
            editNickname(owner, `racer revoked round ${round}`),
            sync(followers[f]!.replica),
          ]);
          assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
          follower.contacts.delete(ownerId);
        }

        for (const [f, follower] of followers.entries()) {
          // The book kept by syncs alone is the book.
          await sync(follower.replica);
          assert.deepEqual(new Map([...follower.replica.cards].sort()), new Map([...(await sync(follower.replica, true))].sort()), `round ${round}: follower ${f}'s synced book`);
          // Every card it receives was edited this round: its feed carried each after its cursor.
          const heard = (await s.signals(follower.device)).slice(heardBefore[f]).filter(([kind]) => kind === 'contact.card.changed').map(([, resource]) => resource);
          for (const contactId of follower.contacts.values()) {
            if (!justLetIn.has(contactId)) assert.ok(heard.includes(`/contacts/${contactId}/card`), `round ${round}: follower ${f} heard of ${contactId}`);
          }
        }
      }
    });
  });
}
