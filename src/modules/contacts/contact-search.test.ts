import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldForSearch } from '../../platform/text.js';
import { matches, queryWords, searchTextOf, sortKeyOf } from './contact-search.js';
import type { Findable } from './contact-search.js';

const contact = (over: Partial<Findable>): Findable => ({ id: 'sub_1', owner: { username: 'someone', display_name: null }, labels: [], fields: [], changedAt: null, ...over });
const field = (type: string, value: unknown, details: Record<string, unknown> = {}, label: string | null = null) => ({ id: `fld_${type}`, type, label, country: null, value, details });

describe('finding contacts', () => {
  it('folds case, accents and the letters whose accent is not a mark', () => {
    assert.equal(foldForSearch('Zoë'), 'zoe');
    assert.equal(foldForSearch('ZOË'), 'zoe');
    assert.equal(foldForSearch('Łódź'), 'lodz');
    assert.equal(foldForSearch('Straße'), 'strasse');
    assert.equal(foldForSearch('Søren Ærø'), 'soren aero');
    assert.equal(foldForSearch('ﬁle Ｚｏｅ'), 'file zoe', 'compatibility forms (ligatures, full width)');
  });

  it('finds by names, username, labels and every shown value, each word anywhere', () => {
    const zoe = contact({
      owner: { username: 'zoe.w', display_name: 'Zoë Winter' },
      labels: ['Climbing'],
      fields: [
        field('name', { given: 'Zoë', family: 'Winter' }),
        field('organization', { name: 'Acme Ltd', unit: 'R&D' }),
        field('phone', '+12125550199', { international: '+1 212-555-0199' }, 'mobile'),
        field('postal_address', { street_lines: ['1 Rue de l’Église'], locality: 'Orléans' }),
      ],
    });
    const text = searchTextOf(zoe);
    for (const q of ['zoe', 'ZOË winter', 'climbing', 'acme', 'r&d', 'orleans', 'eglise', 'mobile', '212 555', '2125550199', '212-555-0199', 'zoe.w']) {
      assert.ok(matches(text, queryWords(q)), q);
    }
    for (const q of ['zoey', 'winter summer', 'lyon']) assert.ok(!matches(text, queryWords(q)), q);
  });

  it('sorts by the card\'s given or family name, else the display name whole, folded', () => {
    const named = contact({ owner: { username: 'a', display_name: 'Zoë Winter' }, fields: [field('name', { given: 'Zoë', family: 'Winter' })] });
    const unnamed = contact({ owner: { username: 'b', display_name: 'Émile Zola' } });
    const bare = contact({ owner: { username: 'carl', display_name: null } });
    assert.ok(sortKeyOf(named, 'given_name').startsWith('zoe\u0001'));
    assert.ok(sortKeyOf(named, 'family_name').startsWith('winter\u0001'));
    assert.ok(sortKeyOf(unnamed, 'family_name').startsWith('emile zola'), 'never a guessed split');
    assert.ok(sortKeyOf(bare, 'given_name').startsWith('carl'));
  });

  it('sorts by the latest card change first, contacts without a card last', () => {
    const keys = [contact({ changedAt: 1_000 }), contact({ changedAt: 2_000 }), contact({ changedAt: null })].map((c) => sortKeyOf(c, 'recently_changed'));
    assert.deepEqual([...keys].sort(), [keys[1], keys[0], keys[2]]);
  });
});
