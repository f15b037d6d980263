import { Type } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';
import { PASSKEY_NAME_MAX } from './passkey-names.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Passkey = Type.Object(
  {
    id: Type.String(),
    name: Type.String({
      description: `Named at registration from the passkey's provider (its AAGUID) and the device ("Apple Passwords on iPhone", "Windows Hello", "Security key"); rename it with PATCH (1-${PASSKEY_NAME_MAX} characters)`,
    }),
    created_at: IsoDateTime,
    last_used_at: Nullable(IsoDateTime),
    backup_eligible: Type.Boolean(),
    backed_up: Type.Boolean({ description: 'Synced to a cloud keychain' }),
    dpop_jkt: Type.String({ description: 'Thumbprint of the DPoP key of the device that last used it' }),
    flagged: Type.Boolean({ description: 'A signature counter went backwards once (possible clone)' }),
    current: Type.Boolean({ description: 'The passkey this session signed in with ("this device"); false in the account export' }),
    version: Type.Integer(),
    schema_version: Type.Literal(1),
  },
  { $id: 'Passkey', title: 'Passkey', additionalProperties: false },
);

export const MethodIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
export const RenameBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: PASSKEY_NAME_MAX, description: `1-${PASSKEY_NAME_MAX} characters; spaces around it are trimmed` }) },
  { additionalProperties: false },
);

export const TotpAuthenticator = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    active: Type.Boolean({ description: 'false until a first valid code confirms it' }),
    created_at: IsoDateTime,
    confirmed_at: Nullable(IsoDateTime),
    last_used_at: Nullable(IsoDateTime),
    schema_version: Type.Literal(1),
  },
  { $id: 'TotpAuthenticator', title: 'TotpAuthenticator', additionalProperties: false },
);

export const TotpEnrollment = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    active: Type.Boolean(),
    created_at: IsoDateTime,
    confirmed_at: Nullable(IsoDateTime),
    last_used_at: Nullable(IsoDateTime),
    schema_version: Type.Literal(1),
    secret: Type.String({ description: 'Base32 secret, shown once; the server keeps it encrypted' }),
    otpauth_uri: Type.String({ description: 'otpauth://totp/… for a QR code' }),
  },
  { title: 'TotpEnrollment', additionalProperties: false },
);

export const TotpEnrollBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
export const TotpCodeBody = Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits the app shows' }) }, { additionalProperties: false });
