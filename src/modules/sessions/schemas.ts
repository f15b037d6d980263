import { Type } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

export const Tokens = Type.Object(
  {
    session_id: Type.String(),
    token_type: Type.Literal('DPoP'),
    access_token: Type.String(),
    expires_in: Type.Integer({ description: 'Seconds the access token stays valid' }),
    refresh_token: Type.String(),
    refresh_expires_in: Type.Integer({ description: 'Seconds the refresh token stays valid unless used' }),
    trusted: Type.Boolean({ description: 'false for an ephemeral (join without persist_device) session' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'Tokens', title: 'Tokens', additionalProperties: false },
);

export const RenewBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const Session = Type.Object(
  {
    id: Type.String(),
    device_label: Type.String(),
    user_agent: Type.String(),
    trusted: Type.Boolean(),
    current: Type.Boolean({ description: 'true for the session making this request' }),
    created_at: IsoDateTime,
    last_seen_at: IsoDateTime,
    expires_at: IsoDateTime,
  },
  { $id: 'Session', title: 'Session', additionalProperties: false },
);

/** A session as the account export lists it: every session, with its address and end. */
export const ExportedSession = Type.Object(
  {
    id: Type.String(),
    device_label: Type.String(),
    user_agent: Type.String(),
    ip: Type.String(),
    trusted: Type.Boolean(),
    created_at: IsoDateTime,
    last_seen_at: IsoDateTime,
    expires_at: IsoDateTime,
    revoked_at: Type.Union([IsoDateTime, Type.Null()]),
  },
  { title: 'ExportedSession', additionalProperties: false },
);

export const SessionIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
