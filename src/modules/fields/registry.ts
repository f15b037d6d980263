import { birthdayType } from './birthday.js';
import { emailType } from './email.js';
import { languageType } from './language.js';
import { nameType, organizationType } from './name.js';
import { phoneType } from './phone.js';
import { photoType } from './photo.js';
import { jobTitleType, nicknameType, noteType, pronounsType } from './plain-text.js';
import { postalAddressType } from './postal-address.js';
import { socialType } from './social.js';
import { timeZoneType } from './time-zone.js';
import type { FieldTypeDefinition } from './types.js';
import { urlType } from './url.js';

/** Every field type, in the order the catalog lists them (PRODUCT §2). */
export const FIELD_TYPES: readonly FieldTypeDefinition[] = [
  nameType,
  nicknameType,
  phoneType,
  emailType,
  postalAddressType,
  birthdayType,
  urlType,
  socialType,
  organizationType,
  jobTitleType,
  pronounsType,
  languageType,
  timeZoneType,
  noteType,
  photoType,
];
