import { Type } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const SecurityLogEntry = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'account_created, signed_in, passkey_added, passkey_renamed, passkey_removed, totp_added, totp_confirmed, totp_removed, recovery_key_downloaded, recovery_succeeded, recovery_failed, join_factor_failed (a wrong authenticator code or recovery key on a new device), session_revoked, dav_token_created, dav_token_revoked (an address-book password), account_deleted, account_restored, account_locked, account_unlocked' }),
    at: IsoDateTime,
    ip: Type.String(),
    location: Nullable(Type.String({ description: 'Approximate: "City, CC" from an offline IP database' })),
    user_agent: Type.String(),
    device_label: Type.String({ description: 'The user agent as a person recognises it: "Chrome 131 on macOS"' }),
  },
  { $id: 'SecurityLogEntry', title: 'SecurityLogEntry', additionalProperties: false },
);
