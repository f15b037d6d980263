// How a field's value reads to a person: the catalog's formatted form where it has one; what a
// kind of field is called in a sentence. Small on purpose: cards, Fields and Profiles all read it,
// while the boxes of the field form (ui/value-parts.ts, ui/field-form.tsx) load with Fields only.
import type { Schemas } from '../../client/src/api.js';

/** Your fields (GET /me/fields), read by Fields and by Profiles. */
export const FIELDS_KEY = '/me/fields?limit=200';

/** A type's name in a sentence ("a phone number"). */
export const TYPE_NOUNS: Record<string, string> = {
  name: 'name', nickname: 'nickname', phone: 'phone number', email: 'e-mail address', postal_address: 'address',
  birthday: 'birthday', url: 'link', social: 'social profile', organization: 'organization', job_title: 'job title',
  pronouns: 'pronouns', language: 'language', time_zone: 'time zone', note: 'note', photo: 'photo',
};

/** A photo field's 64 px square, carried by the field and the card (no request needed). */
export function thumbnailOf(f: Pick<Schemas['Field'], 'type' | 'details'>): string | undefined {
  const thumbnail = (f.details as { thumbnail?: string } | undefined)?.thumbnail;
  return f.type === 'photo' && typeof thumbnail === 'string' && thumbnail.startsWith('data:image/jpeg;base64,') ? thumbnail : undefined;
}

type Shown = Pick<Schemas['Field'], 'type' | 'value' | 'details'>;

/** A birthday as people write dates where they are ("March 17, 1990", "17 March"), not ISO 8601. */
function birthdayWords(value: unknown): string | undefined {
  const { year, month, day } = (value ?? {}) as { year?: number; month?: number; day?: number };
  if (typeof month !== 'number' || typeof day !== 'number') return undefined;
  const format = new Intl.DateTimeFormat(undefined, { month: 'long', day: 'numeric', ...(typeof year === 'number' ? { year: 'numeric' } : {}), timeZone: 'UTC' });
  return format.format(Date.UTC(year ?? 2000, month - 1, day));
}

export function display(f: Shown): string {
  const d = (f.details ?? {}) as Record<string, unknown>;
  if (f.type === 'photo') return 'Photo';
  if (f.type === 'birthday') {
    const words = birthdayWords(f.value);
    if (words) return words;
  }
  if (typeof d.formatted === 'string') return d.formatted;
  if (typeof d.international === 'string') return d.international;
  if (typeof f.value === 'string') return f.value;
  if (f.type === 'social' && f.value && typeof f.value === 'object') return `@${String((f.value as { handle?: string }).handle ?? '')}`;
  if (f.value && typeof f.value === 'object') return Object.values(f.value as Record<string, unknown>).flat().filter(Boolean).join(' ');
  return String(f.value);
}

/** A link a field's value can open (tel:, mailto:, the web), when there is one. */
export function hrefOf(f: Shown): string | undefined {
  const d = (f.details ?? {}) as Record<string, unknown>;
  if (f.type === 'phone' && typeof d.uri === 'string') return d.uri;
  if (f.type === 'email' && typeof f.value === 'string') return `mailto:${f.value}`;
  if (f.type === 'url' && typeof f.value === 'string' && /^https?:\/\//.test(f.value)) return f.value;
  if (f.type === 'social' && typeof d.url === 'string') return d.url;
  return undefined;
}
