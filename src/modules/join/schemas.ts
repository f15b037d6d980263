import { Type } from 'typebox';
import { IsoDateTime, ref } from '../../platform/http/schemas.js';
import { Place } from '../sessions/schemas.js';

export const AttemptId = Type.String({ minLength: 1, maxLength: 64 });

export const JoinAttempt = Type.Object(
  {
    attempt_id: Type.String(),
    status: Type.Union([Type.Literal('awaiting_approval'), Type.Literal('approved'), Type.Literal('denied'), Type.Literal('finished'), Type.Literal('expired')]),
    expires_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { $id: 'JoinAttempt', title: 'JoinAttempt', additionalProperties: false },
);

export const PendingJoin = Type.Object(
  {
    attempt_id: Type.String(),
    via: Type.Union([Type.Literal('code'), Type.Literal('factor')], { description: 'code: a code from one of your devices was redeemed; factor: started without a code, can only be denied here' }),
    created_at: IsoDateTime,
    expires_at: IsoDateTime,
    ip: Type.String(),
    location: Type.Union([Type.String(), Type.Null()], { description: 'Approximate "City, CC" of the new device, from an offline IP database (the same place as `place`, as text)' }),
    place: Type.Union([ref(Place), Type.Null()], { description: 'Where the new device is, approximately; null when unknown' }),
    user_agent: Type.String({ description: 'The raw User-Agent header, which the spec\'s approval prompt names; show device_label to people' }),
    device_label: Type.String({ description: 'Browser and device in words, e.g. "Firefox on Windows", "Safari on iPhone"; never the user-agent string' }),
  },
  { $id: 'PendingJoin', title: 'PendingJoin', additionalProperties: false },
);

export const JoinCode = Type.Object(
  { code: Type.String({ pattern: '^[0-9]{6}$' }), expires_at: IsoDateTime, schema_version: Type.Literal(1) },
  { title: 'JoinCode', additionalProperties: false },
);

export const JoinCodeState = Type.Object(
  {
    status: Type.Union([Type.Literal('active'), Type.Literal('used'), Type.Literal('expired'), Type.Literal('voided')], {
      description: 'voided: five wrong guesses were made against the code, so even its right digits are refused; issue a new one',
    }),
    wrong_guesses: Type.Integer({ minimum: 0, description: 'Wrong codes redeemed for this username while the code was live' }),
    expires_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { title: 'JoinCodeState', additionalProperties: false },
);

export const RedeemBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 128 }), code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits shown on the trusted device' }) },
  { additionalProperties: false },
);
export const StartBody = Type.Object({ username: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export const AttemptBody = Type.Object({ attempt_id: AttemptId }, { additionalProperties: false });
export const FactorBody = Type.Object(
  {
    attempt_id: AttemptId,
    totp_code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$' })),
    recovery_key: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
