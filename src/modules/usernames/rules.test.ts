import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import fc from 'fast-check';
import { lookAlikeArb, lookAlikePair } from '../../../test/helpers/lookalikes.js';
import { confusableSkeleton } from './migrations/013-username-keys.js';
import { canonicalUsername, comparisonKeys, enforceUsername, loadReservedNames } from './rules.js';

const RESERVED_FILE = fileURLToPath(new URL('../../../data/reserved-usernames.txt', import.meta.url));

/** The canonical form, which canonicalUsername (lookups) must answer exactly as enforceUsername (availability) does. */
function canonicalOf(input: string): string {
  const verdict = enforceUsername(input);
  assert.ok(verdict.ok, `expected ${JSON.stringify(input)} to be valid`);
  assert.deepEqual(canonicalUsername(input), { ok: true, canonical: verdict.canonical });
  return verdict.canonical;
}

function assertInvalid(input: string, detail: RegExp): void {
  const verdict = enforceUsername(input);
  assert.equal(verdict.ok, false, `expected ${JSON.stringify(input)} to be refused`);
  if (!verdict.ok) {
    assert.equal(verdict.reason, 'invalid');
    assert.match(verdict.detail, detail);
  }
  assert.deepEqual(canonicalUsername(input), verdict);
}

function isReservedName(input: string): boolean {
  const verdict = enforceUsername(input);
  assert.ok(verdict.ok, `expected ${JSON.stringify(input)} to be valid`);
  return loadReservedNames(RESERVED_FILE).isReserved(verdict);
}

