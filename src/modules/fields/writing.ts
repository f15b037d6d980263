import type { AuthContext } from '../../platform/caller.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import type { TxHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import type { CheckedValue } from './catalog.js';
import type { FieldJudge } from './judging.js';
import type { FieldLimits } from './limits.js';
import type { FieldQueries, FieldRecord } from './queries.js';
import { notFound, unknownType, view } from './views.js';
import type { FieldDeps, FieldInput, FieldPatch, FieldView } from './views.js';

/** Writing the caller's fields: create, PATCH with If-Match, delete; each tells the account's devices and the `changed` hook. */
export function createFieldWrites(deps: Pick<FieldDeps, 'db' | 'clock' | 'catalog'>, limits: FieldLimits, judging: FieldJudge, changed: TxHook<{ accountId: string }>) {
  const { db, clock, catalog } = deps;
  const { cleanLabel, judge, withPhoto } = judging;

  /** A stale version and a missing field are told apart only after the compare-and-swap failed. */
  async function refusal(fields: FieldQueries, accountId: string, id: string) {
    return (await fields.find(accountId, id)) ? refuse('version_mismatch', 'the field changed since you read it; fetch it again') : notFound();
  }

  return {
    async create(auth: AuthContext, input: FieldInput): Promise<FieldView> {
      const def = catalog.definition(input.type);
      if (!def) throw unknownType(input.type);
      const errors: FieldError[] = [];
      const checked = judge(def, auth, input.value, input.country, errors);
      const label = cleanLabel(input.label, errors);
      if (errors.length || !checked) throw validationFailed(errors);
      const now = clock.now();
      const accountId = auth.account.id;
      const row: FieldRecord = {
        id: newId('fld'),
        account_id: accountId,
        type: def.key,
        label: label ?? null,
        country: checked.country,
        value: JSON.stringify(checked.value),
        input: checked.original === null ? null : JSON.stringify(checked.original),
        details: JSON.stringify(checked.details),
        version: 1,
        created_at: now,
        updated_at: now,
      };
      await db.transaction(async (q, tx) => {
        // The signal goes first: it takes the account row's lock, so concurrent creates of one
        // account queue here and the count and single-value checks below cannot race.
        await signal(tx, accountId, 'fields.changed');
        row.details = JSON.stringify((await withPhoto(tx, accountId, def.key, checked)).details);
        if ((await q.fields.count(accountId)) >= limits.maxFieldsPerAccount) {
          throw refuse('field_limit_reached', `an account holds at most ${limits.maxFieldsPerAccount} fields; delete one first`);
        }
        const existing = def.multiple ? undefined : await q.fields.findOfType(accountId, def.key);
        if (existing) throw refuse('single_field_exists', `an account has one ${def.key} field (${existing.id}); update it instead`);
        await q.fields.insert(row);
      });
      return view(row);
    },

    /** PATCH with If-Match: label, value and country; a new value or country is judged again. */
    async update(auth: AuthContext, id: string, expectedVersion: number, patch: FieldPatch): Promise<FieldView> {
      const accountId = auth.account.id;
      const current = await db.direct.fields.find(accountId, id);
      if (!current) throw notFound();
      const def = catalog.definition(current.type);
      if (!def) throw refuse('field_type_retired', `type ${current.type} is no longer in the catalog`);
      const errors: FieldError[] = [];
      const label = cleanLabel(patch.label, errors);
      let checked: CheckedValue | undefined;
      if (patch.value !== undefined || patch.country !== undefined) {
        // A new country re-reads what was typed (a national phone number means something else elsewhere).
        const value = patch.value !== undefined ? patch.value : JSON.parse(current.input ?? current.value);
        const country = patch.country !== undefined ? patch.country : current.country;
        checked = judge(def, auth, value, country, errors);
      }
      if (errors.length) throw validationFailed(errors);
      const now = clock.now();
      const updated = await db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'fields.changed');
        if (checked) checked = await withPhoto(tx, accountId, def.key, checked);
        const row = await q.fields.update(accountId, id, expectedVersion, {
          ...(label !== undefined ? { label } : {}),
          ...(checked
            ? {
                country: checked.country,
                value: JSON.stringify(checked.value),
                input: checked.original === null ? null : JSON.stringify(checked.original),
                details: JSON.stringify(checked.details),
              }
            : {}),
          updated_at: now,
        });
        if (!row) throw await refusal(q.fields, accountId, id);
        await changed.run(tx, { accountId });
        return row;
      });
      return view(updated);
    },

    async remove(auth: AuthContext, id: string, expectedVersion: number): Promise<void> {
      const accountId = auth.account.id;
      await db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'fields.changed');
        if (!(await q.fields.remove(accountId, id, expectedVersion))) throw await refusal(q.fields, accountId, id);
        await changed.run(tx, { accountId });
      });
    },
  };
}
