// PRODUCT §6, STANDARDS "vCard 4.0" and "vCard in real address books": every field type maps,
// text is escaped and folded at 75 octets (never inside a UTF-8 sequence), UID is stable, REV
// is set; checked by parsing every output with an independent parser (ical.js).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { createFieldCatalog } from '../fields/catalog.js';
import type { Card, CardField } from './card.js';
import { cardToVcard, escapeText, fold, uidFor } from './vcard.js';
import type { VcardVersion } from './vcard.js';

const catalog = createFieldCatalog();
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
let ids = 0;

/** A card field as the service makes it: the value judged and normalised by the real catalog. */
function field(type: string, value: unknown, options: { label?: string; country?: string } = {}): CardField {
  const outcome = catalog.check(catalog.definition(type)!, value, options.country, undefined, NOW);
  if (!outcome.ok) throw new Error(`${type}: ${JSON.stringify(outcome.errors)}`);
  return { id: `fld_${++ids}`, type, label: options.label ?? null, country: outcome.checked.country, value: outcome.checked.value, details: outcome.checked.details as Record<string, unknown> };
}

function card(fields: CardField[], owner: Card['owner'] = { username: 'ada', display_name: 'Ada Lovelace' }): Card {
  return { owner, fields, updated_at: '2026-11-23T12:00:00.000Z', schema_version: 1 };
}

/** Every field type of the catalog, with the awkward cases: separators, non-Latin text, emoji, long lines. */
function everyType(): CardField[] {
  return [
    field('name', { prefix: 'Dr.', given: 'Ada', middle: 'Augusta', family: 'King-Noel, Countess; of Lovelace', suffix: 'FRS' }),
    field('nickname', '数学の魔女 🧮'),
    field('phone', '+49 30 22732152', { label: 'work' }),
    field('phone', '+44 7400 123456', { label: 'mobile' }),
    field('phone', '+1 202 456 1111', { label: 'Lab; bench 3' }),
    field('email', 'ada@example.com', { label: 'home' }),
    field('email', 'jos\u00e9@b\u00fccher.example'),
    field('postal_address', { street_lines: ['Flat 4, The Very Long Building Name That Goes On And On', 'Ποσειδώνος 12; rear entrance'], dependent_locality: 'Kensington', locality: 'London', postal_code: 'sw1a 2aa' }, { country: 'GB', label: 'Summer house' }),
    field('postal_address', { street_lines: ['東京都千代田区千代田1-1'], locality: '千代田区', region: '東京都', postal_code: '100-0001' }, { country: 'JP' }),
    field('birthday', { month: 12, day: 10 }),
    field('url', 'https://example.com/a,b;c', { label: 'work' }),
    field('social', { platform: 'github', handle: 'octocat' }),
    field('social', { platform: 'signal', handle: 'ada.42' }),
    field('organization', { name: 'Analytical Engines, Ltd.', unit: 'R&D; Difference' }),
    field('job_title', 'Enchantress of Numbers'),
    field('pronouns', 'she/her'),
    field('language', 'en-GB'),
    field('time_zone', 'Europe/London'),
    field('note', 'Line one\nLine two, with a comma; and a semicolon \\ and a backslash\n🎉 — ✓'),
  ];
}

function parse(text: string): ICAL.Component {
  return new ICAL.Component(ICAL.parse(text) as unknown[]);
}

const values = (component: ICAL.Component, name: string) => component.getAllProperties(name).map((p) => p.getFirstValue());
const physicalLines = (text: string) => text.split('\r\n').slice(0, -1);
/** What escaping and folding must survive: separators, backslashes, breaks and multi-byte characters. */
const SEPARATORS = fc.constantFrom('a', 'Z', ' ', ',', ';', ':', '\\', '\n', '"', 'é', 'ß', '中', '🎉', '👩‍💻');

