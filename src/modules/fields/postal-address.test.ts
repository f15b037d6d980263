// Postal addresses per country with real addresses (seats of government, landmarks), valid and
// invalid, through the catalog as the API uses it; and the integrity of data/address-rules.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AppError } from '../../platform/errors.js';
import { projectRoot } from '../../platform/paths.js';
import { addressCountryRules, addressRuleFor } from './address-rules.js';
import { createFieldCatalog } from './catalog.js';
import { isCountryCode } from '../../platform/countries.js';

const catalog = createFieldCatalog();
const address = catalog.definition('postal_address')!;
const check = (value: unknown, country?: string, fallback?: string) => catalog.check(address, value, country, fallback, Date.UTC(2025, 5, 1));

function valid(country: string, value: Record<string, unknown>, expected: Record<string, unknown> = {}) {
  const outcome = check(value, country);
  assert.ok(outcome.ok, `${country} ${JSON.stringify(value)}: ${JSON.stringify(outcome)}`);
  const stored = outcome.checked.value as Record<string, unknown>;
  for (const [part, text] of Object.entries(expected)) assert.deepEqual(stored[part], text, `${country} ${part}`);
  return outcome.checked;
}

function refused(country: string, value: Record<string, unknown>, path: string, code: string) {
  const outcome = check(value, country);
  assert.ok(!outcome.ok, `${country} ${JSON.stringify(value)} should be refused`);
  assert.ok(outcome.errors.some((e) => e.path === path && e.code === code), JSON.stringify(outcome.errors));
}

