// Phone numbers per country, with real public numbers (parliaments, palaces, landmarks) and the
// usual mobile formats; the catalog path (shape, country, rules) is exercised as the API uses it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../platform/errors.js';
import { createFieldCatalog } from './catalog.js';

const catalog = createFieldCatalog();
const phone = catalog.definition('phone')!;
const NOW = Date.UTC(2025, 5, 1);
const check = (value: string, country?: string) => catalog.check(phone, value, country, undefined, NOW);

function valid(value: string, country: string | undefined, e164: string, numberCountry: string, lineType?: string) {
  const outcome = check(value, country);
  assert.ok(outcome.ok, `${value} (${country}) should be valid: ${JSON.stringify(outcome)}`);
  assert.equal(outcome.checked.value, e164);
  assert.equal(outcome.checked.country, numberCountry);
  if (lineType) assert.equal(outcome.checked.details.line_type, lineType);
}

function refused(value: string, country: string | undefined, code: string) {
  const outcome = check(value, country);
  assert.ok(!outcome.ok, `${value} (${country}) should be refused`);
  assert.equal(outcome.errors[0]?.code, code, JSON.stringify(outcome.errors));
  assert.equal(outcome.errors[0]?.path, '/value');
}

describe('phone numbers: E.164 per country (libphonenumber metadata)', () => {
  it('reads national numbers with the country and stores E.164, telling mobile from fixed line', () => {
    valid('030 22732152', 'DE', '+493022732152', 'DE', 'fixed_line'); // Deutscher Bundestag
    valid('0151 23456789', 'DE', '+4915123456789', 'DE', 'mobile');
    valid('020 7930 4832', 'GB', '+442079304832', 'GB', 'fixed_line'); // Buckingham Palace
    valid('07400 123456', 'GB', '+447400123456', 'GB', 'mobile');
    valid('(202) 456-1111', 'US', '+12024561111', 'US', 'fixed_line_or_mobile'); // White House
    valid('01 42 92 81 00', 'FR', '+33142928100', 'FR', 'fixed_line'); // Élysée
    valid('06 12 34 56 78', 'FR', '+33612345678', 'FR', 'mobile');
    valid('03-3433-5111', 'JP', '+81334335111', 'JP', 'fixed_line'); // Tokyo Tower
    valid('090-1234-5678', 'JP', '+819012345678', 'JP', 'mobile');
    valid('(11) 91234-5678', 'BR', '+5511912345678', 'BR', 'mobile');
    valid('011 2301 5321', 'IN', '+911123015321', 'IN', 'fixed_line'); // Rashtrapati Bhavan
    valid('98765 43210', 'IN', '+919876543210', 'IN', 'mobile');
    valid('(02) 9250 7111', 'AU', '+61292507111', 'AU', 'fixed_line'); // Sydney Opera House
    valid('0412 345 678', 'AU', '+61412345678', 'AU', 'mobile');
    valid('021 405 4200', 'ZA', '+27214054200', 'ZA', 'fixed_line');
    valid('0803 123 4567', 'NG', '+2348031234567', 'NG', 'mobile');
    valid('138 0013 8000', 'CN', '+8613800138000', 'CN', 'mobile');
    valid('8 (495) 697-03-49', 'RU', '+74956970349', 'RU', 'fixed_line');
    valid('010-1234-5678', 'KR', '+821012345678', 'KR', 'mobile');
    valid('612 34 56 78', 'ES', '+34612345678', 'ES', 'mobile');
  });

  it('takes international form without a country, and the number\'s own country wins', () => {
    valid('+44 20 7930 4832', undefined, '+442079304832', 'GB');
    valid('+1 613-992-4793', undefined, '+16139924793', 'CA'); // same +1 plan, Canadian number
    valid('+49 30 22732152', 'FR', '+493022732152', 'DE');
    valid('0049 30 22732152', 'DE', '+493022732152', 'DE'); // international call prefix from Germany
    valid('+39 06 6982', undefined, '+39066982', 'VA'); // Vatican City shares Rome's 06 range
  });

  it('keeps an extension after ;ext= (RFC 3966) and what was typed as original', () => {
    const outcome = check('+1 212 555 0123 ext. 42');
    assert.ok(outcome.ok);
    assert.equal(outcome.checked.value, '+12125550123;ext=42');
    assert.equal(outcome.checked.original, '+1 212 555 0123 ext. 42');
    assert.equal(outcome.checked.details.uri, 'tel:+12125550123;ext=42');
  });

  it('refuses numbers the country\'s numbering plan does not have', () => {
    refused('+44 7700 900123', undefined, 'phone_invalid'); // Ofcom range reserved for drama
    refused('+1 123 456 7890', undefined, 'phone_invalid'); // no NANP area code starts with 1
    refused('+33 0 12 34 56 78', undefined, 'phone_invalid');
    refused('090-1234-567', 'JP', 'phone_invalid');
    refused('(11) 1234-5678', 'BR', 'phone_invalid');
    refused('0412 345', 'AU', 'phone_invalid');
    refused('0803 123', 'NG', 'phone_too_short');
    refused('+86 138 0013 800', undefined, 'phone_invalid');
    refused('030 12', 'DE', 'phone_invalid');
    refused('030 1234567890123456', 'DE', 'phone_too_long');
    refused('555-0100', 'US', 'phone_too_short');
    refused('call me maybe', 'DE', 'phone_not_a_number');
    refused('+999 1234 5678', undefined, 'phone_invalid');
  });

  it('needs a country for a national number: a request-level 400 country_required', () => {
    assert.throws(() => check('030 22732152'), (e: unknown) => e instanceof AppError && e.status === 400 && e.code === 'country_required');
  });

  it('publishes calling codes and example numbers per country', () => {
    const rules = phone.countries!() as Record<string, { calling_code: string; example: string | null }>;
    assert.equal(rules.DE?.calling_code, '49');
    assert.equal(rules.JP?.calling_code, '81');
    assert.match(rules.GB?.example ?? '', /^\+44 7/);
    assert.ok(Object.keys(rules).length > 200);
  });
});
