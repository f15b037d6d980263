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
