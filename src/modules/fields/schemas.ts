import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { ADDRESS_PARTS } from './address-rules.js';
import { FIELD_LIMITS } from './limits.js';
import { IsoDateTime, PageQuery, ref } from '../../platform/http/schemas.js';

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const AddressPart = Type.Union(ADDRESS_PARTS.map((part) => Type.Literal(part)));
const Layout = Type.Array(Type.Array(AddressPart), { description: 'Lines of the address, each the parts on that line in order' });

export const PhoneCountryRule = Type.Object(
  {
    name: Type.String({ description: 'Country name (English)' }),
    calling_code: Type.String({ description: 'ITU-T E.164 country calling code, without +', examples: ['49'] }),
    example: Nullable(Type.String({ description: 'An example mobile number in international format, for placeholders' })),
  },
  { $id: 'PhoneCountryRule', title: 'PhoneCountryRule', additionalProperties: false },
);

export const AddressCountryRule = Type.Object(
  {
    name: Type.String({ description: 'Country name (English)' }),
    specific: Type.Boolean({ description: 'false: the country has no rules of its own and the default rules apply' }),
    layout: Layout,
    latin_layout: Type.Optional(Layout),
    required: Type.Array(AddressPart, { description: 'Parts an address in this country must have' }),
    uppercase: Type.Array(AddressPart, { description: 'Parts printed in capitals' }),
    postal_code: Nullable(
      Type.Object(
        {
          required: Type.Boolean(),
          pattern: Nullable(Type.String({ description: 'ECMA-262 regular expression the normalised (upper-case) code must match' })),
          examples: Type.Array(Type.String()),
          label: Type.String({ description: 'What the code is called: Postal code, ZIP code, PIN code, Eircode, …' }),
        },
        { additionalProperties: false },
      ),
      { description: 'null: the country has no postal codes' },
    ),
    labels: Type.Object(
      { region: Type.String(), locality: Type.String(), dependent_locality: Type.String() },
      { additionalProperties: false, description: 'What region, locality and dependent locality are called in this country' },
    ),
  },
  { $id: 'AddressCountryRule', title: 'AddressCountryRule', additionalProperties: false },
);

export const SocialPlatform = Type.Object(
  {
    key: Type.String(),
    label: Type.String(),
    handle_pattern: Type.String({ description: 'ECMA-262 regular expression for the stored handle (no @, no link)' }),
    example: Type.String(),
    profile_url: Nullable(Type.String({ description: 'Template: {handle}, or {user} and {domain} for Mastodon' })),
  },
  { $id: 'SocialPlatform', title: 'SocialPlatform', additionalProperties: false },
);

export const FieldType = Type.Object(
  {
    key: Type.String({ examples: ['phone'] }),
    label: Type.String({ description: 'English label for forms' }),
    description: Type.String(),
    multiple: Type.Boolean({ description: 'Whether an account may hold several fields of this type' }),
    country: Type.Union([Type.Literal('required'), Type.Literal('optional'), Type.Literal('none')], {
      description: 'required: the rules depend on the field\'s country (default: the account\'s default_country); optional: it helps read the value; none: sending one is refused',
    }),
    suggested_labels: Type.Array(Type.String(), { description: 'Labels a form may offer (any label up to 64 characters is accepted)' }),
    value_schema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema (2020-12) of the value as sent; the server applies it first, then the rules it cannot express' }),
    countries: Nullable(
      Type.Record(Type.String({ pattern: '^[A-Z]{2}$' }), Type.Union([ref(PhoneCountryRule), ref(AddressCountryRule)]), {
        description: 'Per-country rules keyed by ISO 3166-1 alpha-2 code (phone, postal_address); null for types without',
      }),
    ),
    values: Type.Optional(Type.Array(Type.String(), { description: 'Pick-list values (time_zone: the IANA names the server knows)' })),
    platforms: Type.Optional(Type.Array(ref(SocialPlatform), { description: 'social: the platforms and their handle rules' })),
    schema_version: Type.Literal(1),
  },
  { $id: 'FieldType', title: 'FieldType', additionalProperties: false },
);

