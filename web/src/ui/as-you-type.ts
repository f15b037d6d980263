// The phone formatter alone (AsYouType from libphonenumber-js's core with the "min" metadata), so
// the chunk loaded for the phone box holds only what formatting needs.
import { AsYouType as Core } from 'libphonenumber-js/core';
import type { CountryCode } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/min/metadata';

export class AsYouType extends Core {
  constructor(country?: CountryCode) {
    super(country, metadata);
  }
}
