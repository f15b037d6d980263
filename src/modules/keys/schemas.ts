import { Type } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

/** PRODUCT §7: key material is opaque base64url of at most 8 KiB. */
export const KEY_LIMITS = { maxLength: 8192 } as const;

const OPAQUE_RULE = `base64url (A–Z a–z 0–9 - _, no padding), 1 to ${KEY_LIMITS.maxLength} characters`;

/**
 * Key material in a request. The rule is checked by the service, not here, so a breach answers
 * its own stable code (invalid_key_bundle, invalid_key_share) rather than validation_failed.
 */
const OpaqueInput = (code: string, what: string) =>
  Type.String({ contentEncoding: 'base64url', description: `${what}: opaque ${OPAQUE_RULE}; the server stores it and never reads it. Otherwise 400 ${code}.` });

/** Key material in a response: always what a PUT stored. */
const Opaque = (description: string) => Type.String({ contentEncoding: 'base64url', pattern: '^[A-Za-z0-9_-]+$', minLength: 1, maxLength: KEY_LIMITS.maxLength, description });

export const KeyBundleSchema = Type.Object(
  {
    id: Type.String({ description: 'The bundle\'s opaque id: what your contacts see instead of the passkey\'s id', examples: ['key_X0kVb2yJt8nRw4cLA3qD9m'] }),
    method_id: Type.String({ description: 'The passkey (device) the bundle belongs to (GET /auth/methods)' }),
    bundle: Opaque('As you stored it'),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
    version: Type.Integer({ description: 'Send as If-Match (quoted) to replace or delete' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'KeyBundle', title: 'KeyBundle', additionalProperties: false, description: 'One device\'s key bundle, as its owner sees it' },
);

export const ContactKeySchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque and stable while the bundle lives; never the owner\'s passkey id' }),
    bundle: Opaque('As the owner stored it'),
    updated_at: IsoDateTime,
  },
  { $id: 'ContactKey', title: 'ContactKey', additionalProperties: false, description: 'One of a contact\'s device key bundles, as a subscriber sees it' },
);

export const KeyShareSchema = Type.Object(
  {
    share: Opaque('As you stored it'),
    updated_at: IsoDateTime,
    version: Type.Integer({ description: 'Send as If-Match (quoted) to replace or delete' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'KeyShare', title: 'KeyShare', additionalProperties: false, description: 'The server\'s share of your split secret' },
);

/** A bundle as the account export lists it. */
export const ExportedKeyBundle = Type.Object(
  {
    method_id: Type.String(),
    bundle: Type.String(),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
    version: Type.Integer(),
  },
  { title: 'ExportedKeyBundle', additionalProperties: false },
);

export const BundleBody = Type.Object({ bundle: OpaqueInput('invalid_key_bundle', 'The device\'s key bundle') }, { additionalProperties: false });
export const ShareBody = Type.Object({ share: OpaqueInput('invalid_key_share', 'The server\'s share of your split secret') }, { additionalProperties: false });
export const MethodIdParams = Type.Object({ method_id: Type.String({ minLength: 1, maxLength: 64, description: 'One of your passkeys (GET /auth/methods)' }) }, { additionalProperties: false });
export const ContactIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
