/**
 * An approximate place as the API shows it: the city when the IP database knows one, and the
 * ISO 3166-1 alpha-2 country, which clients name in the reader's language (Intl.DisplayNames).
 */
export interface Place {
  city: string | null;
  country: string;
}

const COUNTRY = /^[A-Z]{2}$/;

/** The text form stored with sessions, join attempts and the security log: "Berlin, DE", or "DE". */
export function formatPlace(place: Place): string {
  return place.city ? `${place.city}, ${place.country}` : place.country;
}

/** The place a stored text form names (formatPlace's inverse); null for none or for text it did not write. */
export function placeOf(location: string | null): Place | null {
  if (!location) return null;
  const comma = location.lastIndexOf(', ');
  const country = comma < 0 ? location : location.slice(comma + 2);
  if (!COUNTRY.test(country)) return null;
  return { city: comma < 0 ? null : location.slice(0, comma) || null, country };
}
