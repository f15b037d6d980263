import { Type } from 'typebox';

export const RecoveryBeginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 128 }),
    recovery_key: Type.String({ minLength: 1, maxLength: 128, description: 'As written down; case, spaces and dashes do not matter' }),
    totp_code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'Required when the account has an active authenticator' })),
  },
  { additionalProperties: false },
);
