// The catalog as a whole: every type PRODUCT §2 names, its published examples pass its own
// rules, request-level refusals (country, size), and the text types.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../platform/errors.js';
import { createFieldCatalog } from './catalog.js';

const catalog = createFieldCatalog();
const check = (key: string, value: unknown, country?: string | null, fallback?: string) =>
  catalog.check(catalog.definition(key)!, value, country, fallback, Date.UTC(2025, 5, 1));
const refusal = (code: string, status = 400) => (e: unknown) => e instanceof AppError && e.code === code && e.status === status;

describe('the field catalog', () => {
  it('has every type of PRODUCT §2, each with a value schema and a content ETag', () => {
    const keys = JSON.parse(catalog.page(undefined, 50).json).data.map((t: { key: string }) => t.key);
    for (const key of ['name', 'nickname', 'phone', 'email', 'postal_address', 'birthday', 'url', 'social', 'organization', 'job_title', 'pronouns', 'language', 'time_zone', 'note']) {
      assert.ok(keys.includes(key), key);
      assert.match(catalog.entry(key)!.etag, /^"[A-Za-z0-9_-]{27}"$/);
    }
    assert.equal(createFieldCatalog().page(undefined, 50).etag, catalog.page(undefined, 50).etag, 'the ETag depends on content only');
  });

  it('pages in its fixed order like every list: no repeats, no gaps, a malformed cursor refused', () => {
    const whole = JSON.parse(catalog.page(undefined, 50).json).data.map((t: { key: string }) => t.key);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = JSON.parse(catalog.page(cursor, 4).json);
      seen.push(...page.data.map((t: { key: string }) => t.key));
      assert.ok(page.data.length <= 4);
      if (!page.has_more) break;
      cursor = page.next_cursor;
    }
    assert.deepEqual(seen, whole);
    assert.throws(() => catalog.page('not-a-cursor', 4), refusal('invalid_cursor'));
  });

  it('accepts every example it publishes in value_schema', () => {
    for (const { definition } of JSON.parse(catalog.page(undefined, 50).json).data.map((t: { key: string }) => catalog.entry(t.key)!)) {
      const country = definition.country === 'required' ? 'US' : definition.key === 'phone' ? 'US' : undefined;
      for (const example of (definition.valueSchema.examples as unknown[]) ?? []) {
        const outcome = check(definition.key, example, country);
        assert.ok(outcome.ok, `${definition.key} ${JSON.stringify(example)}: ${JSON.stringify(outcome)}`);
      }
    }
  });

  it('refuses a bad country, a country on a type without one, and an oversized value, before any rule', () => {
    assert.throws(() => check('phone', '+49 30 22732152', 'XX'), refusal('invalid_country'));
    assert.throws(() => check('phone', '+49 30 22732152', 'DEU'), refusal('invalid_country'));
    assert.throws(() => check('email', 'ada@example.org', 'GB'), refusal('country_not_applicable'));
    assert.throws(() => check('note', 'x'.repeat(4095)), refusal('field_value_too_large', 413));
    assert.throws(() => check('postal_address', { street_lines: ['x'.repeat(5000)] }, 'DE'), refusal('field_value_too_large', 413));
    const lower = check('postal_address', { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' }, 'de');
    assert.ok(lower.ok && lower.checked.country === 'DE');
  });

  it('cleans text: NFC, trimmed, no control characters or bidi overrides, length caps', () => {
    const nfc = check('nickname', '  Zoe\u0301  ');
    assert.ok(nfc.ok);
    assert.equal(nfc.checked.value, 'Zoé');
    assert.equal(nfc.checked.original, '  Zoe\u0301  ');
    const note = check('note', 'First line\r\n\r\n\r\n\r\nSecond line  ');
    assert.ok(note.ok);
    assert.equal(note.checked.value, 'First line\n\nSecond line');
    for (const [key, value, code] of [
      ['nickname', 'evil\u202Egnp.exe', 'text_unsafe_characters'],
      ['job_title', 'line\nbreak\u0007', 'text_unsafe_characters'],
      ['pronouns', '   ', 'text_empty'],
      ['pronouns', 'x'.repeat(41), 'maxLength'],
    ] as const) {
      const outcome = check(key, value);
      assert.ok(!outcome.ok, `${key} ${value}`);
      assert.equal(outcome.errors[0]?.code, code);
    }
  });

  it('names need a given or a family name; organisations a name', () => {
    const name = check('name', { prefix: 'Dr.', given: 'José', middle: 'María', family: 'García Márquez' });
    assert.ok(name.ok);
    assert.equal(name.checked.details.formatted, 'Dr. José María García Márquez');
    const mononym = check('name', { given: 'Sukarno' });
    assert.ok(mononym.ok);
    const onlyPrefix = check('name', { prefix: 'Dr.', given: ' ' });
    assert.ok(!onlyPrefix.ok);
    assert.equal(onlyPrefix.errors[0]?.code, 'name_incomplete');
    const extra = check('name', { given: 'Ada', nickname: 'Countess' });
    assert.ok(!extra.ok);
    assert.deepEqual(extra.errors[0], { path: '/value/nickname', code: 'additionalProperties', message: 'must NOT have additional properties' });
    const org = check('organization', { name: '  ', unit: 'R&D' });
    assert.ok(!org.ok);
    assert.equal(org.errors[0]?.path, '/value/name');
  });

  it('languages are BCP 47 tags in canonical form, of languages that exist', () => {
    const cases: [string, string | null][] = [['pt-br', 'pt-BR'], ['ZH-hant', 'zh-Hant'], ['iw', 'he'], ['de', 'de'], ['xx', null], ['en_US', null]];
    for (const [typed, stored] of cases) {
      const outcome = check('language', typed);
      assert.equal(outcome.ok ? outcome.checked.value : null, stored, typed);
    }
  });
});
