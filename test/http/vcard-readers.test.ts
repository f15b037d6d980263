// PRODUCT §6: every vCard the service serves (the public card's, a contact's, the all-contacts
// file; 3.0 by default, 4.0, 4.0 with RFC 9554) is read by every independent reader of
// test/helpers/vcard-readers.ts without error and with every value of the card intact. A
// property test: a person's fields and display name take random text (any script, emoji,
// combining marks, ; , \ and line breaks, spaces wherever the folds fall) through the real API,
// and each reader's reading is held to the JSON card the same audience gets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { assertReadsCard, serviceText } from '../helpers/vcard-expect.js';
import type { Form } from '../helpers/vcard-expect.js';
import { all, readEverywhere, vobject } from '../helpers/vcard-readers.js';
import { upload } from '../helpers/photos.js';
import sharp from 'sharp';

const FORMS: Array<Form & { query: string }> = [
  { version: '3.0', query: '' },
  { version: '4.0', query: '?version=4.0' },
  { version: '4.0', rfc9554: true, query: '?version=4.0&rfc9554=true' },
];

after(() => vobject.close());

for (const backend of backends) {
  describe(`every served vCard, read by every reader [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    let alice: Device;
    let bob: Device;
    let contactId: string;
    const ids: Record<string, string> = {};
    before(async () => {
      ({ t, s } = await startSocialApp(backend));
      alice = await s.person('zoë');
      bob = await s.person('bob');
      const made = {
        name: await s.field(alice, { type: 'name', value: { given: 'Zoë', family: 'Ng' } }),
        nickname: await s.field(alice, { type: 'nickname', value: 'Zo' }),
        phone: await s.field(alice, { type: 'phone', value: '+44 20 7946 0958 ext. 12', label: 'Desk' }),
        email: await s.field(alice, { type: 'email', value: 'zoe@example.com', label: 'work' }),
        address: await s.field(alice, { type: 'postal_address', country: 'GB', value: { street_lines: ['1 Long Lane'], locality: 'London', postal_code: 'SW1A 2AA' } }),
        organization: await s.field(alice, { type: 'organization', value: { name: 'Acme', unit: 'R&D' } }),
        job_title: await s.field(alice, { type: 'job_title', value: 'Engineer' }),
        pronouns: await s.field(alice, { type: 'pronouns', value: 'she/her' }),
        social: await s.field(alice, { type: 'social', value: { platform: 'github', handle: 'octocat' } }),
        url: await s.field(alice, { type: 'url', value: 'https://example.com/a,b;c' }),
        note: await s.field(alice, { type: 'note', value: 'Hello' }),
        photo: await s.field(alice, { type: 'photo', value: { photo_id: (await upload(t, alice, await sharp({ create: { width: 300, height: 200, channels: 3, background: '#2b6cb0' } }).jpeg().toBuffer())).body.id } }),
      };
      for (const [key, field] of Object.entries(made)) ids[key] = field.id;
      const open = await s.profile(alice, 'Public', true);
      const friends = await s.profile(alice, 'Friends');
      for (const id of Object.values(ids)) {
        await s.expose(alice, open.id, id);
        await s.expose(alice, friends.id, id);
      }
      contactId = await s.connect(bob, alice, friends.id);
    });
    after(() => t.close());

    const patch = async (path: string, body: unknown) => {
      const res = await t.client.as(alice, 'PATCH', `${API}${path}`, { body, headers: { 'if-match': '*' } });
      assert.equal(res.status, 200, `PATCH ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    };

    /** Each endpoint's vCard in a form, with the JSON card the same audience gets. */
    async function served(form: (typeof FORMS)[number]) {
      const publicCard = (await t.client.call('GET', `${API}/public/${encodeURIComponent(alice.username)}`)).body;
      const contactCard = (await s.get(bob, `/contacts/${contactId}/card`)).body;
      const files = [
        { endpoint: 'public', card: publicCard, res: await t.client.call('GET', `${API}/public/${encodeURIComponent(alice.username)}/vcard${form.query}`) },
        { endpoint: 'contact', card: contactCard, res: await s.get(bob, `/contacts/${contactId}/vcard${form.query}`) },
        { endpoint: 'all contacts', card: contactCard, res: await s.get(bob, `/contacts/vcard${form.query}`) },
      ];
      for (const file of files) assert.equal(file.res.status, 200, `${file.endpoint}: ${JSON.stringify(file.res.body)}`);
      return files;
    }

    it('serves vCards that every reader reads whole, whatever text the fields hold (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            display: serviceText(64),
            given: serviceText(100),
            family: serviceText(100),
            nickname: serviceText(64),
            label: serviceText(64),
            street: serviceText(200),
            locality: serviceText(100),
            org: serviceText(200),
            unit: serviceText(200),
            title: serviceText(100),
            pronouns: serviceText(40),
            note: serviceText(2000, true),
          }),
          async (v) => {
            await patch('/me', { display_name: v.display });
            await patch(`/me/fields/${ids.name}`, { value: { given: v.given, family: v.family } });
            await patch(`/me/fields/${ids.nickname}`, { value: v.nickname });
            await patch(`/me/fields/${ids.phone}`, { label: v.label });
            await patch(`/me/fields/${ids.email}`, { label: v.label });
            await patch(`/me/fields/${ids.address}`, { value: { street_lines: [v.street, v.title], locality: v.locality, postal_code: 'SW1A 2AA' }, label: v.label });
            await patch(`/me/fields/${ids.organization}`, { value: { name: v.org, unit: v.unit } });
            await patch(`/me/fields/${ids.job_title}`, { value: v.title, label: v.label });
            await patch(`/me/fields/${ids.pronouns}`, { value: v.pronouns });
            await patch(`/me/fields/${ids.social}`, { label: v.label });
            await patch(`/me/fields/${ids.note}`, { value: v.note });
            const uids = new Set<string>();
            for (const form of FORMS) {
              for (const file of await served(form)) {
                const readings = await readEverywhere(file.res.body as string, form);
                assert.equal(readings.length, form.version === '4.0' && !form.rfc9554 ? 5 : 4);
                for (const cards of readings) {
                  assert.equal(cards.length, 1, `${file.endpoint}: one card`);
                  assertReadsCard(cards[0]!, file.card, form);
                  for (const uid of all(cards[0]!, 'UID')) uids.add(String(uid.value));
                }
              }
            }
            assert.equal(uids.size, 1, 'one UID for the person, in every file, version and reader');
          },
        ),
        { numRuns: 15 },
      );
    });
  });
}
