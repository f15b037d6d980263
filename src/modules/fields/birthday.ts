import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

/** Nobody alive was born longer ago than this (the oldest verified human lived to 122). */
const MAX_AGE_YEARS = 130;
/** The earliest time zone (UTC+14, Line Islands) is this far ahead: "today" somewhere. */
const EARLIEST_ZONE_MS = 14 * 3600_000;

function daysInMonth(month: number, year: number | undefined): number {
  // Without a year, 29 February is a real birthday (RFC 6350 §4.3.1 allows "--0229").
  if (month === 2) return year === undefined || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * A birthday, full (year, month, day) or month and day only, as vCard BDAY allows (RFC 6350
 * §6.2.5; ISO 8601 reduced/truncated dates). Never in the future, never impossible.
 */
export const birthdayType: FieldTypeDefinition = {
  key: 'birthday',
  label: 'Birthday',
  description: 'Year, month and day, or month and day only. Not in the future, not more than 130 years ago. details.formatted is ISO 8601 (1990-05-17 or --05-17).',
  multiple: false,
  country: 'none',
  suggestedLabels: [],
  valueSchema: {
    type: 'object',
    properties: {
      year: { type: 'integer', minimum: 1, maximum: 9999 },
      month: { type: 'integer', minimum: 1, maximum: 12 },
      day: { type: 'integer', minimum: 1, maximum: 31 },
    },
    required: ['month', 'day'],
    additionalProperties: false,
    examples: [{ year: 1990, month: 5, day: 17 }, { month: 2, day: 29 }],
  },
  validate(value, ctx) {
    const { year, month, day } = value as { year?: number; month: number; day: number };
    if (day > daysInMonth(month, year)) {
      return invalid('/value/day', 'birthday_invalid_date', year === undefined ? `month ${month} has no day ${day}` : `${year}-${pad(month, 2)} has no day ${day}`);
    }
    if (year !== undefined) {
      const today = new Date(ctx.now + EARLIEST_ZONE_MS);
      const born = Date.UTC(year, month - 1, day);
      const latest = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
      if (born > latest) return invalid('/value', 'birthday_in_future', 'a birthday cannot be in the future');
      if (year < today.getUTCFullYear() - MAX_AGE_YEARS) return invalid('/value/year', 'birthday_too_old', `at most ${MAX_AGE_YEARS} years ago`);
    }
    const out = year === undefined ? { month, day } : { year, month, day };
    const formatted = `${year === undefined ? '-' : pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
    return { ok: true, value: out, details: { formatted } };
  },
};
