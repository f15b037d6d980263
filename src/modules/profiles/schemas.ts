import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import { refuse } from '../../platform/errors.js';
import { acceptedParameter } from '../../platform/http/negotiation.js';
import { IsoDateTime, ref } from '../../platform/http/schemas.js';
import { FieldDetails } from '../fields/schemas.js';
import type { VcardVersion } from './card.js';
import { PROFILE_LIMITS } from './service.js';

const VCARD_VERSIONS: readonly VcardVersion[] = ['3.0', '4.0'];

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const Id = Type.String({ minLength: 1, maxLength: 64 });

/** The card (PRODUCT §3): one shape for the preview, a contact's card and the public card. */
export const CardSchema = Type.Object(
  {
    owner: Type.Object(
      {
        username: Type.String(),
        display_name: Nullable(Type.String()),
        region: Type.Optional(Type.String({ description: 'Only on the card of someone in another region than this deployment: their region, so alice@eu is never read as this region\'s alice (PRODUCT §10)' })),
      },
      { additionalProperties: false },
    ),
    fields: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: 'The field\'s id (stable while the field exists)' }),
          type: Type.String({ description: 'A key of GET /field-types' }),
          label: Nullable(Type.String({ description: 'The label the profile gives the field, else the field\'s own' })),
          country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2 the value is read in (postal addresses, phones)' })),
          value: Type.Unknown({ description: 'The normalised value, shaped by the type\'s value_schema' }),
          details: ref(FieldDetails),
        },
        { additionalProperties: false },
      ),
      { description: 'In the profile\'s order; only the fields the profile shows' },
    ),
    updated_at: Type.String({ format: 'date-time', description: 'When what this card shows last changed' }),
    changed: Type.Optional(
      Type.Array(Type.String(), {
        uniqueItems: true,
        description:
          'What changed at updated_at, as kinds of detail, sorted: the type of each field added, removed or changed (a key of GET /field-types: phone, email, postal_address, …) and display_name for the owner\'s name; empty when nothing you could see before changed (your first card, or a new order). Never values, and never a kind this card did not show you before or shows you now. Absent on cards last changed before the service said so',
        examples: [['phone']],
      }),
    ),
    schema_version: Type.Literal(1),
  },
  {
    $id: 'Card',
    title: 'Card',
    additionalProperties: false,
    description: 'What one person shows another. Strong ETag of its content; send If-None-Match to get 304 while it is unchanged.',
  },
);

export const ProfileSchema = Type.Object(
  {
    id: Type.String({ examples: ['prf_Vb2yJt8nRw4cLA3qD9mX0k'] }),
    name: Type.String({ maxLength: PROFILE_LIMITS.nameLength }),
    description: Nullable(Type.String({ maxLength: PROFILE_LIMITS.descriptionLength })),
    public: Type.Boolean({ description: 'The public card at GET /public/{username}; at most one profile per account' }),
    field_count: Type.Integer({ description: 'Fields this profile shows (its exposures are resources of their own: changing them moves updated_at, not version)' }),
    subscriber_count: Type.Integer({ description: 'Active subscribers who see this profile' }),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
    version: Type.Integer({ description: 'Send as If-Match (quoted) to update or delete' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'Profile', title: 'Profile', additionalProperties: false },
);

export const ExposureSchema = Type.Object(
  {
    field_id: Type.String(),
    label: Nullable(Type.String({ maxLength: PROFILE_LIMITS.labelLength, description: 'Shown instead of the field\'s label; null: the field\'s own' })),
    position: Type.Integer({ minimum: 0, description: '0 is first' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'Exposure', title: 'Exposure', additionalProperties: false },
);

export const ProfileCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256, description: `1-${PROFILE_LIMITS.nameLength} characters once trimmed; unique among your profiles ignoring case` }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: `At most ${PROFILE_LIMITS.descriptionLength} characters` }))),
    public: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const ProfilePatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    public: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ExposurePutBody = Type.Object(
  {
    label: Type.Optional(Nullable(Type.String({ maxLength: 256, description: `At most ${PROFILE_LIMITS.labelLength} characters; null or empty: the field's own label` }))),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'Where in the profile\'s order (0 is first); default: last for a new exposure, unchanged otherwise' })),
  },
  { additionalProperties: false },
);

