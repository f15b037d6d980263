import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { PhotoService } from '../photos/service.js';
import type { FieldCatalog } from './catalog.js';
import type { FieldLimits } from './limits.js';
import type { FieldRecord, fieldQueries } from './queries.js';
import type { FieldDetails } from './types.js';

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

/** What the field service is built from (module.ts passes it whole). */
export interface FieldDeps {
  db: RepositoryOf<{ fields: typeof fieldQueries }>;
  clock: Clock;
  catalog: FieldCatalog;
  limits?: FieldLimits;
  /** A photo field may show only a photo of its account's; the photo gives its details. */
  photos: Pick<PhotoService, 'detailsOf' | 'onRemoved'>;
}

export function view(row: FieldRecord): FieldView {
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

export function unknownType(type: string) {
  const message = `"${type}" is not a field type; GET /field-types lists them`;
  return refuse('unknown_field_type', { detail: message, errors: [{ path: '/type', code: 'unknown_field_type', message }] });
}

export const notFound = () => refuse('field_not_found', 'you have no field with this id');
