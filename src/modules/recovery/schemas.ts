import { Type } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

export const RecoveryBeginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 128 }),
    recovery_key: Type.String({ minLength: 1, maxLength: 128, description: 'As written down; case, spaces and dashes do not matter' }),
    totp_code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'Required when the account has an active authenticator' })),
  },
  { additionalProperties: false },
);

export const RecoveryKeyState = Type.Object(
  {
    created_at: Type.String({ format: 'date-time', description: 'When the key was made: at sign-up' }),
    downloaded_at: Type.Union([IsoDateTime, Type.Null()], {
      description:
        'When it was last downloaded; null: never (say so, and offer the download). Downloading again gives the same key: it is made once and never replaced, so copies kept earlier still work',
    }),
    schema_version: Type.Literal(1),
  },
  { $id: 'RecoveryKeyState', title: 'RecoveryKeyState', additionalProperties: false },
);
