// Countries by name, never by code: the codes the field catalogue knows (GET /field-types), named
// in the person's own language (Intl.DisplayNames), sorted as they read.
import { useMemo } from 'preact/hooks';
import type { Schemas } from '../../../client/src/api.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';

export interface Country {
  code: string;
  name: string;
}

let names: Intl.DisplayNames | undefined;
/** "GB" → "United Kingdom" (in the browser's language); the code itself only if nothing knows it. */
export function countryName(code: string | null | undefined, fallback?: string): string {
  if (!code) return '';
  try {
    names ??= new Intl.DisplayNames(navigator.languages, { type: 'region', fallback: 'none' });
    return names.of(code.toUpperCase()) ?? fallback ?? code;
  } catch {
    return fallback ?? code;
  }
}

/** The catalogue's field types (public, the same for everyone). */
export function useFieldTypes() {
  return useResource<ListPage<Schemas['FieldType']>>('/field-types');
}

export function countriesOf(types: Schemas['FieldType'][]): Country[] {
  const english = new Map<string, string>();
  for (const type of types) for (const [code, rule] of Object.entries(type.countries ?? {})) english.set(code, rule.name);
  const collator = new Intl.Collator(navigator.languages);
  return [...english].map(([code, name]) => ({ code, name: countryName(code, name) })).sort((a, b) => collator.compare(a.name, b.name));
}

/** Every country the catalogue has rules for; empty until it has loaded. */
export function useCountries(): { countries: Country[]; loaded: boolean } {
  const types = useFieldTypes();
  const countries = useMemo(() => countriesOf(types.data?.data ?? []), [types.data]);
  return { countries, loaded: types.data !== undefined };
}
