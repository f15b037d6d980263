import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);

export const ShareLinkSchema = Type.Object(
  {
    id: Type.String({ examples: ['shl_X0kVb2yJt8nRw4cLA3qD9m'] }),
    label: Nullable(Type.String(), { description: 'Your word for where you handed the link out; requests through it show it' }),
    token: Type.String({ description: 'The secret in the link: whoever holds it may subscribe' }),
    url: Type.String({ description: 'The page for the token, for a QR code: PUBLIC_ORIGIN/s/#<token> (in the fragment, which never reaches a server; PUBLIC_ORIGIN/s/<token> from older links opens the same page)' }),
    profile_id: Type.String({ description: 'The profile a subscriber through this link sees' }),
    expires_at: Nullable(IsoDateTime),
    max_uses: Nullable(Type.Integer()),
    uses: Type.Integer(),
    auto_approve: Type.Boolean({ description: 'true: subscribers through this link are active at once; false: they wait for your approval' }),
    state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('used_up')]),
    created_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { $id: 'ShareLink', title: 'ShareLink', additionalProperties: false },
);

/** A share link as the account export lists it: no token (whoever holds one may subscribe). */
export const ExportedShareLink = Type.Object(
  {
    id: Type.String(),
    label: Nullable(Type.String()),
    profile_id: Type.String(),
    expires_at: Nullable(IsoDateTime),
    max_uses: Nullable(Type.Integer()),
    uses: Type.Integer(),
    auto_approve: Type.Boolean(),
    state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('used_up'), Type.Literal('revoked')]),
    created_at: IsoDateTime,
    revoked_at: Nullable(IsoDateTime),
  },
  { title: 'ExportedShareLink', additionalProperties: false },
);

export const ShareLinkCreateBody = Type.Object(
  {
    profile_id: Type.String({ minLength: 1, maxLength: 64 }),
    label: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'Your word for where you hand it out ("Conference badge"); requests through the link show it to you, never to the person who opens it' }))),
    expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'In the future; null or absent: no expiry' }))),
    max_uses: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100000, description: 'null or absent: no limit' }))),
    auto_approve: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const ResolvedShareLinkSchema = Type.Object(
  {
    owner: Type.Object({ username: Type.String(), display_name: Nullable(Type.String()) }, { additionalProperties: false }),
    auto_approve: Type.Boolean(),
    expires_at: Nullable(IsoDateTime),
    schema_version: Type.Literal(1),
  },
  {
    title: 'ResolvedShareLink',
    additionalProperties: false,
    description: 'Whose link it is, nothing more: never the profile\'s name (the owner\'s private word for an audience) nor its fields (PRODUCT §6)',
  },
);

export const TokenQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export const TokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
