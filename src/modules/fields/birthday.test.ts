// Birthdays: full or month-day (RFC 6350 §6.2.5 BDAY, ISO 8601 truncated dates).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFieldCatalog } from './catalog.js';

const catalog = createFieldCatalog();
const NOW = Date.UTC(2025, 2, 10, 12); // 10 March 2025, noon UTC
const check = (value: unknown) => catalog.check(catalog.definition('birthday')!, value, undefined, undefined, NOW);
const code = (value: unknown) => {
  const outcome = check(value);
  return outcome.ok ? 'ok' : outcome.errors[0]?.code;
};

describe('birthdays', () => {
  it('takes full dates and month-day, formatted as ISO 8601', () => {
    const ada = check({ year: 1990, month: 12, day: 10 });
    assert.ok(ada.ok);
    assert.equal(ada.checked.details.formatted, '1990-12-10');
    const monthDay = check({ month: 2, day: 29 });
    assert.ok(monthDay.ok);
    assert.deepEqual(monthDay.checked.value, { month: 2, day: 29 });
    assert.equal(monthDay.checked.details.formatted, '--02-29');
  });

  it('knows the calendar: leap years and month lengths', () => {
    assert.equal(code({ year: 2000, month: 2, day: 29 }), 'ok'); // divisible by 400
    assert.equal(code({ year: 1900, month: 2, day: 29 }), 'birthday_invalid_date'); // divisible by 100, not 400
    assert.equal(code({ year: 2023, month: 2, day: 29 }), 'birthday_invalid_date');
    assert.equal(code({ year: 2024, month: 2, day: 29 }), 'ok');
    assert.equal(code({ month: 4, day: 31 }), 'birthday_invalid_date');
    assert.equal(code({ month: 2, day: 30 }), 'birthday_invalid_date');
    assert.equal(code({ month: 13, day: 1 }), 'maximum');
    assert.equal(code({ year: 1990, day: 1 }), 'required');
  });

  it('is never in the future, allowing for the earliest time zone (UTC+14)', () => {
    assert.equal(code({ year: 2025, month: 3, day: 10 }), 'ok');
    assert.equal(code({ year: 2025, month: 3, day: 11 }), 'ok'); // already 11 March in Kiribati
    assert.equal(code({ year: 2025, month: 3, day: 12 }), 'birthday_in_future');
    assert.equal(code({ year: 2026, month: 1, day: 1 }), 'birthday_in_future');
    assert.equal(code({ year: 1894, month: 1, day: 1 }), 'birthday_too_old');
    assert.equal(code({ year: 1815, month: 12, day: 10 }), 'birthday_too_old'); // Ada Lovelace
  });
});
