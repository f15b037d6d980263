import type { AuthContext } from '../../platform/caller.js';
import { validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import type { Tx } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import type { CheckedValue } from './catalog.js';
import type { FieldLimits } from './limits.js';
import { photoType } from './photo.js';
import type { FieldTypeDefinition } from './types.js';
import type { FieldDeps } from './views.js';

/** Judging what a write brings: its label, its value by the catalog, and the photo a photo field names. */
export function createFieldJudge(deps: Pick<FieldDeps, 'clock' | 'catalog' | 'photos'>, limits: FieldLimits) {
  const { clock, catalog } = deps;

  function cleanLabel(label: string | null | undefined, errors: FieldError[]): string | null | undefined {
    if (label === undefined || label === null) return label;
    const result = cleanText(label, { path: '/label', max: limits.maxLabelLength });
    if (!result.ok) errors.push(result.error);
    return result.ok && result.text ? result.text : null;
  }

  function judge(def: FieldTypeDefinition, auth: AuthContext, value: unknown, country: string | null | undefined, errors: FieldError[]): CheckedValue | undefined {
    const outcome = catalog.check(def, value, country, auth.account.default_country, clock.now());
    if (!outcome.ok) errors.push(...outcome.errors);
    return outcome.ok ? outcome.checked : undefined;
  }

  /**
   * A photo field's value names a photo of the account's (else 400, as any invalid value): its
   * details are the photo's, read in the write's transaction so a photo deleted meanwhile is not named.
   */
  async function withPhoto(tx: Tx, accountId: string, type: string, checked: CheckedValue): Promise<CheckedValue> {
    if (type !== photoType.key) return checked;
    const { photo_id: photoId } = checked.value as { photo_id: string };
    const details = await deps.photos.detailsOf(tx, accountId, photoId);
    if (!details) throw validationFailed([{ path: '/value/photo_id', code: 'photo_not_found', message: 'you have no photo with this id (POST /me/photos)' }]);
    return { ...checked, details: { ...checked.details, ...details } };
  }

  return { cleanLabel, judge, withPhoto };
}

export type FieldJudge = ReturnType<typeof createFieldJudge>;
