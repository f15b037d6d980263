// PRODUCT §6, STANDARDS "vCard 4.0" and "vCard in real address books": every field type maps,
// text is escaped (RFC 2426 §4, RFC 6350 §3.4) and folded at 75 octets, never inside a UTF-8
// sequence, a character or an escape and never beside white space; UID is stable, REV is set;
// 4.0 holds RFC 9554 properties only when asked. Every output is read by the independent readers
// of test/helpers/vcard-readers.ts (ical.js, python-vobject, vcard4-ts, vcf, and vcard4 for 4.0),
// each held to every value of the card (test/helpers/vcard-expect.ts).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { assertReadsCard, serviceText } from '../../../test/helpers/vcard-expect.js';
import type { Form } from '../../../test/helpers/vcard-expect.js';
import { icalText, readEverywhere, readVcard4, vobject } from '../../../test/helpers/vcard-readers.js';
import { createFieldCatalog } from '../fields/catalog.js';
import type { Card, CardField } from './card.js';
import { cardToVcard, escapeText, fold, tel30, uidFor } from './vcard.js';

const catalog = createFieldCatalog();
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
let ids = 0;
after(() => vobject.close());

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
    field('phone', '+44 20 7946 0958 ext. 123', { label: 'Switchboard, ask for Ada' }),
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
    field('note', 'Line one\nLine two, with a comma; and a semicolon \\ and a backslash\n🎉 — ✓ and a line long enough to be folded more than once, with spaces where the folds fall'),
  ];
}

function parse(text: string): ICAL.Component {
  return new ICAL.Component(ICAL.parse(text) as unknown[]);
}

const values = (component: ICAL.Component, name: string) => component.getAllProperties(name).map((p) => p.getFirstValue());
const physicalLines = (text: string) => text.split('\r\n').slice(0, -1);
const FORMS: Form[] = [{ version: '3.0' }, { version: '4.0' }, { version: '4.0', rfc9554: true }];
const formName = (form: Form) => `vCard ${form.version}${form.rfc9554 ? ' with RFC 9554' : ''}`;

/** The folding rules every output keeps: ≤ 75 octets, whole UTF-8 per line, no fold beside white space. */
function assertFolded(text: string): void {
  const lines = physicalLines(text);
  for (const line of lines) assert.ok(Buffer.byteLength(line, 'utf8') <= 75, `${Buffer.byteLength(line)} octets: ${line}`);
  // Each physical line is whole UTF-8 on its own: the bytes of the lines are the bytes of the text.
  assert.deepEqual(Buffer.concat(lines.map((l) => Buffer.from(`${l}\r\n`, 'utf8'))), Buffer.from(text, 'utf8'));
  lines.forEach((line, i) => {
    const next = lines[i + 1];
    if (next?.startsWith(' ')) {
      assert.doesNotMatch(line, /\s$/u, `a fold right after white space: ${JSON.stringify(line)}`);
      assert.doesNotMatch(next.slice(1), /^\s/u, `a fold right before white space: ${JSON.stringify(next)}`);
      assert.doesNotMatch(line, /(^|[^\\])(\\\\)*\\$/u, `a fold inside an escape: ${JSON.stringify(line)}`);
    }
  });
}

