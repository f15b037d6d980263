import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { FieldRecord, Store, StoreQueries } from '../../platform/store/store.js';
import { decodeCursor, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { AuthContext } from '../sessions/service.js';
import type { CheckedValue, FieldCatalog } from './catalog.js';
import { FIELD_LIMITS } from './limits.js';
import type { FieldLimits } from './limits.js';
import { cleanText } from './text.js';
import type { FieldDetails, FieldTypeDefinition } from './types.js';

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

const validationFailed = (errors: FieldError[]) =>
  new AppError(400, 'validation_failed', 'Validation failed', { detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors });

function unknownType(type: string): AppError {
  const message = `"${type}" is not a field type; GET /field-types lists them`;
  return new AppError(400, 'unknown_field_type', 'Unknown field type', { detail: message, errors: [{ path: '/type', code: 'unknown_field_type', message }] });
}

const notFound = () => new AppError(404, 'field_not_found', 'Field not found', { detail: 'you have no field with this id' });

/** Identity fields of the caller (PRODUCT §2): values judged by the catalog, stored normalised. */
export function createFieldService(deps: { store: Store; clock: Clock; catalog: FieldCatalog; limits?: FieldLimits }) {
  const { store, clock, catalog } = deps;
  const limits = deps.limits ?? FIELD_LIMITS;

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

  /** A stale version and a missing field are told apart only after the compare-and-swap failed. */
  async function refusal(tx: StoreQueries, accountId: string, id: string): Promise<AppError> {
    return (await tx.fields.find(accountId, id))
      ? new AppError(412, 'version_mismatch', 'Version mismatch', { detail: 'the field changed since you read it; fetch it again' })
      : notFound();
  }

  return {
    async list(auth: AuthContext, cursor: string | undefined, limit: number, type?: string): Promise<Page<FieldView>> {
      if (type !== undefined && !catalog.definition(type)) throw unknownType(type);
      const rows = await store.fields.list(auth.account.id, decodeCursor(cursor), limit + 1, type);
      return toPage(rows, limit, view);
    },

    async get(auth: AuthContext, id: string): Promise<FieldView> {
      const row = await store.fields.find(auth.account.id, id);
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
      await store.transaction(async (tx) => {
        // The signal goes first: it takes the account row's lock, so concurrent creates of one
        // account queue here and the count and single-value checks below cannot race.
        await tx.events.append(accountId, 'fields.changed', '/me/fields', now);
        if ((await tx.fields.count(accountId)) >= limits.maxFieldsPerAccount) {
          throw new AppError(409, 'field_limit_reached', 'Field limit reached', { detail: `an account holds at most ${limits.maxFieldsPerAccount} fields; delete one first` });
        }
        const existing = def.multiple ? undefined : await tx.fields.findOfType(accountId, def.key);
        if (existing) {
          throw new AppError(409, 'single_field_exists', 'Field type allows one field', { detail: `an account has one ${def.key} field (${existing.id}); update it instead` });
        }
        await tx.fields.insert(row);
      });
      return view(row);
    },

    /** PATCH with If-Match: label, value and country; a new value or country is judged again. */
    async update(auth: AuthContext, id: string, expectedVersion: number, patch: FieldPatch): Promise<FieldView> {
      const accountId = auth.account.id;
      const current = await store.fields.find(accountId, id);
      if (!current) throw notFound();
      const def = catalog.definition(current.type);
      if (!def) throw new AppError(500, 'field_type_retired', 'Field type retired', { detail: `type ${current.type} is no longer in the catalog` });
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
      const updated = await store.transaction(async (tx) => {
        await tx.events.append(accountId, 'fields.changed', '/me/fields', now);
        const row = await tx.fields.update(accountId, id, expectedVersion, {
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
        if (!row) throw await refusal(tx, accountId, id);
        return row;
      });
      return view(updated);
    },

    async remove(auth: AuthContext, id: string, expectedVersion: number): Promise<void> {
      const accountId = auth.account.id;
      await store.transaction(async (tx) => {
        await tx.events.append(accountId, 'fields.changed', '/me/fields', clock.now());
        if (!(await tx.fields.remove(accountId, id, expectedVersion))) throw await refusal(tx, accountId, id);
      });
    },
  };
}

export type FieldService = ReturnType<typeof createFieldService>;