describe('enforceUsername', () => {
  describe('mapping', () => {
    it('folds case so that differently cased names are one account', () => {
      assert.equal(canonicalOf('Alice'), 'alice');
      assert.equal(canonicalOf('ALICE'), canonicalOf('alice'));
    });

    it('folds ß to ss, so "straße" and "STRASSE" have the same canonical form', () => {
      assert.equal(canonicalOf('straße'), 'strasse');
      assert.equal(canonicalOf('STRASSE'), 'strasse');
    });

    it('maps fullwidth letters to ASCII', () => {
      assert.equal(canonicalOf('ａｌｉｃｅ'), 'alice');
      assert.equal(canonicalOf('ＡＬＩＣＥ'), 'alice');
    });

    it('maps halfwidth katakana and composes the voiced mark (NFC)', () => {
      assert.equal(canonicalOf('ｶﾞﾗｽ'), 'ガラス');
    });

    it('gives precomposed and decomposed input the same canonical form', () => {
      assert.equal(canonicalOf('jose\u0301'), canonicalOf('jos\u00e9'));
      assert.equal(canonicalOf('JOSÉ'), 'jos\u00e9');
    });

    it('returns the comparison keys of the canonical form and of the typed form', () => {
      const verdict = enforceUsername('PayPa1');
      assert.deepEqual(verdict, { ok: true, canonical: 'paypa1', skeleton: 'paypal', skeletonUpper: 'PAYPAl', typedSkeleton: 'paypal' });
      assert.deepEqual(verdict, { ok: true, canonical: 'paypa1', ...comparisonKeys('paypa1', 'PayPa1') });
    });

    it('canonicalUsername answers the canonical form alone, with the same verdict as enforceUsername but for the identifier profile (property)', () => {
      assert.deepEqual(canonicalUsername('PayPa1'), { ok: true, canonical: 'paypa1' });
      const names = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), lookAlikeArb.map((sample) => lookAlikePair(sample, '2357').variant));
      fc.assert(
        fc.property(names, (input) => {
          const verdict = enforceUsername(input);
          const lookup = canonicalUsername(input);
          // Lookups still find a name registered before UTS #39's profile applied; nothing else differs.
          if (!verdict.ok && /not allow in identifiers/.test(verdict.detail)) assert.equal(lookup.ok, true);
          else assert.deepEqual(lookup, verdict.ok ? { ok: true, canonical: verdict.canonical } : verdict);
        }),
        { numRuns: 2000 },
      );
    });
  });

  describe('length', () => {
    it('refuses 2 characters and accepts 3', () => {
      assertInvalid('ab', /at least 3/);
      assert.equal(canonicalOf('abc'), 'abc');
    });

    it('accepts 32 characters and refuses 33', () => {
      assert.equal(canonicalOf('a'.repeat(32)), 'a'.repeat(32));
      assertInvalid('a'.repeat(33), /at most 32/);
    });

    it('counts code points, not UTF-16 units', () => {
      assert.equal(Array.from(canonicalOf('𠀀'.repeat(32))).length, 32);
    });

    it('refuses the empty string and very long input', () => {
      assertInvalid('', /at least 3/);
      assertInvalid('a'.repeat(100_000), /at most 32/);
    });
  });

  describe('allowed characters', () => {
    it('accepts letters, digits and single . _ - between them', () => {
      assert.equal(canonicalOf('j.doe_99-x'), 'j.doe_99-x');
    });

    it('refuses leading and trailing punctuation', () => {
      assertInvalid('.alice', /start with a letter or digit/);
      assertInvalid('-alice', /start with a letter or digit/);
      assertInvalid('alice_', /end with a letter or digit/);
      assertInvalid('alice.', /end with a letter or digit/);
    });

    it('refuses two punctuation characters in a row', () => {
      assertInvalid('a..b', /two punctuation characters in a row/);
      assertInvalid('a-_b', /two punctuation characters in a row/);
    });

    it('refuses a combining mark placed on punctuation', () => {
      assertInvalid('ab-\u0301cd', /combining mark/);
    });

    it('refuses spaces, other punctuation and symbols', () => {
      assertInvalid('alice smith', /U\+0020/);
      assertInvalid('alice@example', /U\+0040/);
      assertInvalid('alice+bob', /U\+002B/);
    });

    it('refuses emoji', () => {
      assertInvalid('alice😀', /U\+1F600/);
    });

    it('refuses default-ignorables such as zero-width joiner and space', () => {
      assertInvalid('ali\u200Dce', /U\+200D/);
      assertInvalid('ali\u200Bce', /U\+200B/);
      assertInvalid('alice\uFE0F', /U\+FE0F/); // a mark, but invisible
      assertInvalid('\u3164alice', /U\+3164/); // a letter, but invisible
    });

    it('refuses scripts outside the UAX #31 recommended set', () => {
      assertInvalid('ᚠᚢᚦ', /script is not allowed/); // Runic
    });
  });

  describe('Unicode\'s identifier profile (UTS #39 §3.1, Identifier_Status=Allowed)', () => {
    it('refuses a new name holding a mark or letter Unicode restricts, also where it renders as almost nothing beside a letter', () => {
      for (const [mark, label] of [['\u0486', 'U+0486'], ['\u0951', 'U+0951'], ['\u{1D165}', 'U+1D165'], ['\u{1CF00}', 'U+1CF00']] as const) {
        const verdict = enforceUsername(`alic${mark}e`);
        assert.equal(verdict.ok, false, label);
        if (!verdict.ok) assert.match(verdict.detail, new RegExp(`${label.replace('+', '\\+')}.*not allow in identifiers`));
      }
      // An archaic letter of a recommended script (Greek ϝ digamma) is restricted too; one that
      // case folding turns into a letter of today (Latin ſ, long s) is that letter.
      assert.equal(enforceUsername('ϝαβ').ok, false);
      assert.equal(canonicalOf('ſam'), 'sam');
    });

    it('still finds a name registered before the profile (lookups take the canonical form only)', () => {
      assert.deepEqual(canonicalUsername('alic\u0486e'), { ok: true, canonical: 'alic\u0486e' });
    });

    it('keeps allowing what people write: accents, kana voicing, Indic vowel signs, Hangul, Arabic, the separators', () => {
      for (const name of ['alíce', 'josé.m', 'がきく', 'रामन', '홍길동', 'محمد', 'ana_b-c', 'øyvind', 'straße']) {
        const verdict = enforceUsername(name);
        assert.ok(verdict.ok, `${name}: ${verdict.ok ? '' : verdict.detail}`);
      }
    });
  });

  describe('mixed scripts (UTS #39 §5.1)', () => {
    it('refuses Latin mixed with a Cyrillic lookalike', () => {
      assertInvalid('p\u0430ypal', /mixes scripts/);
    });

    it('accepts pure Cyrillic', () => {
      assert.equal(canonicalOf('Наташа'), 'наташа');
    });

    it('accepts Japanese Han with Hiragana and Katakana', () => {
      assert.equal(canonicalOf('山田たろう'), '山田たろう');
      assert.equal(canonicalOf('東京タワー'), '東京タワー');
    });

    it('accepts Korean Hangul with Han', () => {
      assert.equal(canonicalOf('김大中'), '김大中');
    });

    it('refuses Hangul mixed with Latin', () => {
      assertInvalid('김han', /mixes scripts/);
    });

    it('lets ASCII digits and punctuation join any script', () => {
      assert.equal(canonicalOf('наташа_1990'), 'наташа_1990');
    });
  });

  describe('right-to-left names (simplified RFC 5893)', () => {
    it('accepts an Arabic name, also with trailing digits', () => {
      assert.equal(canonicalOf('محمد'), 'محمد');
      assert.equal(canonicalOf('محمد2024'), 'محمد2024');
    });

    it('accepts a Hebrew name', () => {
      assert.equal(canonicalOf('דוד'), 'דוד');
    });

    it('refuses an Arabic name that starts with a digit', () => {
      assertInvalid('1محمد', /right-to-left name must start with a right-to-left letter/);
      assertInvalid('١محمد', /right-to-left name must start with a right-to-left letter/);
    });
  });

  describe('digits (UTS #39 §5.3)', () => {
    it('refuses ASCII digits mixed with Arabic-Indic digits', () => {
      assertInvalid('محمد1٢', /different numbering systems/);
    });

    it('refuses Arabic-Indic mixed with Extended Arabic-Indic digits', () => {
      assertInvalid('محمد١۲', /different numbering systems/);
    });

    it('accepts digits of one system', () => {
      assert.equal(canonicalOf('محمد١٢٣'), 'محمد١٢٣');
    });
  });
});

