// A read-side invariant (src/modules/read-side.ts): every change that alters a public card
// signals its owner, because the public card is served from each node's cache (decision 240),
// which forgets an owner's card on the owner's signals and on nothing else. A writer that changed
// a public card without signalling would leave the cache serving the old card: this property
// fails then. Random owners' changes of every kind that reaches the public card (a field added,
// edited, deleted; an exposure added or hidden; the display name; the profile made public or
// not), each with the cache warm before it; after each, the public card answers exactly what the
// owner's preview of that profile shows (which no cache serves), or 404 once it is not public.
// The test's clock never moves, so nothing leaves the cache by age. Both backends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { backends } from '../helpers/backends.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import type { TestApp } from '../helpers/app.js';

type Op =
  | { op: 'add'; value: number }
  | { op: 'edit'; field: number; value: number }
  | { op: 'hide'; field: number }
  | { op: 'show'; field: number }
  | { op: 'delete'; field: number }
  | { op: 'rename'; name: number }
  | { op: 'public'; public: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), value: fc.nat(20) }),
  fc.record({ op: fc.constant('edit' as const), field: fc.nat(5), value: fc.nat(20) }),
  fc.record({ op: fc.constant('hide' as const), field: fc.nat(5) }),
  fc.record({ op: fc.constant('show' as const), field: fc.nat(5) }),
  fc.record({ op: fc.constant('delete' as const), field: fc.nat(5) }),
  fc.record({ op: fc.constant('rename' as const), name: fc.nat(5) }),
  fc.record({ op: fc.constant('public' as const), public: fc.boolean() }),
);

for (const backend of backends) {
  describe(`read side: the public card follows every change of its owner [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    it('after every change, the public card (through the cache) is the preview of the public profile', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 16 }), async (ops) => {
          const owner = await s.person('public-owner');
          const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => t.client.as(owner, method, `${API}${path}`, options);
          let profile = await s.profile(owner, 'Everyone', true);
          let meVersion = 1;
          const fields: Array<{ id: string; version: number }> = [];
          const publicCard = () => t.client.call('GET', `${API}/public/${owner.username}`);

          for (const step of ops) {
            // The cache holds the card as it was before the change.
            await publicCard();
            const field = fields.length ? fields[('field' in step ? step.field : 0) % fields.length]! : undefined;
            if (step.op === 'add') {
              const made = await s.field(owner, { type: 'nickname', value: `Nick ${step.value}` });
              fields.push({ id: made.id, version: made.version });
              await s.expose(owner, profile.id, made.id);
            } else if (step.op === 'edit' && field) {
              const res = await call('PATCH', `/me/fields/${field.id}`, { body: { value: `Nick ${step.value} edited` }, headers: { 'if-match': `"${field.version}"` } });
              assert.equal(res.status, 200, JSON.stringify(res.body));
              field.version = res.body.version;
            } else if (step.op === 'hide' && field) {
              const res = await call('DELETE', `/profiles/${profile.id}/exposures/${field.id}`);
              assert.ok(res.status === 204 || res.status === 404, JSON.stringify(res.body));
            } else if (step.op === 'show' && field) {
              const res = await call('PUT', `/profiles/${profile.id}/exposures/${field.id}`, { body: {} });
              assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
            } else if (step.op === 'delete' && field) {
              const res = await call('DELETE', `/me/fields/${field.id}`, { headers: { 'if-match': `"${field.version}"` } });
              assert.equal(res.status, 204, JSON.stringify(res.body));
              fields.splice(fields.indexOf(field), 1);
            } else if (step.op === 'rename') {
              const res = await call('PATCH', '/me', { body: { display_name: `Owner ${step.name}` }, headers: { 'if-match': `"${meVersion}"` } });
              assert.equal(res.status, 200, JSON.stringify(res.body));
              meVersion = res.body.version;
            } else if (step.op === 'public') {
              const res = await call('PATCH', `/profiles/${profile.id}`, { body: { public: step.public }, headers: { 'if-match': `"${profile.version}"` } });
              assert.equal(res.status, 200, JSON.stringify(res.body));
              profile = res.body;
            }

            const served = await publicCard();
            if (!profile.public) {
              assert.equal(served.status, 404, `${JSON.stringify(step)}: no public card once the profile is not public`);
              continue;
            }
            const preview = await call('GET', `/profiles/${profile.id}/preview`);
            assert.equal(served.status, 200, `${JSON.stringify(step)}: ${JSON.stringify(served.body)}`);
            assert.deepEqual(served.body, preview.body, `${JSON.stringify(step)}: the public card is what the preview shows`);
          }
        }),
        { numRuns: process.env.CI ? 8 : 5 },
      );
    });
  });
}
