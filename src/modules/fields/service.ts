import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { FieldQueries, FieldRecord, fieldQueries } from './queries.js';
import type { CheckedValue, FieldCatalog } from './catalog.js';
import { FIELD_LIMITS } from './limits.js';
import type { FieldLimits } from './limits.js';
import { cleanText } from '../../platform/text.js';
import type { FieldDetails, FieldTypeDefinition } from './types.js';
import { photoType } from './photo.js';
import type { PhotoService } from '../photos/service.js';

export interface FieldView {
  id: string;
  type: string;
  label: string | null;
  country: string | null;
  value: unknown;
  original: unknown | null;
  details: FieldDetails;
  version: number;
  schema_version: 1;
  created_at: string;
  updated_at: string;
}

export interface FieldInput {
  type: string;
  label?: string | null;
  value: unknown;
  country?: string | null;
}

export interface FieldPatch {
  label?: string | null;
  value?: unknown;
  country?: string | null;
}

function view(row: FieldRecord): FieldView {
  return {
    id: row.id,
    type: row.type,
    label: row.label,
    country: row.country,
    value: JSON.parse(row.value),
    original: row.input === null ? null : JSON.parse(row.input),
    details: JSON.parse(row.details),
    version: row.version,
    schema_version: 1,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

function unknownType(type: string) {
  const message = `"${type}" is not a field type; GET /field-types lists them`;
  return refuse('unknown_field_type', { detail: message, errors: [{ path: '/type', code: 'unknown_field_type', message }] });
}

const notFound = () => refuse('field_not_found', 'you have no field with this id');

/** Identity fields of the caller (PRODUCT §2): values judged by the catalog, stored normalised. */
export function createFieldService(deps: {
  db: RepositoryOf<{ fields: typeof fieldQueries }>;
  clock: Clock;
  catalog: FieldCatalog;
  limits?: FieldLimits;
  /** A photo field may show only a photo of its account's; the photo gives its details. */
  photos: Pick<PhotoService, 'detailsOf' | 'onRemoved'>;
}) {
  const { db, clock, catalog } = deps;
  const limits = deps.limits ?? FIELD_LIMITS;
  /** A field changed or went, in the transaction of the change (profiles re-render their cards). */
  const changed = txHook<{ accountId: string }>();

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

  // A deleted photo takes the fields showing it along, in its transaction; the cards re-render.
  deps.photos.onRemoved(async (tx, { accountId, photoId }) => {
    if ((await db.in(tx).fields.removeHolding(accountId, photoType.key, JSON.stringify({ photo_id: photoId }))) === 0) return;
    await signal(tx, accountId, 'fields.changed');
    await changed.run(tx, { accountId });
  });

  /** A stale version and a missing field are told apart only after the compare-and-swap failed. */
  async function refusal(fields: FieldQueries, accountId: string, id: string) {
    return (await fields.find(accountId, id)) ? refuse('version_mismatch', 'the field changed since you read it; fetch it again') : notFound();
  }

  return {
    onChange: changed.subscribe,
    /** Whether the account holds this field, in the caller's transaction (a profile exposing it). */
    owns: async (tx: Tx, accountId: string, id: string): Promise<boolean> => Boolean(await db.in(tx).fields.find(accountId, id)),

    /** Every field, a page at a time (the account export). */
    async *exportPages(accountId: string): AsyncIterable<FieldView[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.fields.list(accountId, after, limit), (row) => row)) yield rows.map(view);
    },
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).fields.removeAll(accountId);
    },

    async list(auth: AuthContext, cursor: string | undefined, limit: number, type?: string): Promise<Page<FieldView>> {
      if (type !== undefined && !catalog.definition(type)) throw unknownType(type);
      return page((after, size) => db.direct.fields.list(auth.account.id, after, size, type), cursor, limit, view);
    },

    async get(auth: AuthContext, id: string): Promise<FieldView> {
      const row = await db.direct.fields.find(auth.account.id, id);
      if (!row) throw notFound();
      return view(row);
    },

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

export type FieldService = ReturnType<typeof createFieldService>;