describe('confusableSkeleton (the key before migration 013, which its down migration restores)', () => {
  it('gives "paypal", "paypa1" and Cyrillic "рауpal" the same skeleton', () => {
    const skeleton = confusableSkeleton('paypal');
    assert.equal(skeleton, 'paypal');
    assert.equal(confusableSkeleton('paypa1'), skeleton);
    assert.equal(confusableSkeleton('\u0440\u0430\u0443pal'), skeleton);
  });

  it('maps "m" to the same prototype as "rn"', () => {
    assert.equal(confusableSkeleton('m'), 'rn');
    assert.equal(confusableSkeleton('modern'), confusableSkeleton('rnodern'));
  });

  it('drops default-ignorables before mapping', () => {
    assert.equal(confusableSkeleton('pay\u200Bpal'), 'paypal');
  });

  it('is equal for canonically equivalent input', () => {
    assert.equal(confusableSkeleton('jos\u00e9'), confusableSkeleton('jose\u0301'));
  });
});

/** What the accounts table would answer for `candidate` while `held` is registered (queries.ts findClash). */
function clash(candidate: string, held: string): 'taken' | 'confusable' | undefined {
  const c = enforceUsername(candidate);
  const h = enforceUsername(held);
  assert.ok(c.ok && h.ok, `expected ${JSON.stringify(candidate)} and ${JSON.stringify(held)} to be valid`);
  if (c.canonical === h.canonical) return 'taken';
  if (c.skeleton === h.skeleton || c.typedSkeleton === h.skeleton || c.skeletonUpper === h.skeletonUpper) return 'confusable';
  return undefined;
}

