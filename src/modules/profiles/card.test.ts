// The card builder's `changed` (card.ts cardChanges, renderCard): what a live card update says
// changed, as kinds of detail. A property over random accounts, exposures and edits: the kinds
// are only those of fields the profile showed before or shows after (never a field hidden from
// its audience), never values, and exactly the fields added, removed or altered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cardChanges, cardContent, contentOf, renderCard } from './card.js';
import type { ExposedField } from './queries.js';

const TYPES = ['phone', 'email', 'postal_address', 'nickname', 'url', 'note', 'birthday'] as const;

/** One field of the owner's, as stored: its type, label and value (JSON text). */
interface StoredField {
  id: string;
  type: string;
  label: string | null;
  value: string;
}

const fieldArb = (id: string) =>
  fc.record({
    id: fc.constant(id),
    type: fc.constantFrom(...TYPES),
    label: fc.option(fc.constantFrom('work', 'home', 'mobile'), { nil: null }),
    value: fc.string({ maxLength: 12 }).map((v) => JSON.stringify(v)),
  });

/** An account's fields, then which of them a profile shows before and after one change, with some fields edited. */
const scenarioArb = fc
  .integer({ min: 1, max: 8 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => fieldArb(`fld_${i}`))))
  .chain((fields) =>
    fc.record({
      fields: fc.constant(fields as StoredField[]),
      before: fc.shuffledSubarray(fields.map((f) => f.id)),
      after: fc.shuffledSubarray(fields.map((f) => f.id)),
      edited: fc.subarray(fields.map((f) => f.id)),
      newValue: fc.string({ maxLength: 12 }),
      names: fc.tuple(fc.option(fc.string({ maxLength: 8 }), { nil: null }), fc.option(fc.string({ maxLength: 8 }), { nil: null })),
    }),
  );

function exposed(fields: StoredField[], ids: string[]): ExposedField[] {
  return ids.map((id, position) => {
    const field = fields.find((f) => f.id === id)!;
    return { field_id: id, label: null, position, type: field.type, field_label: field.label, country: null, value: field.value, details: '{}' };
  });
}

describe('the card says what changed, and only what its audience could see', () => {
  it('names only kinds the profile showed before or shows now; exactly the added, removed and altered ones', () => {
    fc.assert(
      fc.property(scenarioArb, ({ fields, before, after, edited, newValue, names }) => {
        const owner = (name: string | null) => ({ username: 'ada', display_name: name });
        const later = fields.map((f) => (edited.includes(f.id) ? { ...f, value: JSON.stringify(newValue) } : f));
        const old = cardContent(owner(names[0]), exposed(fields, before));
        const now = cardContent(owner(names[1]), exposed(later, after));
        const changed = cardChanges(old, now);

        const visible = new Set(['display_name', ...old.fields.map((f) => f.type), ...now.fields.map((f) => f.type)]);
        const hidden = fields.filter((f) => !before.includes(f.id) && !after.includes(f.id)).map((f) => f.type).filter((type) => !visible.has(type));
        for (const kind of changed) {
          assert.ok(visible.has(kind), `${kind} was on neither card`);
          assert.ok(!hidden.includes(kind));
          assert.ok(kind === 'display_name' || (TYPES as readonly string[]).includes(kind), `${kind} is a kind, not a value`);
        }
        assert.deepEqual(changed, [...new Set(changed)].sort(), 'sorted, each once');

        // Exactly: every field on one card only, every field on both whose value moved, the name.
        const want = new Set<string>();
        for (const id of new Set([...before, ...after])) {
          const type = fields.find((f) => f.id === id)!.type;
          if (before.includes(id) !== after.includes(id) || (before.includes(id) && edited.includes(id) && fields.find((f) => f.id === id)!.value !== JSON.stringify(newValue))) want.add(type);
        }
        if (names[0] !== names[1]) want.add('display_name');
        assert.deepEqual(changed, [...want].sort());
      }),
      { numRuns: 500 },
    );
  });

  it('writes `changed` into the rendered card when its content changes, keeps it when it does not, and starts empty', () => {
    const owner = { username: 'ada', display_name: 'Ada' };
    const fields: StoredField[] = [
      { id: 'fld_1', type: 'phone', label: null, value: '"+4930"' },
      { id: 'fld_2', type: 'email', label: null, value: '"a@example.com"' },
    ];
    const first = renderCard(cardContent(owner, exposed(fields, ['fld_1'])), 1000);
    assert.deepEqual(JSON.parse(first.json).changed, [], 'a first card changed nothing anyone saw');
    const previous = { hash: first.hash, updatedAt: first.updatedAt, json: first.json };
    const same = renderCard(cardContent(owner, exposed(fields, ['fld_1'])), 2000, previous);
    assert.equal(same.json, first.json);
    assert.equal(same.etag, first.etag);
    const added = renderCard(cardContent(owner, exposed(fields, ['fld_1', 'fld_2'])), 3000, previous);
    assert.deepEqual(JSON.parse(added.json).changed, ['email']);
    assert.equal(JSON.parse(added.json).updated_at, new Date(3000).toISOString());
    assert.notEqual(added.etag, first.etag);
    assert.deepEqual(contentOf(added.json), cardContent(owner, exposed(fields, ['fld_1', 'fld_2'])));
  });
});
