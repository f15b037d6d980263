import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import type { Store } from '../../platform/store/store.js';
import { isValidCountry } from '../fields/countries.js';
import type { MeView } from './view.js';
import { meView } from './view.js';
import type { AuthContext } from '../sessions/service.js';

export interface MePatch {
  display_name?: string | null;
  locale?: string | null;
  default_country?: string | null;
}

// Control characters and bidi overrides have no place in a name shown to other people.
const UNSAFE_TEXT = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
// A name must show something: letters, digits, punctuation or symbols (not only invisible marks).
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

function canonicalLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

function validate(patch: MePatch): MePatch {
  const errors: FieldError[] = [];
  const out: MePatch = {};
  if (patch.display_name !== undefined) {
    const name = patch.display_name === null ? null : patch.display_name.normalize('NFC').trim();
    if (name !== null && (!VISIBLE.test(name) || UNSAFE_TEXT.test(name))) {
      errors.push({ path: '/display_name', code: 'invalid_display_name', message: 'a display name needs visible characters and no control characters' });
    }
    out.display_name = name;
  }
  if (patch.locale !== undefined) {
    const locale = patch.locale === null ? null : canonicalLocale(patch.locale);
    if (locale === undefined) errors.push({ path: '/locale', code: 'invalid_locale', message: 'not a BCP 47 language tag' });
    out.locale = locale ?? null;
  }
  if (patch.default_country !== undefined) {
    const country = patch.default_country === null ? null : patch.default_country.toUpperCase();
    if (country !== null && !isValidCountry(country)) {
      errors.push({ path: '/default_country', code: 'invalid_country', message: 'not an ISO 3166-1 alpha-2 country code' });
    }
    out.default_country = country;
  }
  if (errors.length) throw new AppError(400, 'validation_failed', 'Validation failed', { detail: errors.map((e) => e.message).join('; '), errors });
  return out;
}

export function createMeService(deps: { store: Store; clock: Clock }) {
  return {
    get(auth: AuthContext): MeView {
      return meView(auth.account);
    },
    /** PATCH /me with If-Match: a compare-and-swap on the account's version. */
    async update(auth: AuthContext, expectedVersion: number, patch: MePatch): Promise<MeView> {
      const changes = validate(patch);
      const updated = await deps.store.transaction(async (tx) => {
        const row = await tx.accounts.updateProfile(auth.account.id, expectedVersion, changes);
        if (row) await tx.events.append(row.id, 'me.changed', '/me', deps.clock.now());
        return row;
      });
      if (!updated) {
        throw new AppError(412, 'version_mismatch', 'Version mismatch', { detail: 'the identity changed since you read it; fetch it again' });
      }
      return meView(updated);
    },
  };
}

export type MeService = ReturnType<typeof createMeService>;