for (const version of ['4.0', '3.0'] as VcardVersion[]) {
  describe(`vCard ${version}`, () => {
    const fields = everyType();
    const text = cardToVcard(card(fields), { version, uid: uidFor('acc_1') });
    const vcard = parse(text);
    const v3 = version === '3.0';

    it('is BEGIN, VERSION, …, END with CRLF line ends, FN and a stable UID and REV', () => {
      const lines = physicalLines(text);
      assert.equal(lines[0], 'BEGIN:VCARD');
      assert.equal(lines[1], `VERSION:${version}`);
      assert.equal(lines.at(-1), 'END:VCARD');
      assert.ok(text.endsWith('END:VCARD\r\n'));
      assert.ok(!/[^\r]\n/.test(text), 'every line ends with CRLF');
      assert.equal(vcard.getFirstPropertyValue('version'), version);
      assert.equal(vcard.getFirstPropertyValue('fn'), 'Ada Lovelace');
      assert.equal(String(vcard.getFirstPropertyValue('uid')), uidFor('acc_1'));
      assert.match(uidFor('acc_1'), /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(uidFor('acc_1'), uidFor('acc_1'));
      assert.notEqual(uidFor('acc_1'), uidFor('acc_2'));
      assert.ok(text.includes(v3 ? 'REV:2026-11-23T12:00:00Z' : 'REV:20261123T120000Z'));
      assert.equal(vcard.getAllProperties('kind').length, v3 ? 0 : 1, '3.0 has no KIND');
    });

    it('folds every line at 75 octets, never inside a UTF-8 sequence, and unfolds to the same text', () => {
      for (const line of physicalLines(text)) assert.ok(Buffer.byteLength(line, 'utf8') <= 75, `${Buffer.byteLength(line)} octets: ${line}`);
      assert.ok(physicalLines(text).some((line) => line.startsWith(' ')), 'the long values were folded');
      // Each physical line is whole UTF-8 on its own: the bytes of the lines are the bytes of the text.
      const bytes = Buffer.from(text, 'utf8');
      const joined = Buffer.concat(physicalLines(text).map((l) => Buffer.concat([Buffer.from(l, 'utf8'), Buffer.from('\r\n')])));
      assert.deepEqual(joined, bytes);
      for (const line of physicalLines(text)) assert.equal(Buffer.from(line, 'utf8').toString('utf8'), line);
    });

    it('maps the name to N and FN, with separators escaped', () => {
      assert.deepEqual(vcard.getFirstPropertyValue('n'), ['King-Noel, Countess; of Lovelace', 'Ada', 'Augusta', 'Dr.', 'FRS']);
      assert.deepEqual(values(vcard, 'nickname').map(String), ['数学の魔女 🧮']);
    });

    it('maps phones to TEL with types, and a custom label to an Apple label on a group', () => {
      const tels = vcard.getAllProperties('tel');
      assert.equal(tels.length, 3);
      const types = tels.map((p) => [p.getParameter('type')].flat().join(',').toLowerCase());
      assert.deepEqual(types, ['voice,work', 'cell', 'voice']);
      const numbers = tels.map((p) => String(p.getFirstValue()));
      assert.deepEqual(numbers, v3 ? ['+493022732152', '+447400123456', '+12024561111'] : ['tel:+493022732152', 'tel:+447400123456', 'tel:+12024561111']);
      const group = tels[2]!.getParameter('group');
      assert.ok(group, 'the custom label sits on a group');
      const label = vcard.getAllProperties('x-ablabel').find((p) => p.getParameter('group') === group);
      assert.equal(label?.getFirstValue(), 'Lab; bench 3');
      assert.ok(!/TYPE="/.test(text), 'never a quoted TYPE (iOS shows it as "CELL)');
      if (v3) assert.ok(text.includes('TEL;TYPE=VOICE,WORK:'), 'upper-case TYPE lists in 3.0');
    });

    it('maps emails, addresses with country names, birthdays, URLs, social profiles and the rest', () => {
      assert.deepEqual(values(vcard, 'email').map(String), ['ada@example.com', 'josé@bücher.example']);
      const [london, tokyo] = vcard.getAllProperties('adr').map((p) => p.getFirstValue() as string[]);
      assert.deepEqual(london, ['', '', 'Flat 4, The Very Long Building Name That Goes On And On\nΠοσειδώνος 12; rear entrance\nKensington', 'London', '', 'SW1A 2AA', 'United Kingdom']);
      assert.deepEqual(tokyo, ['', '', '東京都千代田区千代田1-1', '千代田区', '東京都', '100-0001', 'Japan']);
      const bday = vcard.getFirstProperty('bday')!;
      if (v3) {
        assert.equal(bday.getParameter('x-apple-omit-year'), '1604');
        assert.equal(String(bday.getFirstValue()), '1604-12-10');
      } else {
        assert.ok(text.includes('BDAY:--1210'), 'a year-less date (RFC 6350 §4.3.1)');
      }
      assert.deepEqual(values(vcard, 'url').map(String), ['https://example.com/a,b;c']);
      const social = vcard.getAllProperties(v3 ? 'x-socialprofile' : 'socialprofile');
      assert.deepEqual(social.map((p) => String(p.getFirstValue())), ['https://github.com/octocat', 'ada.42']);
      assert.deepEqual(vcard.getFirstPropertyValue('org'), ['Analytical Engines, Ltd.', 'R&D; Difference']);
      assert.equal(vcard.getFirstPropertyValue('title'), 'Enchantress of Numbers');
      assert.equal(vcard.getFirstPropertyValue(v3 ? 'x-pronouns' : 'pronouns'), 'she/her');
      assert.equal(String(vcard.getFirstPropertyValue(v3 ? 'x-language' : 'lang')), 'en-GB');
      assert.equal(String(vcard.getFirstPropertyValue('tz')), 'Europe/London');
      assert.equal(vcard.getFirstPropertyValue('note'), 'Line one\nLine two, with a comma; and a semicolon \\ and a backslash\n🎉 — ✓');
    });

    it('writes a full birthday in the version\'s date form', () => {
      const out = parse(cardToVcard(card([field('birthday', { year: 1990, month: 5, day: 17 })]), { version, uid: 'urn:uuid:x' }));
      assert.equal(String(out.getFirstPropertyValue('bday')), '1990-05-17');
    });

    it('falls back to the username when nobody set a name, and keeps N (required in 3.0)', () => {
      const out = parse(cardToVcard(card([], { username: 'ada', display_name: null }), { version, uid: 'urn:uuid:x' }));
      assert.equal(out.getFirstPropertyValue('fn'), 'ada');
      assert.deepEqual(out.getFirstPropertyValue('n'), ['', 'ada', '', '', '']);
    });

    it('round-trips any text through escaping and folding (property)', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ unit: SEPARATORS, maxLength: 200 }), (a, b) => {
          const note = `${a}\n${b}`.replace(/\r/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');
          const text = cardToVcard({ ...card([]), owner: { username: 'x', display_name: a || 'x' }, fields: [{ id: 'f', type: 'note', label: null, country: null, value: note, details: {} }] }, { version, uid: 'urn:uuid:x' });
          for (const line of physicalLines(text)) if (Buffer.byteLength(line, 'utf8') > 75) return false;
          const out = parse(text);
          return out.getFirstPropertyValue('note') === note && out.getFirstPropertyValue('fn') === (a || 'x');
        }),
        { numRuns: 300 },
      );
    });
  });
}

describe('vCard text rules', () => {
  it('escapes backslash, comma, semicolon and line breaks (RFC 6350 §3.4)', () => {
    assert.equal(escapeText('a\\b,c;d\ne\r\nf'), 'a\\\\b\\,c;d\\ne\\nf');
    assert.equal(escapeText('a;b', true), 'a\\;b', 'inside a structured value');
  });

  it('folds between characters, never inside one', () => {
    const line = `NOTE:${'é'.repeat(100)}`;
    const folded = fold(line).split('\r\n');
    assert.ok(folded.length > 1);
    for (const part of folded) assert.ok(Buffer.byteLength(part) <= 75);
    assert.equal(folded.map((p, i) => (i ? p.slice(1) : p)).join(''), line);
    assert.equal(fold('FN:short'), 'FN:short');
  });
});