export const ProfileIdParams = Type.Object({ id: Id }, { additionalProperties: false });
export const ExposureParams = Type.Object({ id: Id, field_id: Id }, { additionalProperties: false });
export const ProfileDeleteQuery = Type.Object(
  { move_to: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Another of your profiles: its subscribers move there first' })) },
  { additionalProperties: false },
);
export const PublicParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export const VcardQuery = Type.Object(
  {
    version: Type.Optional(
      Type.Union([Type.Literal('3.0'), Type.Literal('4.0')], {
        description:
          '3.0 (RFC 2426) when left out, which iPhone and Android contacts apps import; 4.0 (RFC 6350) for readers that want it. ' +
          'Wins over Accept. Anything else: 400 validation_failed',
      }),
    ),
    rfc9554: Type.Optional(
      Type.Boolean({
        description:
          'With 4.0 only (else 400 validation_failed): RFC 9554\'s SOCIALPROFILE and PRONOUNS instead of X-SOCIALPROFILE and X-PRONOUNS, ' +
          'for readers that know RFC 9554. Without it a 4.0 card holds nothing a strict RFC 6350 reader refuses',
      }),
    ),
  },
  { additionalProperties: false },
);

export const VcardHeaders = Type.Object({
  accept: Type.Optional(
    Type.String({
      description:
        '`text/vcard; version=4.0` asks for 4.0 and `text/vcard; version=3.0` for 3.0 (RFC 6350 §10.1), by q-value like any Accept; ' +
        'no version, a wildcard or another type leaves the default, 3.0. Only versions this service does not write (`version=2.1`): 400 validation_failed. ' +
        '?version= wins over it',
    }),
  ),
});

/** How a vCard route names its 400 (config.refusals). */
export const VCARD_REFUSAL = ['validation_failed', 'a vCard version other than 3.0 or 4.0 (?version= or Accept), or rfc9554 without 4.0'] as const;

/** The vCard a request asks for: its version and whether the reader knows RFC 9554's properties. */
export interface VcardForm {
  version: VcardVersion;
  rfc9554: boolean;
}

/**
 * The vCard form of a request to any vCard route (PRODUCT §6): `?version=` if given, else the
 * version Accept prefers (`text/vcard; version=4.0`), else 3.0, the one phones import. Each is
 * its own representation (its own ETag; the routes send Vary: Accept).
 */
export function vcardFormOf(query: Static<typeof VcardQuery>, accept: string | undefined): VcardForm {
  let version = query.version;
  if (!version) {
    const choice = acceptedParameter(accept, 'text/vcard;charset=utf-8', 'version', VCARD_VERSIONS);
    if (choice.kind === 'unavailable') {
      throw refuse('validation_failed', {
        detail: 'Accept asks for text/vcard only in versions this service does not write; ask for version=3.0 or version=4.0',
        errors: [{ path: 'headers:/accept', code: 'vcard_version_unavailable', message: 'text/vcard is written as version=3.0 or version=4.0' }],
      });
    }
    version = choice.kind === 'chosen' ? (choice.value as VcardVersion) : '3.0';
  }
  if (query.rfc9554 && version !== '4.0') {
    throw refuse('validation_failed', {
      detail: 'RFC 9554\'s properties exist only in vCard 4.0; ask for version=4.0 with them',
      errors: [{ path: 'querystring:/rfc9554', code: 'vcard_4_required', message: 'only with version 4.0' }],
    });
  }
  return { version, rfc9554: query.rfc9554 === true };
}

/** A profile as the account export shows it: the profile, its exposures in order, and its card. */
export const ExportedProfile = Type.Object(
  { ...ProfileSchema.properties, exposures: Type.Array(ref(ExposureSchema)), card: Type.Union([ref(CardSchema), Type.Null()]) },
  { title: 'ExportedProfile', additionalProperties: false },
);
