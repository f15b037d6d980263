import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

/**
 * ICU (and so Node's Intl) still answers some zones by names the IANA tz database has since
 * renamed; CLDR's timezone.xml records the current IANA name in its `iana` attribute. We store
 * and offer the current IANA names.
 */
const ICU_TO_IANA: Record<string, string> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Godthab': 'America/Nuuk',
  'America/Coral_Harbour': 'America/Atikokan',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

const ianaName = (icu: string) => ICU_TO_IANA[icu] ?? icu;

/** The zones the Node runtime ships (ICU's copy of the IANA tz database), by current IANA name, plus UTC. */
export function timeZoneNames(): string[] {
  return [...new Set([...Intl.supportedValuesOf('timeZone').map(ianaName), 'UTC'])].sort();
}

/** The current IANA name of a zone Node knows, whatever alias or case it was typed in; else undefined. */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(name)) return undefined;
  try {
    return ianaName(new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone);
  } catch {
    return undefined;
  }
}

export const timeZoneType: FieldTypeDefinition = {
  key: 'time_zone',
  label: 'Time zone',
  description:
    'An IANA time zone name (tz database, as shipped with the server\'s Node.js). Aliases and any letter case are accepted ' +
    '(US/Pacific, asia/calcutta) and stored as the current IANA name (America/Los_Angeles, Asia/Kolkata); `values` lists them.',
  multiple: false,
  country: 'none',
  suggestedLabels: [],
  valueSchema: { type: 'string', minLength: 1, maxLength: 64, examples: ['Europe/Berlin', 'America/Sao_Paulo'] },
  values: timeZoneNames,
  validate(value) {
    const zone = canonicalTimeZone((value as string).trim());
    return zone ? { ok: true, value: zone } : invalid('/value', 'time_zone_unknown', 'not an IANA time zone name, e.g. Europe/Berlin');
  },
};
