// The audience rule for photos against a small model (fast-check): after random approvals,
// moves, revocations, denials, withdrawals and exposures, each of two photos is fetched by three
// followers, a stranger and an anonymous visitor, and answers 200 exactly when the model says a
// card they see shows it (the owner's public card for everyone, the profile a follower is active
// on for that follower), 404 otherwise.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, social } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { upload } from '../helpers/photos.js';

const PROFILES = ['a', 'c', 'p'] as const; // p is the public profile
type ProfileKey = (typeof PROFILES)[number];
type Step =
  | { kind: 'approve' | 'move'; follower: number; profile: 'a' | 'c' }
  | { kind: 'revoke' | 'deny' | 'withdraw' | 'ask'; follower: number }
  | { kind: 'expose' | 'hide'; photo: number; profile: ProfileKey };

const follower = fc.integer({ min: 0, max: 2 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('approve' as const, 'move' as const), follower, profile: fc.constantFrom('a' as const, 'c' as const) }),
  fc.record({ kind: fc.constantFrom('revoke' as const, 'deny' as const, 'withdraw' as const, 'ask' as const), follower }),
  fc.record({ kind: fc.constantFrom('expose' as const, 'hide' as const), photo: fc.integer({ min: 0, max: 1 }), profile: fc.constantFrom(...PROFILES) }),
);

interface Follower {
  device: Device;
  contact?: string;
  /** What the owner sees of the request: the model's state. */
  state: 'none' | 'pending' | 'denied' | 'active' | 'gone';
  profile?: 'a' | 'c';
}

for (const backend of backends) {
  describe(`photos: who may fetch which photo, against a model [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    let jpeg: Buffer;
    before(async () => {
      t = await startTestApp(backend);
      s = social(t);
      jpeg = await sharp({ create: { width: 96, height: 96, channels: 3, background: '#3a7' } }).jpeg().toBuffer();
    });
    after(() => t.close());

    it('answers 200 exactly to those a card shows the photo to', async () => {
      const stranger = await s.person('stranger');
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 4, maxLength: 10 }), async (steps) => {
          const owner = await s.person('owner');
          const photos: string[] = [];
          const fields: string[] = [];
          for (let i = 0; i < 2; i++) {
            photos.push((await upload(t, owner, jpeg)).body.id);
            fields.push((await s.field(owner, { type: 'photo', value: { photo_id: photos[i] } })).id);
          }
          const profileIds = { a: (await s.profile(owner, 'A')).id, c: (await s.profile(owner, 'C')).id, p: (await s.profile(owner, 'P', true)).id } as Record<ProfileKey, string>;
          const exposed = new Set<string>(); // `${photo}:${profile}`
          const followers: Follower[] = [];
          for (let i = 0; i < 3; i++) {
            const device = await s.person('follower');
            const contact = (await s.subscribe(device, owner)).body.id as string;
            followers.push({ device, contact, state: 'pending' });
          }
          for (const step of steps) {
            if (step.kind === 'expose' || step.kind === 'hide') {
              const key = `${step.photo}:${step.profile}`;
              if (step.kind === 'expose') {
                await s.expose(owner, profileIds[step.profile], fields[step.photo]!);
                exposed.add(key);
              } else if (exposed.has(key)) {
                assert.equal((await t.client.as(owner, 'DELETE', `${API}/profiles/${profileIds[step.profile]}/exposures/${fields[step.photo]}`)).status, 204);
                exposed.delete(key);
              }
              continue;
            }
            const f = followers[(step as { follower: number }).follower]!;
            if (step.kind === 'approve' && f.state === 'pending') {
              assert.equal((await s.approve(owner, f.contact!, profileIds[step.profile])).status, 200);
              Object.assign(f, { state: 'active', profile: step.profile });
            } else if (step.kind === 'move' && f.state === 'active') {
              assert.equal((await s.post(owner, `/subscriptions/${f.contact}/move`, { profile_id: profileIds[step.profile] })).status, 200);
              f.profile = step.profile;
            } else if (step.kind === 'revoke' && f.state === 'active') {
              assert.equal((await s.post(owner, `/subscriptions/${f.contact}/revoke`, {})).status, 200);
              f.state = 'gone';
            } else if (step.kind === 'deny' && f.state === 'pending') {
              assert.equal((await s.post(owner, `/subscriptions/${f.contact}/deny`, {})).status, 200);
              f.state = 'denied';
            } else if (step.kind === 'withdraw' && f.state !== 'none' && f.state !== 'gone') {
              assert.equal((await t.client.as(f.device, 'DELETE', `${API}/contacts/${f.contact}`)).status, 204);
              f.state = 'gone';
            } else if (step.kind === 'ask' && f.state === 'gone') {
              f.contact = (await s.subscribe(f.device, owner)).body.id;
              f.state = 'pending';
            }
          }
          const isPublic = (photo: number) => exposed.has(`${photo}:p`);
          for (let photo = 0; photo < 2; photo++) {
            const url = `/photos/${photos[photo]}?size=64`;
            const expect = (may: boolean) => (may ? 200 : 404);
            assert.equal((await t.client.call('GET', `${API}${url}`)).status, expect(isPublic(photo)), `anonymous, photo ${photo}`);
            assert.equal((await s.get(stranger, url)).status, expect(isPublic(photo)), `stranger, photo ${photo}`);
            assert.equal((await s.get(owner, url)).status, 200, 'owner');
            for (const [i, f] of followers.entries()) {
              const may = isPublic(photo) || (f.state === 'active' && exposed.has(`${photo}:${f.profile}`));
              assert.equal((await s.get(f.device, url)).status, expect(may), `follower ${i} (${f.state} ${f.profile ?? ''}), photo ${photo}`);
            }
          }
        }),
        { numRuns: backend.name === 'sqlite' ? 8 : 5 },
      );
    });
  });
}
