import { foldForSearch } from '../../platform/text.js';
import type { CardField } from '../profiles/card.js';

/**
 * Finding and ordering a subscriber's contacts (GET /contacts?q=&sort=): pure functions over
 * what the subscriber can see of each, so a contact is never found by a detail its card does not
 * show them. Decision 270 says why this runs in the service and not in SQL.
 */
export type ContactSort = 'created' | 'given_name' | 'family_name' | 'recently_changed';

/** What one contact offers to a search and a sort: only what its subscriber sees. */
export interface Findable {
  id: string;
  owner: { username: string; display_name: string | null };
  labels: readonly string[];
  /** The card's fields when the subscriber sees the card, else none. */
  fields: readonly CardField[];
  /** When the card the subscriber sees last changed (epoch ms), or null without one. */
  changedAt: number | null;
}

/** Every string inside a value (an address's lines, an organisation's unit). */
function strings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
}

/** The folded text a query is looked for in: names, username, labels, and each shown field's value, label and formatted forms. */
export function searchTextOf(contact: Findable): string {
  const parts: string[] = [contact.owner.username, contact.owner.display_name ?? '', ...contact.labels];
  for (const field of contact.fields) {
    if (field.label) parts.push(field.label);
    strings(field.value, parts);
    // The forms the card shows a value in (a phone's national and international forms).
    for (const key of ['formatted', 'international', 'national']) if (typeof field.details[key] === 'string') parts.push(field.details[key] as string);
    // A phone number found by its digits however it is typed ("212 555" or "212-555").
    if (field.type === 'phone' && typeof field.value === 'string') parts.push(field.value.replace(/\D/g, ''));
  }
  return foldForSearch(parts.join('\n'));
}

/** The query's words, folded: every one must appear in a contact's text. */
export function queryWords(q: string): string[] {
  return foldForSearch(q).split(/\s+/u).filter(Boolean);
}

/** Whether every word of the query appears in the text (words typed with digits also match digits alone). */
export function matches(text: string, words: readonly string[]): boolean {
  return words.every((word) => text.includes(word) || (/\d/.test(word) && text.includes(word.replace(/\D/g, ''))));
}

const KEY_LENGTH = 200;
/** Larger than any epoch millisecond count: `recently_changed` sorts by (MAX − changed). */
const LATEST = 9_000_000_000_000_000;

/**
 * The sort key of a contact, a string compared by code unit. By a name: the card's given or
 * family name when it shows a name field, else the display name whole (never a guessed split,
 * as for vCard N), else the username; folded, so "Zoë" sorts beside "Zoe". By change: newest
 * first, contacts without a card last.
 */
export function sortKeyOf(contact: Findable, sort: ContactSort): string {
  if (sort === 'recently_changed') return contact.changedAt === null ? '~' : String(LATEST - contact.changedAt).padStart(16, '0');
  const name = contact.fields.find((field) => field.type === 'name')?.value as { given?: string; family?: string } | undefined;
  const whole = contact.owner.display_name || contact.owner.username;
  const first = sort === 'given_name' ? (name?.given || name?.family) : (name?.family || name?.given);
  return foldForSearch(`${first || whole}\u0001${whole}`).slice(0, KEY_LENGTH);
}
