// Time zones: IANA names from the tz database Node ships (via ICU).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFieldCatalog } from './catalog.js';
import { timeZoneNames } from './time-zone.js';

const catalog = createFieldCatalog();
const check = (value: string) => catalog.check(catalog.definition('time_zone')!, value, undefined, undefined, 0);

describe('time zones', () => {
  it('stores the current IANA name, whatever alias or letter case was typed', () => {
    const cases: [string, string][] = [
      ['Europe/Berlin', 'Europe/Berlin'],
      ['europe/berlin', 'Europe/Berlin'],
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['Asia/Calcutta', 'Asia/Kolkata'],
      ['Europe/Kiev', 'Europe/Kyiv'],
      ['US/Pacific', 'America/Los_Angeles'],
      ['UTC', 'UTC'],
      ['Etc/UTC', 'UTC'],
      ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ];
    for (const [typed, stored] of cases) {
      const outcome = check(typed);
      assert.ok(outcome.ok, typed);
      assert.equal(outcome.checked.value, stored, typed);
    }
  });

  it('refuses names that are not zones', () => {
    for (const typed of ['Mars/Olympus_Mons', 'GMT+1', '+01:00', 'Berlin', '../../etc/passwd']) {
      const outcome = check(typed);
      assert.ok(!outcome.ok, typed);
      assert.equal(outcome.errors[0]?.code, 'time_zone_unknown');
    }
  });

  it('offers the current IANA names, each of which it accepts as is', () => {
    const names = timeZoneNames();
    assert.ok(names.length > 300);
    assert.ok(names.includes('Asia/Kolkata') && names.includes('UTC') && !names.includes('Asia/Calcutta'));
    for (const name of names) {
      const outcome = check(name);
      assert.ok(outcome.ok && outcome.checked.value === name, name);
    }
  });
});