describe('postal addresses: per-country required parts and postal codes', () => {
  it('accepts real addresses and normalises postal codes to the form the post prints', () => {
    valid('US', { street_lines: ['1600 Pennsylvania Avenue NW'], locality: 'Washington', region: 'DC', postal_code: '20500' });
    valid('US', { street_lines: ['350 Fifth Avenue'], locality: 'New York', region: 'NY', postal_code: '101180110' }, { postal_code: '10118-0110' });
    valid('GB', { street_lines: ['10 Downing Street'], locality: 'London', postal_code: 'sw1a2aa' }, { postal_code: 'SW1A 2AA' });
    valid('DE', { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: 'D-11011' }, { postal_code: '11011' });
    valid('FR', { street_lines: ['55 Rue du Faubourg Saint-Honoré'], locality: 'Paris', postal_code: '75008' });
    valid('JP', { street_lines: ['1-1 Chiyoda'], locality: 'Chiyoda-ku', region: 'Tokyo', postal_code: '1008111' }, { postal_code: '100-8111' });
    valid('BR', { street_lines: ['Praça dos Três Poderes'], locality: 'Brasília', region: 'DF', postal_code: '70150900' }, { postal_code: '70150-900' });
    valid('IN', { street_lines: ['Rashtrapati Bhavan'], locality: 'New Delhi', region: 'Delhi', postal_code: '110004' });
    valid('CA', { street_lines: ['111 Wellington Street'], locality: 'Ottawa', region: 'ON', postal_code: 'k1a0a9' }, { postal_code: 'K1A 0A9' });
    valid('AU', { street_lines: ['Bennelong Point'], locality: 'Sydney', region: 'NSW', postal_code: '2000' });
    valid('NL', { street_lines: ['Museumstraat 1'], locality: 'Amsterdam', postal_code: '1071xx' }, { postal_code: '1071 XX' });
    valid('ES', { street_lines: ['Calle de Ruiz de Alarcón 23'], locality: 'Madrid', region: 'Madrid', postal_code: '28014' });
    valid('IT', { street_lines: ['Piazza del Colosseo 1'], locality: 'Roma', region: 'RM', postal_code: '00184' });
    valid('MX', { street_lines: ['Plaza de la Constitución S/N'], dependent_locality: 'Centro', locality: 'Ciudad de México', region: 'CDMX', postal_code: '06010' });
    valid('PL', { street_lines: ['Wiejska 4/6/8'], locality: 'Warszawa', postal_code: '00902' }, { postal_code: '00-902' });
    valid('IE', { street_lines: ['Leinster House', 'Kildare Street'], locality: 'Dublin 2', postal_code: 'd02 a272' }, { postal_code: 'D02 A272' });
  });

  it('accepts countries without postal codes without one (Hong Kong, UAE, Ghana)', () => {
    valid('HK', { street_lines: ['Tamar Street 2'], region: 'Hong Kong Island' });
    valid('AE', { street_lines: ['Sheikh Zayed Road, Trade Centre 1'], region: 'Dubai' });
    valid('GH', { street_lines: ['Jubilee House'], locality: 'Accra' });
  });

  it('refuses postal codes that do not fit the country', () => {
    refused('US', { street_lines: ['1600 Pennsylvania Avenue NW'], locality: 'Washington', region: 'DC', postal_code: '2050' }, '/value/postal_code', 'postal_code_pattern');
    refused('GB', { street_lines: ['10 Downing Street'], locality: 'London', postal_code: 'SW1A' }, '/value/postal_code', 'postal_code_pattern');
    refused('DE', { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '1101' }, '/value/postal_code', 'postal_code_pattern');
    refused('FR', { street_lines: ['55 Rue du Faubourg Saint-Honoré'], locality: 'Paris', postal_code: '7508' }, '/value/postal_code', 'postal_code_pattern');
    refused('CA', { street_lines: ['111 Wellington Street'], locality: 'Ottawa', region: 'ON', postal_code: 'K1A 0A' }, '/value/postal_code', 'postal_code_pattern');
    refused('IN', { street_lines: ['Rashtrapati Bhavan'], locality: 'New Delhi', region: 'Delhi', postal_code: '11004' }, '/value/postal_code', 'postal_code_pattern');
    refused('AU', { street_lines: ['Bennelong Point'], locality: 'Sydney', region: 'NSW', postal_code: '200' }, '/value/postal_code', 'postal_code_pattern');
    refused('NL', { street_lines: ['Museumstraat 1'], locality: 'Amsterdam', postal_code: '1071' }, '/value/postal_code', 'postal_code_pattern');
    refused('ES', { street_lines: ['Calle Mayor 1'], locality: 'Madrid', region: 'Madrid', postal_code: '60000' }, '/value/postal_code', 'postal_code_pattern');
    refused('JP', { street_lines: ['1-1 Chiyoda'], region: 'Tokyo', postal_code: '100-811' }, '/value/postal_code', 'postal_code_pattern');
    refused('BR', { street_lines: ['Praça dos Três Poderes'], locality: 'Brasília', region: 'DF', postal_code: '7015090' }, '/value/postal_code', 'postal_code_pattern');
  });

  it('refuses addresses missing a part the country requires', () => {
    refused('US', { street_lines: ['1600 Pennsylvania Avenue NW'], locality: 'Washington', postal_code: '20500' }, '/value/region', 'address_part_required');
    refused('JP', { street_lines: ['1-1 Chiyoda'], postal_code: '100-8111' }, '/value/region', 'address_part_required');
    refused('DE', { street_lines: ['Platz der Republik 1'], locality: 'Berlin' }, '/value/postal_code', 'address_part_required');
    refused('BR', { street_lines: ['Praça dos Três Poderes'], locality: 'Brasília', postal_code: '70150-900' }, '/value/region', 'address_part_required');
    refused('HK', { street_lines: ['Tamar Street 2'] }, '/value/region', 'address_part_required');
    refused('GB', { locality: 'London', postal_code: 'SW1A 2AA' }, '/value/street_lines', 'address_part_required');
    refused('AQ', { street_lines: ['McMurdo Station'] }, '/value/locality', 'address_part_required'); // default rules
  });

  it('needs a country: the field\'s, else the account default, else 400 country_required', () => {
    const value = { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' };
    const outcome = check(value, undefined, 'DE');
    assert.ok(outcome.ok);
    assert.equal(outcome.checked.country, 'DE');
    assert.throws(() => check(value), (e: unknown) => e instanceof AppError && e.code === 'country_required');
    assert.throws(() => check(value, 'UK'), (e: unknown) => e instanceof AppError && e.code === 'invalid_country');
  });

  it('formats the address as the country\'s post prints it', () => {
    const checked = valid('US', { street_lines: ['1600 Pennsylvania Avenue NW'], locality: 'Washington', region: 'DC', postal_code: '20500' });
    assert.equal(checked.details.formatted, '1600 Pennsylvania Avenue NW\nWASHINGTON DC 20500\nUNITED STATES OF AMERICA');
    const de = valid('DE', { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' });
    assert.equal(de.details.formatted, 'Platz der Republik 1\n11011 Berlin\nGERMANY');
  });
});

describe('address rules data', () => {
  const data = JSON.parse(readFileSync(join(projectRoot, 'data', 'address-rules.json'), 'utf8')) as Record<string, { zipex?: string }>;
  const own = Object.keys(data).filter((k) => !k.startsWith('_'));

  it('has rules of its own for at least the 60 most populous countries, and a rule for every ISO country', () => {
    const top60 = 'IN CN US ID PK NG BR BD RU ET MX JP EG PH CD VN IR TR DE TH GB TZ FR ZA IT KE MM CO KR UG SD ES DZ IQ AR AF YE CA PL MA AO UA UZ MY MZ GH PE SA MG CI NP CM VE NE AU KP SY ML BF TW'.split(' ');
    assert.equal(top60.length, 60);
    for (const code of top60) assert.ok(own.includes(code), `${code} has no rules of its own`);
    for (const code of own) assert.ok(isCountryCode(code), `${code} is not an ISO 3166-1 code`);
    assert.ok(Object.keys(addressCountryRules()).length >= 249);
  });

  it('lists only example postal codes that its own patterns accept, and required parts its layouts show', () => {
    for (const code of own) {
      const { rule, regex } = addressRuleFor(code);
      for (const example of data[code]?.zipex?.split(',') ?? []) assert.ok(!regex || regex.test(example), `${code} ${example} !~ ${regex}`);
      const shown = new Set([...rule.layout.flat(), ...(rule.latin_layout ?? []).flat()]);
      for (const part of rule.required) assert.ok(shown.has(part), `${code} requires ${part} but its layout has no place for it`);
    }
  });
});