for (const form of FORMS) {
  const { version } = form;
  describe(formName(form), () => {
    const fields = everyType();
    const text = cardToVcard(card(fields), { version, uid: uidFor('acc_1'), rfc9554: form.rfc9554 });
    const vcard = parse(text);
    const v3 = version === '3.0';

    it('is read whole by every independent reader, each value intact', async () => {
      const readings = await readEverywhere(text, form);
      assert.equal(readings.length, version === '4.0' && !form.rfc9554 ? 5 : 4);
      for (const [reading] of readings) assertReadsCard(reading!, card(fields), form);
      // A strict RFC 6350 reader refuses RFC 9554's properties: why they are written only on request.
      if (form.rfc9554) assert.throws(() => readVcard4(text), /unknown property: SOCIALPROFILE/);
    });

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

    it('folds every line at 75 octets, never inside a UTF-8 sequence nor beside white space, and unfolds to the same text', () => {
      assertFolded(text);
      assert.ok(physicalLines(text).filter((line) => line.startsWith(' ')).length >= 3, 'the long values were folded');
    });

    it('escapes semicolons, commas, backslashes and line breaks in every text value', () => {
      const unfolded = text.replace(/\r\n /g, '');
      assert.ok(unfolded.includes('\r\nFN:Ada Lovelace\r\n'));
      assert.ok(unfolded.includes('\r\nN:King-Noel\\, Countess\\; of Lovelace;Ada;Augusta;Dr.;FRS\r\n'));
      assert.ok(unfolded.includes('.X-ABLabel:Lab\\; bench 3\r\n'), 'a semicolon in a label (RFC 2426 §4: never bare in 3.0 text)');
      assert.ok(unfolded.includes('.X-ABLabel:Switchboard\\, ask for Ada\r\n'));
      assert.ok(unfolded.includes('\r\nNOTE:Line one\\nLine two\\, with a comma\\; and a semicolon \\\\ and a backslash\\n'));
      assert.ok(unfolded.includes('\r\nORG:Analytical Engines\\, Ltd.;R&D\\; Difference\r\n'));
    });

    it('maps the name to N and FN', () => {
      assert.deepEqual(vcard.getFirstPropertyValue('n'), ['King-Noel, Countess; of Lovelace', 'Ada', 'Augusta', 'Dr.', 'FRS']);
      assert.deepEqual(values(vcard, 'nickname').map(String), ['数学の魔女 🧮']);
    });

    it('maps phones to TEL with types, an extension as the version allows, and a custom label to an Apple label on a group', () => {
      const tels = vcard.getAllProperties('tel');
      assert.equal(tels.length, 4);
      const types = tels.map((p) => [p.getParameter('type')].flat().join(',').toLowerCase());
      assert.deepEqual(types, ['voice,work', 'cell', 'voice', 'voice']);
      const numbers = tels.map((p) => String(p.getFirstValue()));
      assert.deepEqual(
        numbers,
        v3 ? ['+493022732152', '+447400123456', '+12024561111', '+442079460958;123'] : ['tel:+493022732152', 'tel:+447400123456', 'tel:+12024561111', 'tel:+442079460958;ext=123'],
      );
      if (v3) {
        assert.ok(!/\r\n(item\d+\.)?TEL[^:]*:[^\r]*;ext=/.test(text), 'no ;ext= inside a 3.0 TEL');
        // The dial string both phones dial (decision 310): the number, a wait, the extension; no
        // letter, which Android's dialer would dial as a keypad digit (x is 9).
        assert.match(numbers[3]!, /^\+\d+;\d+$/);
      }
      const group = tels[2]!.getParameter('group');
      assert.ok(group, 'the custom label sits on a group');
      const label = vcard.getAllProperties('x-ablabel').find((p) => p.getParameter('group') === group);
      assert.equal(icalText(String(label?.getFirstValue())), 'Lab; bench 3');
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
      assert.deepEqual(values(vcard, 'url').map(String), ['https://example.com/a%2Cb;c'], 'a link\'s commas percent-encoded');
      assert.deepEqual(vcard.getFirstPropertyValue('org'), ['Analytical Engines, Ltd.', 'R&D; Difference']);
      assert.equal(vcard.getFirstPropertyValue('title'), 'Enchantress of Numbers');
      assert.equal(String(vcard.getFirstPropertyValue(v3 ? 'x-language' : 'lang')), 'en-GB');
      assert.equal(String(vcard.getFirstPropertyValue('tz')), 'Europe/London');
      assert.equal(icalText(String(vcard.getFirstPropertyValue('note'))), 'Line one\nLine two, with a comma; and a semicolon \\ and a backslash\n🎉 — ✓ and a line long enough to be folded more than once, with spaces where the folds fall');
    });

    it(form.rfc9554 ? 'writes RFC 9554\'s SOCIALPROFILE and PRONOUNS, as asked' : 'writes social profiles and pronouns as X- properties, which strict RFC 6350 readers accept', () => {
      const social = vcard.getAllProperties(form.rfc9554 ? 'socialprofile' : 'x-socialprofile');
      assert.deepEqual(social.map((p) => String(p.getFirstValue())), ['https://github.com/octocat', 'ada.42']);
      assert.equal(vcard.getFirstPropertyValue(form.rfc9554 ? 'pronouns' : 'x-pronouns'), 'she/her');
      assert.equal(vcard.getAllProperties(form.rfc9554 ? 'x-socialprofile' : 'socialprofile').length, 0);
      assert.equal(vcard.getAllProperties(form.rfc9554 ? 'x-pronouns' : 'pronouns').length, 0);
      if (form.rfc9554) assert.ok(text.includes('SOCIALPROFILE;SERVICE-TYPE=signal;VALUE=text:ada.42\r\n'), 'RFC 9554 §3.4: a handle without a link is text');
      else assert.ok(text.includes('X-SOCIALPROFILE;TYPE=github;X-USER=octocat:https://github.com/octocat\r\n'), 'Apple\'s form');
    });

    it('writes a full birthday in the version\'s date form', () => {
      const out = parse(cardToVcard(card([field('birthday', { year: 1990, month: 5, day: 17 })]), { version, uid: 'urn:uuid:x' }));
      assert.equal(String(out.getFirstPropertyValue('bday')), '1990-05-17');
    });

    it('without a name field, FN is the display name (else the username) and N carries it whole as the given name, never empty', async () => {
      for (const [owner, n] of [[{ username: 'ada', display_name: null }, 'N:;ada;;;'], [{ username: 'jose', display_name: 'José García Márquez' }, 'N:;José García Márquez;;;']] as const) {
        const out = cardToVcard(card([], owner), { version, uid: 'urn:uuid:x' });
        assert.ok(out.includes(`\r\n${n}\r\n`), `never empty, never a guess at where the display name splits: ${out}`);
        assert.ok(!out.includes('\r\nN:;;;;\r\n'));
        for (const [reading] of await readEverywhere(out, form)) assertReadsCard(reading!, card([], owner), form);
      }
    });
  });
}

