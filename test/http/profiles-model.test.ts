// Privacy is the product (PRODUCT §3): a property-based test drives random sequences of field
// edits, profiles and exposures through the real API and checks, after every step, that each
// profile's preview and the public card equal what a small model says they show: never a
// field outside the profile, in the profile's order, with the right labels; and that a card's
// `changed` (what a live update says changed) names only kinds of detail the profile showed
// before that change or shows after it, never a kind hidden from its audience.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';

const API = '/api/v1';

/** Field values the catalog accepts, a few per type. */
const VALUES: Array<{ type: string; values: unknown[] }> = [
  { type: 'nickname', values: ['Ada', 'Countess', '数学'] },
  { type: 'email', values: ['ada@example.com', 'work@example.org', 'x@bücher.example'] },
  { type: 'phone', values: ['+49 30 22732152', '+44 20 7930 4832', '+1 202 456 1111'] },
  { type: 'url', values: ['https://example.com', 'https://ada.example/notes'] },
  { type: 'job_title', values: ['Engineer', 'Mathematician'] },
];
const LABELS = [null, 'work', 'home', 'Büro 🏢'];

type Op =
  | { op: 'addField'; kind: number; value: number; label: number }
  | { op: 'editField'; field: number; value: number; label: number }
  | { op: 'deleteField'; field: number }
  | { op: 'addProfile'; public: boolean }
  | { op: 'expose'; profile: number; field: number; position: number | null; label: number | null }
  | { op: 'unexpose'; profile: number; field: number }
  | { op: 'setPublic'; profile: number; public: boolean }
  | { op: 'deleteProfile'; profile: number }
  | { op: 'displayName'; name: number };

const index = fc.nat({ max: 50 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('addField' as const), kind: index, value: index, label: index }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('editField' as const), field: index, value: index, label: index }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteField' as const), field: index }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('addProfile' as const), public: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('expose' as const), profile: index, field: index, position: fc.option(index, { nil: null }), label: fc.option(index, { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('unexpose' as const), profile: index, field: index }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('setPublic' as const), profile: index, public: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteProfile' as const), profile: index }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('displayName' as const), name: index }) },
);

interface ModelField {
  id: string;
  type: string;
  label: string | null;
  country: string | null;
  value: unknown;
  details: unknown;
  version: number;
}
type ModelCard = { owner: { username: string; display_name: string | null }; fields: Array<{ id: string; type: string; label: string | null; country: string | null; value: unknown; details: unknown }> };

/** The model of `changed`: the type of every field added, removed or altered, and display_name. */
function modelChanges(before: ModelCard, after: ModelCard): string[] {
  const kinds = new Set<string>();
  const was = new Map(before.fields.map((f) => [f.id, f]));
  for (const field of after.fields) {
    const old = was.get(field.id);
    if (!old || JSON.stringify(old) !== JSON.stringify(field)) kinds.add(field.type);
    was.delete(field.id);
  }
  for (const gone of was.values()) kinds.add(gone.type);
  if (before.owner.display_name !== after.owner.display_name) kinds.add('display_name');
  return [...kinds].sort();
}

interface ModelProfile {
  id: string;
  public: boolean;
  version: number;
  exposures: Array<{ fieldId: string; label: string | null }>;
}