describe('comparisonKeys (look-alikes)', () => {
  it('reads a capital I typed for l as l: "biIIyqz" and "BiIIyqz" look like "billyqz"', () => {
    assert.equal(canonicalOf('biIIyqz'), 'biiiyqz');
    assert.equal(clash('biIIyqz', 'billyqz'), 'confusable');
    assert.equal(clash('BiIIyqz', 'billyqz'), 'confusable');
    // Typed in lower case it is another name, shown as "biiiyqz": nothing like "billyqz".
    assert.equal(clash('biiiyqz', 'billyqz'), undefined);
  });

  it('compares capitals: Cyrillic "ТОРЕХА" and Greek "ΤΟΡΕΧΑ" look like "topexa", in either order and either case', () => {
    for (const lookalike of ['ТОРЕХА', 'ΤΟΡΕΧΑ', 'тореха', 'τορεχα']) {
      assert.equal(clash(lookalike, 'topexa'), 'confusable', lookalike);
      assert.equal(clash('topexa', lookalike), 'confusable', lookalike);
    }
    assert.equal(clash('КОМРОТХ', 'KOMPOTX'), 'confusable');
    assert.equal(clash('ΝΙΚΕ', 'nike'), 'confusable');
  });

  it('ignores separators and accents: "a.lice", "a_lice", "a-lice", "alíce", "ALÍCE", "ałice" look like "alice"', () => {
    for (const lookalike of ['a.lice', 'a_lice', 'a-lice', 'al.i_c-e', 'alíce', 'ALÍCE', 'ałice', 'álice']) {
      assert.equal(clash(lookalike, 'alice'), 'confusable', lookalike);
      assert.equal(clash('alice', lookalike), 'confusable', lookalike);
    }
    assert.equal(clash('Alice', 'alice'), 'taken');
    assert.equal(clash('ＡＬＩＣＥ', 'alice'), 'taken');
  });

  it('keeps marks that make another letter: kana voicing and Devanagari vowel signs', () => {
    assert.equal(clash('かきく', 'がきく'), undefined);
    assert.equal(clash('रामन', 'रमन'), undefined);
  });

  it('reads two letters that imitate one as that one: "vvendy" looks like "wendy", "clana" like "dana", "rnike" like "mike"', () => {
    for (const [lookalike, original] of [['vvendy', 'wendy'], ['VVENDY', 'wendy'], ['clana', 'dana'], ['c1ana', 'dana'], ['rnike', 'mike'], ['davvn', 'dawn'], ['edvvarcl', 'edward']] as const) {
      assert.equal(clash(lookalike, original), 'confusable', `${lookalike} beside ${original}`);
      assert.equal(clash(original, lookalike), 'confusable', `${original} beside ${lookalike}`);
    }
    // The price: real names that differ only so meet too ("clara" and "dara"); distinct ones stay apart.
    assert.equal(clash('clara', 'dara'), 'confusable');
    assert.equal(clash('victor', 'wictor'), undefined);
    assert.equal(clash('david', 'david2'), undefined);
  });

  it('keeps apart names that differ in lower case and in capitals ("neil" and "nell", "biiiyqz" and "billyqz")', () => {
    assert.equal(clash('neil', 'nell'), undefined);
    assert.equal(clash('nell', 'neil'), undefined);
    assert.equal(clash('mike', 'mlke'), undefined);
  });

  it('refuses every look-alike of a name: I/l case changes, script swaps, separators, accents (property)', () => {
    fc.assert(
      fc.property(lookAlikeArb, (sample) => {
        const { original, variant } = lookAlikePair(sample, '2357');
        // A look-alike made of characters Unicode restricts in identifiers is refused outright.
        const verdict = enforceUsername(variant);
        if (!verdict.ok) {
          assert.match(verdict.detail, /not allow in identifiers/, `${JSON.stringify(variant)}: ${verdict.detail}`);
          return;
        }
        const answer = clash(variant, original);
        assert.ok(answer === 'confusable' || answer === 'taken', `${JSON.stringify(variant)} beside ${JSON.stringify(original)}: ${answer}`);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('loadReservedNames', () => {
  it('loads the shipped list, every entry of which passes enforcement', () => {
    const reserved = loadReservedNames(RESERVED_FILE);
    assert.ok(reserved.size >= 150, `only ${reserved.size} reserved names`);
  });

  it('reserves "admin" in any case', () => {
    for (const name of ['admin', 'Admin', 'ADMIN', 'ａｄｍｉｎ']) assert.equal(isReservedName(name), true, name);
  });

  it('reserves a Latin lookalike through the skeleton ("adrnin" for "admin")', () => {
    assert.equal(isReservedName('adrnin'), true);
  });

  it('reserves an all-Cyrillic lookalike through the skeleton ("ассеѕѕ" for "access")', () => {
    const lookalike = '\u0430\u0441\u0441\u0435\u0455\u0455';
    assert.equal(confusableSkeleton(lookalike), 'access');
    assert.equal(isReservedName(lookalike), true);
  });

  it('reserves "adm1n" by its capitals key: its lower-case key is "adrnln", not "adrnin", but "ADM1N" looks like "ADMIN"', () => {
    assert.equal(confusableSkeleton('adm1n'), 'adrnln');
    assert.equal(comparisonKeys('adm1n').skeletonUpper, comparisonKeys('admin').skeletonUpper);
    assert.equal(isReservedName('adm1n'), true);
  });

  it('reserves a name typed with a capital I for l ("heIp" for "help") and one with a dot ("he.lp")', () => {
    assert.equal(isReservedName('heIp'), true);
    assert.equal(isReservedName('he.lp'), true);
    assert.equal(isReservedName('heip'), false);
  });

  it('leaves ordinary names free', () => {
    assert.equal(isReservedName('alice'), false);
    assert.equal(isReservedName('山田たろう'), false);
  });

  it('ignores comments and blank lines, and refuses an entry that fails enforcement', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vid-reserved-'));
    try {
      const good = join(dir, 'good.txt');
      writeFileSync(good, '# header\n\nRoot\n  staff  # trailing comment\n');
      const reserved = loadReservedNames(good);
      assert.equal(reserved.size, 2);
      assert.equal(reserved.isReserved({ canonical: 'root', ...comparisonKeys('root') }), true);
      assert.equal(reserved.isReserved({ canonical: 'staff', ...comparisonKeys('staff') }), true);

      const bad = join(dir, 'bad.txt');
      writeFileSync(bad, 'root\nme\n');
      assert.throws(() => loadReservedNames(bad), /bad\.txt:2: reserved name "me"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