describe('any text, through escaping and folding, read back by every reader (property)', () => {
  it('keeps every value of a card intact in each version and form', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ display: serviceText(64), given: serviceText(100), family: serviceText(100), nickname: serviceText(64), label: serviceText(64), note: serviceText(2000, true), org: serviceText(200), unit: serviceText(200), title: serviceText(100), street: serviceText(200) }),
        fc.boolean(),
        async (t, named) => {
          const fields: CardField[] = [
            ...(named ? [{ id: 'n', type: 'name', label: null, country: null, value: { given: t.given, family: t.family }, details: { formatted: `${t.given} ${t.family}` } }] : []),
            { id: 'k', type: 'nickname', label: null, country: null, value: t.nickname, details: {} },
            { id: 'p', type: 'phone', label: t.label, country: 'GB', value: '+442079460958;ext=42', details: { uri: 'tel:+442079460958;ext=42' } },
            { id: 'o', type: 'organization', label: null, country: null, value: { name: t.org, unit: t.unit }, details: {} },
            { id: 't', type: 'job_title', label: t.label, country: null, value: t.title, details: {} },
            { id: 'a', type: 'postal_address', label: null, country: 'GB', value: { street_lines: [t.street, t.note.split('\n')[0]], locality: t.org, postal_code: 'SW1A 2AA' }, details: {} },
            { id: 'x', type: 'note', label: null, country: null, value: t.note, details: {} },
            { id: 'y', type: 'note', label: null, country: null, value: t.title, details: {} },
          ];
          const shown = card(fields, { username: 'x', display_name: t.display });
          for (const form of FORMS) {
            const text = cardToVcard(shown, { version: form.version, uid: 'urn:uuid:x', rfc9554: form.rfc9554 });
            assertFolded(text);
            for (const [reading] of await readEverywhere(text, form)) assertReadsCard(reading!, shown, form);
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});

describe('vCard text rules', () => {
  it('escapes backslash, comma, semicolon and line breaks (RFC 2426 §4, RFC 6350 §3.4)', () => {
    assert.equal(escapeText('a\\b,c;d\ne\r\nf'), 'a\\\\b\\,c\\;d\\ne\\nf');
  });

  it('folds between characters, never inside one or an escape, and never beside white space', () => {
    const line = `NOTE:${'é'.repeat(100)}`;
    const folded = fold(line).split('\r\n');
    assert.ok(folded.length > 1);
    for (const part of folded) assert.ok(Buffer.byteLength(part) <= 75);
    assert.equal(folded.map((p, i) => (i ? p.slice(1) : p)).join(''), line);
    assert.equal(fold('FN:short'), 'FN:short');
    // A space at the 75th octet: the fold moves back to the letter before it.
    const spaced = fold(`NOTE:${'a'.repeat(69)} bcdefgh`).split('\r\n');
    assert.deepEqual(spaced, [`NOTE:${'a'.repeat(68)}`, ` a bcdefgh`]);
    // An escape across the 75th octet stays whole; so does a letter with its combining marks.
    assert.deepEqual(fold(`NOTE:${'a'.repeat(69)}\\nb`).split('\r\n'), [`NOTE:${'a'.repeat(69)}`, ' \\nb']);
    assert.deepEqual(fold(`NOTE:${'a'.repeat(69)}e\u0301\u0323b`).split('\r\n'), [`NOTE:${'a'.repeat(69)}`, ' e\u0301\u0323b']);
  });

  it('cuts a run of white space longer than a line where it fits, which RFC 6350 readers still read exactly', () => {
    const line = `NOTE:a${' '.repeat(160)}b`;
    const folded = fold(line).split('\r\n');
    for (const part of folded) assert.ok(Buffer.byteLength(part) <= 75);
    assert.equal(folded.map((p, i) => (i ? p.slice(1) : p)).join(''), line);
  });

  it('merges several notes into one NOTE, a blank line between, where the first was', () => {
    for (const version of ['3.0', '4.0'] as const) {
      const text = cardToVcard(card([field('note', 'First; one'), field('nickname', 'Nick'), field('note', 'Second\nline')]), { version, uid: 'urn:uuid:x' });
      const lines = text.split('\r\n');
      assert.deepEqual(lines.filter((l) => l.startsWith('NOTE')), ['NOTE:First\\; one\\n\\nSecond\\nline']);
      assert.ok(lines.findIndex((l) => l.startsWith('NOTE')) < lines.findIndex((l) => l.startsWith('NICKNAME')), 'where the first note was');
    }
  });

  it('writes a 3.0 extension after a wait ";", never as ;ext= nor after a letter (decision 310)', () => {
    assert.equal(tel30('+442079460958;ext=123'), '+442079460958;123');
    assert.equal(tel30('+442079460958'), '+442079460958');
  });
});
