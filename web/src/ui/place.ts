// Devices and places as people say them: "Chrome on iPhone · Berlin, Germany".
import { countryName } from './countries.js';

export interface Place {
  city: string | null;
  country: string;
}

/** "Berlin, Germany", "Germany", or nothing when the place is not known. */
export function placeText(place: Place | null | undefined): string {
  if (!place) return '';
  const country = countryName(place.country);
  return place.city ? `${place.city}, ${country}` : country;
}

/** "Berlin, DE" (the older text form) as "Berlin, Germany"; the country never as a code. */
export function locationText(location: string | null | undefined): string {
  const match = location ? /^(?:(.*), )?([A-Z]{2})$/.exec(location) : null;
  if (!match) return location ?? '';
  return placeText({ city: match[1] ?? null, country: match[2]! });
}
