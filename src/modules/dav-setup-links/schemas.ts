import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';
import { DAV_TOKEN_LIMITS } from '../dav-tokens/schemas.js';
import { SETUP_LINK_TTL_MS } from './service.js';

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const minutes = SETUP_LINK_TTL_MS / 60_000;

const LinkId = Type.String({ examples: ['dsl_Vq3xZ0bT9kLm2nP4rS6uWA'] });
const Label = Nullable(Type.String(), { description: 'The name the phone\'s password will carry; null: named after the phone that uses the link ("iPhone")' });

/** The creation's answer: the only time the link and the code are shown. */
export const CreatedSetupLinkSchema = Type.Object(
  {
    id: LinkId,
    label: Label,
    url: Type.String({
      description: 'The link to open on the phone (show it as a QR code). Its token is in the fragment, which browsers never send to a server.',
      examples: ['https://id.example.org/p/#Qm9vNHJ2ZXJ5LXNlY3JldC1yYW5kb20t'],
    }),
    code: Type.String({ description: 'The same link as a code to type at PUBLIC_ORIGIN/p instead: eight letters and digits', examples: ['K7QX-M2PD'] }),
    expires_at: IsoDateTime,
    created_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { $id: 'CreatedSetupLink', title: 'CreatedSetupLink', additionalProperties: false },
);

export const SetupLinkSchema = Type.Object(
  {
    id: LinkId,
    label: Label,
    state: Type.Union([Type.Literal('waiting'), Type.Literal('used'), Type.Literal('expired')], { description: 'waiting for a phone, used by one (dav_token_id names its password), or expired unused' }),
    expires_at: IsoDateTime,
    used_at: Nullable(IsoDateTime),
    dav_token_id: Nullable(Type.String(), { description: 'The address-book password the link made: its last_used_at tells when the phone first synced' }),
    created_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { $id: 'SetupLink', title: 'SetupLink', additionalProperties: false },
);

/** What the phone receives: an address-book password, as POST /dav-tokens answers it, and its hand-overs. */
export const RedeemedSetupLinkSchema = Type.Object(
  {
    id: Type.String(),
    label: Type.String(),
    secret: Type.String({ description: 'The address-book password, shown this once' }),
    username: Type.String({ description: 'The user name to type beside it (the hand-overs sign in with the account id, which survives a rename)' }),
    server_url: Type.String(),
    created_at: IsoDateTime,
    davx5_url: Type.String({ description: 'Opens DAVx5\'s login with server, user name and password filled (davx5:// on https, carddav:// on http)' }),
    android_intent_url: Type.String({ description: 'The same for Chrome on Android (an intent: URL naming DAVx5, which offers the app store when DAVx5 is missing)' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'RedeemedSetupLink', title: 'RedeemedSetupLink', additionalProperties: false },
);

export const ExportedSetupLink = Type.Object(
  { id: Type.String(), label: Nullable(Type.String()), created_at: IsoDateTime, expires_at: IsoDateTime, used_at: Nullable(IsoDateTime), dav_token_id: Nullable(Type.String()) },
  { title: 'ExportedSetupLink', additionalProperties: false },
);

export const SetupLinkCreateBody = Type.Object(
  { label: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: `1-${DAV_TOKEN_LIMITS.labelLength} characters once trimmed; no control characters` })) },
  { additionalProperties: false },
);

/** The link's token (from the URL's fragment) or its code, as typed: exactly one. */
export const SetupLinkSecretBody = Type.Object(
  {
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The token from the link\'s fragment' })),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'The code, as typed: case, spaces and the dash do not matter' })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);

export const SetupLinkIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

export const SETUP_LINK_MINUTES = minutes;
