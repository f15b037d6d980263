import { Type } from 'typebox';
import { IsoDateTime, ref } from '../../platform/http/schemas.js';

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

/** An approximate place (platform/geo/place.ts): what a person sees beside a device. */
export const Place = Type.Object(
  {
    city: Type.Union([Type.String(), Type.Null()], { description: 'When the IP database knows one' }),
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2; show it by name in the reader\'s language (Intl.DisplayNames)' }),
  },
  {
    $id: 'Place',
    title: 'Place',
    additionalProperties: false,
    description: 'Approximate, from the client\'s IP address in an offline database (GeoLite2, via fast-geoip); private, loopback and IPv6 addresses have none',
  },
);

export const Session = Type.Object(
  {
    id: Type.String(),
    device_label: Type.String({ description: 'Browser and device in words, e.g. "Chrome on iPhone", "Safari on Mac"; never the user-agent string' }),
    user_agent: Type.String({ description: 'The raw User-Agent header, as PRODUCT §1 lists it; show device_label to people' }),
    place: Type.Union([ref(Place), Type.Null()], { description: 'Where the session signed in from, approximately; null when unknown' }),
    trusted: Type.Boolean(),
    current: Type.Boolean({ description: 'true for the session making this request ("this device")' }),
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
    location: Type.Union([Type.String(), Type.Null()], { description: 'Approximate "City, CC" when the session opened' }),
    passkey_id: Type.Union([Type.String(), Type.Null()], { description: 'The passkey it signed in with, if one did' }),
    trusted: Type.Boolean(),
    created_at: IsoDateTime,
    last_seen_at: IsoDateTime,
    expires_at: IsoDateTime,
    revoked_at: Type.Union([IsoDateTime, Type.Null()]),
  },
  { title: 'ExportedSession', additionalProperties: false },
);

export const SessionIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
