import { listPosition, pageOfList } from '../../platform/store/keyset.js';
import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { refuse } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { isCountryCode } from '../../platform/countries.js';
import { FIELD_LIMITS } from './limits.js';
import { FIELD_TYPES } from './registry.js';
import { stableJson } from '../../platform/text.js';
import type { FieldDetails, FieldTypeDefinition } from './types.js';

/** A value that passed its type's rules, as it is stored. */
export interface CheckedValue {
  value: unknown;
  /** What was typed, kept only when normalising changed it (for display). */
  original: unknown | null;
  country: string | null;
  details: FieldDetails;
}

export type CheckOutcome = { ok: true; checked: CheckedValue } | { ok: false; errors: FieldError[] };

export interface CatalogEntry {
  definition: FieldTypeDefinition;
  /** The entry as GET /field-types/{key} serves it, and its strong ETag. */
  json: string;
  etag: string;
}

/** A strong ETag from content (RFC 9110 §8.8.3): changes exactly when the catalog does. */
const etagOf = (json: string) => `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;

function viewOf(def: FieldTypeDefinition) {
  return {
    key: def.key,
    label: def.label,
    description: def.description,
    multiple: def.multiple,
    country: def.country,
    suggested_labels: def.suggestedLabels,
    value_schema: def.valueSchema,
    countries: def.countries ? def.countries() : null,
    ...(def.values ? { values: def.values() } : {}),
    ...(def.platforms ? { platforms: def.platforms() } : {}),
    schema_version: 1,
  };
}

function shapeErrors(issues: ErrorObject[]): FieldError[] {
  return issues.map((issue) => {
    const missing = issue.keyword === 'required' ? `/${String(issue.params.missingProperty)}` : '';
    const extra = issue.keyword === 'additionalProperties' ? `/${String(issue.params.additionalProperty)}` : '';
    return { path: `/value${issue.instancePath}${missing}${extra}`, code: issue.keyword, message: issue.message ?? 'invalid' };
  });
}

const countryProblem = (code: 'invalid_country' | 'country_required' | 'country_not_applicable', message: string) =>
  refuse(code, { detail: message, errors: [{ path: '/country', code, message }] });

/** The catalog's order is the order of FIELD_TYPES: a page's cursor is the last type's place in it, and its key. */
const ORDINALS = new Map(FIELD_TYPES.map((def, i) => [def.key, i]));
const ORDER = (view: { key: string }) => [ORDINALS.get(view.key)!, view.key];
const ORDER_CURSOR = listPosition(['number', 'string']);

function build() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const shapes = new Map<string, ValidateFunction>();
  const entries = new Map<string, CatalogEntry>();
  const views = FIELD_TYPES.map((def) => {
    shapes.set(def.key, ajv.compile(def.valueSchema));
    const view = viewOf(def);
    const json = JSON.stringify(view);
    entries.set(def.key, { definition: def, json, etag: etagOf(json) });
    return view;
  });
  const listJson = JSON.stringify(pageOfList(views, undefined, views.length, ORDER, ORDER_CURSOR));
  return { shapes, entries, views, list: { json: listJson, etag: etagOf(listJson) } };
}

/**
 * The read-only field catalog (PRODUCT §2): built once, on first use, served with content
 * ETags, and the one place values are judged. Shape first (the published value_schema, with
 * Ajv), then the type's own rules. Built on first use rather than at start: it holds every
 * country's phone and address rules, twice serialised (about 1 MB), which a node answering
 * only sign-ins and /me never needs.
 */
export function createFieldCatalog(limits: { maxValueBytes: number } = FIELD_LIMITS) {
  let built: ReturnType<typeof build> | undefined;
  const catalog = () => (built ??= build());
  const definitions = new Map(FIELD_TYPES.map((def) => [def.key, def]));

  /** The country the rules apply with; refusals here are request-level (400 with their own code). */
  function resolveCountry(def: FieldTypeDefinition, given: string | null | undefined, fallback: string | null | undefined): string | undefined {
    if (given !== undefined && given !== null) {
      const code = given.toUpperCase();
      if (!isCountryCode(code)) throw countryProblem('invalid_country', `"${given}" is not an ISO 3166-1 alpha-2 country code`);
      if (def.country === 'none') throw countryProblem('country_not_applicable', `${def.label} fields take no country`);
      return code;
    }
    if (def.country === 'none') return undefined;
    const code = fallback ?? undefined;
    if (!code && def.country === 'required') {
      throw countryProblem('country_required', `${def.label} fields need a country: send one, or set default_country on /me`);
    }
    return code;
  }

  return {
    /**
     * A page of the catalog in its fixed order (PRODUCT §0 paging): the whole catalog, built once,
     * when one page holds it and no cursor is sent, as nearly every client asks for it.
     */
    page(cursor: string | undefined, limit: number): { json: string; etag: string } {
      const { views, list } = catalog();
      if (cursor === undefined && limit >= views.length) return list;
      const json = JSON.stringify(pageOfList(views, cursor, limit, ORDER, ORDER_CURSOR));
      return { json, etag: etagOf(json) };
    },
    entry: (key: string) => catalog().entries.get(key),
    definition: (key: string) => definitions.get(key),
    limits,
    /**
     * Judges a value for a type. Throws refusals for request-level problems (oversized value,
     * bad or missing country); returns the rule violations otherwise.
     */
    check(def: FieldTypeDefinition, value: unknown, given: string | null | undefined, fallback: string | null | undefined, now: number): CheckOutcome {
      const bytes = Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
      if (bytes > limits.maxValueBytes) {
        const message = `the value takes ${bytes} bytes as JSON; at most ${limits.maxValueBytes} are allowed`;
        throw refuse('field_value_too_large', { detail: message, errors: [{ path: '/value', code: 'field_value_too_large', message }] });
      }
      const country = resolveCountry(def, given, fallback);
      const shape = catalog().shapes.get(def.key) as ValidateFunction;
      if (!shape(value)) return { ok: false, errors: shapeErrors(shape.errors ?? []) };
      const result = def.validate(value, { country, now });
      if (!result.ok) {
        // A phone number in national form with no country to read it by: a request-level refusal too.
        const missing = result.errors.find((e) => e.path === '/country');
        if (missing) throw countryProblem('country_required', missing.message);
        return result;
      }
      const finalCountry = result.country !== undefined ? result.country : (country ?? null);
      return {
        ok: true,
        checked: {
          value: result.value,
          original: stableJson(result.value) === stableJson(value) ? null : value,
          country: finalCountry,
          details: result.details ?? {},
        },
      };
    },
  };
}

export type FieldCatalog = ReturnType<typeof createFieldCatalog>;