export const FieldDetails = Type.Object(
  {
    line_type: Type.Optional(Type.String({ description: 'phone: mobile, fixed_line, fixed_line_or_mobile, toll_free, voip, … (when the numbering plan knows)' })),
    national: Type.Optional(Type.String({ description: 'phone: national format' })),
    international: Type.Optional(Type.String({ description: 'phone: international format' })),
    uri: Type.Optional(Type.String({ description: 'phone: tel: URI (RFC 3966)' })),
    ascii: Type.Optional(Type.String({ description: 'email: the address with an ASCII (A-label) domain' })),
    smtputf8: Type.Optional(Type.Boolean({ description: 'email: the local part is not ASCII (RFC 6531)' })),
    url: Type.Optional(Type.String({ description: 'social: profile link' })),
    formatted: Type.Optional(Type.String({ description: 'A rendering for display (name, organisation, birthday in ISO 8601, language name, printable address)' })),
    thumbnail: Type.Optional(Type.String({ description: 'photo: the 64 px square as a data: URL (RFC 2397), to show without another request; larger sizes from GET /photos/{photo_id}?size=' })),
    sizes: Type.Optional(Type.Array(Type.Integer(), { description: 'photo: the square sizes GET /photos/{photo_id} serves, in pixels' })),
    photo_tag: Type.Optional(Type.String({ description: 'photo: changes whenever the photo does (the ETag of GET /photos/{photo_id} is built from it)' })),
  },
  { $id: 'FieldDetails', title: 'FieldDetails', additionalProperties: false, description: 'Facts derived from the value while normalising it' },
);

const FieldErrorItem = Type.Object(
  { path: Type.String({ description: 'JSON pointer: /value/…, /country or /label' }), code: Type.String(), message: Type.String() },
  { additionalProperties: false },
);

export const FieldValidation = Type.Object(
  {
    valid: Type.Boolean(),
    normalized: Type.Unknown({ description: 'The value as it would be stored; null when invalid' }),
    original: Type.Unknown({ description: 'The value as sent, when normalising changed it; else null' }),
    country: Nullable(Type.String({ description: 'The country the field would carry' })),
    details: Nullable(ref(FieldDetails)),
    errors: Type.Array(FieldErrorItem),
    schema_version: Type.Literal(1),
  },
  { $id: 'FieldValidation', title: 'FieldValidation', additionalProperties: false },
);

export const FieldSchema = Type.Object(
  {
    id: Type.String({ examples: ['fld_3qD9mX0kVb2yJt8nRw4cLA'] }),
    type: Type.String({ description: 'A key of GET /field-types' }),
    label: Nullable(Type.String({ maxLength: FIELD_LIMITS.maxLabelLength, examples: ['work'] })),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    value: Type.Unknown({ description: 'The normalised value; its shape is the type\'s value_schema' }),
    original: Type.Unknown({ description: 'The value as the person typed it, kept for display when normalising changed it; else null' }),
    details: ref(FieldDetails),
    version: Type.Integer({ description: 'Send as If-Match (quoted) to update or delete' }),
    schema_version: Type.Literal(1),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
  },
  { $id: 'Field', title: 'Field', additionalProperties: false },
);

const Country = Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'ISO 3166-1 alpha-2 (any case); omitted or null: the account\'s default_country where the type needs one' }));
const Label = Nullable(Type.String({ maxLength: FIELD_LIMITS.maxLabelLength, description: 'Free text such as "work"; null or empty: none' }));

export const FieldCreateBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64 }),
    label: Type.Optional(Label),
    value: Type.Unknown({ description: `Shaped by the type's value_schema; at most ${FIELD_LIMITS.maxValueBytes} bytes as JSON` }),
    country: Type.Optional(Country),
  },
  { additionalProperties: false },
);

export const FieldPatchBody = Type.Object(
  { label: Type.Optional(Label), value: Type.Optional(Type.Unknown()), country: Type.Optional(Country) },
  { additionalProperties: false, minProperties: 1, description: 'The type of a field cannot change; a new value or country is judged again' },
);

export const FieldValidateBody = Type.Object({ value: Type.Unknown(), country: Type.Optional(Country) }, { additionalProperties: false });

export const FieldListQuery = Type.Object(
  { ...PageQuery.properties, type: Type.Optional(Type.String({ maxLength: 64, description: 'Only fields of this type' })) },
  { additionalProperties: false },
);

export const FieldIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
export const FieldTypeKeyParams = Type.Object({ key: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