for (const backend of backends) {
  describe(`cards follow the model of profiles and exposures [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('shows in every preview and in the public card exactly what the model says, after every step', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 20 }), async (ops) => {
          const device = await t.client.signUp(uniqueName('model'));
          const fields: ModelField[] = [];
          const profiles: ModelProfile[] = [];
          let displayName: string | null = null;
          let meVersion = 1;
          /**
           * Per profile: the card its audience saw at the last check, the `changed` it said then,
           * and the card before the change that `changed` describes (none for a first card).
           */
          const seen = new Map<string, { card: ModelCard; changed: string[]; before?: ModelCard }>();
          const pick = <T>(list: T[], i: number) => (list.length ? list[i % list.length] : undefined);
          const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => t.client.as(device, method, `${API}${path}`, options);

          // Every run starts from a few fields and two profiles, so the random steps mostly move
          // fields between audiences rather than build the first ones.
          const start: Op[] = [
            { op: 'addField', kind: 0, value: 0, label: 1 },
            { op: 'addField', kind: 1, value: 1, label: 0 },
            { op: 'addField', kind: 2, value: 2, label: 3 },
            { op: 'addProfile', public: true },
            { op: 'addProfile', public: false },
          ];
          for (const step of [...start, ...ops]) {
            t.clock.advance(1000);
            await apply(step);
            await check(step);
          }

          async function apply(step: Op): Promise<void> {
            switch (step.op) {
              case 'addField': {
                const kind = VALUES[step.kind % VALUES.length]!;
                const res = await call('POST', '/me/fields', { body: { type: kind.type, value: kind.values[step.value % kind.values.length], label: LABELS[step.label % LABELS.length] }, headers: { 'idempotency-key': randomUUID() } });
                assert.equal(res.status, 201, JSON.stringify(res.body));
                fields.push(res.body);
                return;
              }
              case 'editField': {
                const field = pick(fields, step.field);
                if (!field) return;
                const kind = VALUES.find((v) => v.type === field.type)!;
                const res = await call('PATCH', `/me/fields/${field.id}`, { body: { value: kind.values[step.value % kind.values.length], label: LABELS[step.label % LABELS.length] }, headers: { 'if-match': `"${field.version}"` } });
                assert.equal(res.status, 200, JSON.stringify(res.body));
                fields[fields.indexOf(field)] = res.body;
                return;
              }
              case 'deleteField': {
                const field = pick(fields, step.field);
                if (!field) return;
                assert.equal((await call('DELETE', `/me/fields/${field.id}`, { headers: { 'if-match': `"${field.version}"` } })).status, 204);
                fields.splice(fields.indexOf(field), 1);
                for (const profile of profiles) profile.exposures = profile.exposures.filter((e) => e.fieldId !== field.id);
                return;
              }
              case 'addProfile': {
                const res = await call('POST', '/profiles', { body: { name: `P${profiles.length}-${randomUUID().slice(0, 6)}`, public: step.public }, headers: { 'idempotency-key': randomUUID() } });
                if (step.public && profiles.some((p) => p.public)) {
                  assert.equal(res.body.code, 'public_profile_exists');
                  return;
                }
                assert.equal(res.status, 201, JSON.stringify(res.body));
                profiles.push({ id: res.body.id, public: step.public, version: 1, exposures: [] });
                return;
              }
              case 'expose': {
                const profile = pick(profiles, step.profile);
                const field = pick(fields, step.field);
                if (!profile || !field) return;
                const at = profile.exposures.findIndex((e) => e.fieldId === field.id);
                const count = at < 0 ? profile.exposures.length + 1 : profile.exposures.length;
                const position = step.position === null ? null : step.position % count;
                const label = step.label === null ? undefined : LABELS[step.label % LABELS.length];
                const res = await call('PUT', `/profiles/${profile.id}/exposures/${field.id}`, { body: { ...(position === null ? {} : { position }), ...(label === undefined ? {} : { label }) } });
                assert.equal(res.status, at < 0 ? 201 : 200, JSON.stringify(res.body));
                const current = at < 0 ? { fieldId: field.id, label: label ?? null } : { ...profile.exposures[at]!, ...(label === undefined ? {} : { label }) };
                const rest = profile.exposures.filter((e) => e.fieldId !== field.id);
                rest.splice(position ?? (at < 0 ? rest.length : at), 0, current);
                profile.exposures = rest;
                return;
              }
              case 'unexpose': {
                const profile = pick(profiles, step.profile);
                const field = pick(fields, step.field);
                if (!profile || !field) return;
                const res = await call('DELETE', `/profiles/${profile.id}/exposures/${field.id}`);
                const shown = profile.exposures.some((e) => e.fieldId === field.id);
                assert.equal(res.status, shown ? 204 : 404);
                if (shown) {
                  profile.exposures = profile.exposures.filter((e) => e.fieldId !== field.id);
                }
                return;
              }
              case 'setPublic': {
                const profile = pick(profiles, step.profile);
                if (!profile) return;
                const res = await call('PATCH', `/profiles/${profile.id}`, { body: { public: step.public }, headers: { 'if-match': `"${profile.version}"` } });
                if (step.public && profiles.some((p) => p.public && p !== profile)) {
                  assert.equal(res.body.code, 'public_profile_exists');
                  return;
                }
                assert.equal(res.status, 200, JSON.stringify(res.body));
                profile.public = step.public;
                profile.version++;
                return;
              }
              case 'deleteProfile': {
                const profile = pick(profiles, step.profile);
                if (!profile) return;
                assert.equal((await call('DELETE', `/profiles/${profile.id}`, { headers: { 'if-match': `"${profile.version}"` } })).status, 204);
                profiles.splice(profiles.indexOf(profile), 1);
                return;
              }
              case 'displayName': {
                displayName = step.name % 3 === 0 ? null : `Name ${step.name}`;
                const res = await call('PATCH', '/me', { body: { display_name: displayName }, headers: { 'if-match': `"${meVersion}"` } });
                assert.equal(res.status, 200, JSON.stringify(res.body));
                meVersion = res.body.version;
              }
            }
          }

          /** The card the model expects a profile to show. */
          function expected(profile: ModelProfile): ModelCard {
            return {
              owner: { username: device.username, display_name: displayName },
              fields: profile.exposures.map((e) => {
                const field = fields.find((f) => f.id === e.fieldId)!;
                return { id: field.id, type: field.type, label: e.label ?? field.label, country: field.country, value: field.value, details: field.details };
              }),
            };
          }

          async function check(step: Op): Promise<void> {
            for (const profile of profiles) {
              const res = await call('GET', `/profiles/${profile.id}/preview`);
              assert.equal(res.status, 200);
              const { updated_at: _, schema_version: __, changed, ...card } = res.body;
              const now = expected(profile);
              assert.deepEqual(card, now, `preview of ${profile.id} after ${JSON.stringify(step)}`);
              const last = seen.get(profile.id);
              const moved = !!last && JSON.stringify(last.card) !== JSON.stringify(now);
              const before = moved ? last.card : last?.before;
              // Privacy: what `changed` names was on this profile's card before the change it describes, or after it.
              const visible = new Set(['display_name', ...(before?.fields ?? []).map((f) => f.type), ...now.fields.map((f) => f.type)]);
              for (const kind of changed) assert.ok(visible.has(kind), `${kind} is hidden from ${profile.id}, yet its card says it changed, after ${JSON.stringify(step)}`);
              // Exactly: a first card changed nothing; an unchanged card keeps what it said; else the model's kinds.
              const want = !last ? [] : moved ? modelChanges(last.card, now) : last.changed;
              assert.deepEqual(changed, want, `changed of ${profile.id} after ${JSON.stringify(step)}`);
              seen.set(profile.id, { card: now, changed, before });
            }
            const publicProfile = profiles.find((p) => p.public);
            const res = await t.client.call('GET', `${API}/public/${device.username}`);
            if (!publicProfile) {
              assert.equal(res.status, 404, `no public profile after ${JSON.stringify(step)}`);
            } else {
              const { updated_at: _, schema_version: __, changed, ...card } = res.body;
              assert.deepEqual(card, expected(publicProfile), `public card after ${JSON.stringify(step)}`);
              assert.deepEqual(changed, seen.get(publicProfile.id)!.changed, 'the public card is the public profile\'s card');
            }
          }
        }),
        { numRuns: process.env.CI ? 12 : 8 },
      );
    });
  });
}
