import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import { listPosition, pageOfList } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { Tx } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import { exposureView, PROFILE_LIMITS } from './views.js';
import type { ExposureView, ProfileRepository, ProfileViews } from './views.js';

/** An exposures page ends at (position, field id). */
const EXPOSURE_CURSOR = listPosition(['number', 'string']);

/** Exposures: which of the owner's fields a profile shows, under which label, in which order. */
export function createExposureService(deps: {
  db: ProfileRepository;
  clock: Clock;
  views: ProfileViews;
  refreshCards: (tx: Tx, accountId: string) => Promise<string[]>;
  /** Whether the account holds a field, in the caller's transaction (the fields service). */
  ownsField: (tx: Tx, accountId: string, fieldId: string) => Promise<boolean>;
}) {
  const { db, clock, refreshCards } = deps;
  const { get, mustFind } = deps.views;
  return {
    /** A page of the fields a profile shows, in the profile's order (position, then field id). */
    async exposures(auth: AuthContext, profileId: string, cursor: string | undefined, limit: number): Promise<Page<ExposureView>> {
      await get(auth, profileId);
      const all = (await db.direct.exposures.list(profileId)).map(exposureView);
      return pageOfList(all, cursor, limit, (exposure) => [exposure.position, exposure.field_id], EXPOSURE_CURSOR);
    },

    /**
     * PUT an exposure: puts the field into the profile (at `position`, default last) or changes
     * its label and place. Positions are 0…n-1 in the profile's order.
     */
    async putExposure(auth: AuthContext, profileId: string, fieldId: string, input: { label?: string | null; position?: number }): Promise<{ created: boolean; exposure: ExposureView }> {
      const accountId = auth.account.id;
      let label: string | null | undefined;
      if (input.label !== undefined) {
        const cleaned = input.label === null ? undefined : cleanText(input.label, { path: '/label', max: PROFILE_LIMITS.labelLength });
        if (cleaned && !cleaned.ok) throw validationFailed([cleaned.error]);
        label = cleaned?.text || null;
      }
      return db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'profiles.changed');
        await mustFind(tx, accountId, profileId);
        // Another account's field answers like an unknown one (PRODUCT: 404, never 403).
        if (!(await deps.ownsField(tx, accountId, fieldId))) throw refuse('field_not_found', 'you have no field with this id');
        const current = await q.exposures.list(profileId);
        const at = current.findIndex((e) => e.field_id === fieldId);
        const created = at < 0;
        const last = created ? current.length : current.length - 1;
        const position = input.position ?? (created ? current.length : at);
        if (position > last) {
          throw refuse('validation_failed', { detail: `position must be between 0 and ${last}`, errors: [{ path: '/position', code: 'position_out_of_range', message: `between 0 and ${last}` }] });
        }
        const order = current.map((e) => e.field_id).filter((id) => id !== fieldId);
        order.splice(position, 0, fieldId);
        if (created) {
          await q.exposures.insert({ profile_id: profileId, field_id: fieldId, account_id: accountId, label: label ?? null, position, created_at: clock.now() });
        } else if (label !== undefined) {
          await q.exposures.setLabel(profileId, fieldId, label);
        }
        await q.exposures.reorder(profileId, order);
        await q.profiles.touch(accountId, profileId, clock.now());
        await refreshCards(tx, accountId);
        const row = (await q.exposures.list(profileId)).find((e) => e.field_id === fieldId)!;
        return { created, exposure: exposureView(row, position) };
      });
    },

    async removeExposure(auth: AuthContext, profileId: string, fieldId: string): Promise<void> {
      const accountId = auth.account.id;
      await db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'profiles.changed');
        await mustFind(tx, accountId, profileId);
        if (!(await q.exposures.remove(profileId, fieldId))) throw refuse('exposure_not_found', 'this profile does not show this field');
        await q.exposures.reorder(profileId, (await q.exposures.list(profileId)).map((e) => e.field_id));
        await q.profiles.touch(accountId, profileId, clock.now());
        await refreshCards(tx, accountId);
      });
    },
  };
}
