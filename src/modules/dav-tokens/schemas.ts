import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);

/** How many live address-book passwords an account may hold, and how long a label may be. */
export const DAV_TOKEN_LIMITS = { perAccount: 10, labelLength: 64 } as const;

const TokenId = Type.String({ examples: ['dav_X0kVb2yJt8nRw4cLA3qD9m'] });
const Label = Type.String({ description: 'Your name for the device: "iPhone", "Work laptop"' });

/** An address-book password as the list shows it: never the password or its hash. */
export const DavTokenSchema = Type.Object(
  {
    id: TokenId,
    label: Label,
    created_at: IsoDateTime,
    last_used_at: Nullable(IsoDateTime, { description: 'When an address book last signed in with it (kept to the minute); null: never' }),
    last_user_agent: Nullable(Type.String(), { description: 'The User-Agent of that sign-in' }),
    device_label: Nullable(Type.String(), { description: 'That user agent as a person recognises it: "iOS 18"; null: never used' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'DavToken', title: 'DavToken', additionalProperties: false },
);

/** The answer to a creation: the only time the password is shown. */
export const CreatedDavTokenSchema = Type.Object(
  {
    id: TokenId,
    label: Label,
    secret: Type.String({
      description: 'The password to type into the address book, shown this once: vidcd_<id>_<43 characters>. Stored only as a keyed hash; lost, it is revoked and replaced.',
      examples: ['vidcd_dav_X0kVb2yJt8nRw4cLA3qD9m_Qm9vNHJ2ZXJ5LXNlY3JldC1yYW5kb20tYnl0ZXMtMzI'],
    }),
    username: Type.String({ description: 'The user name to type beside it: your username (the account id works too and survives a rename)' }),
    server_url: Type.String({ description: 'The CardDAV server to enter: PUBLIC_ORIGIN/dav/ (clients that ask only for a host find it through /.well-known/carddav)' }),
    created_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { $id: 'CreatedDavToken', title: 'CreatedDavToken', additionalProperties: false },
);

/** An address-book password as the account export lists it. */
export const ExportedDavToken = Type.Object(
  {
    id: Type.String(),
    label: Type.String(),
    created_at: IsoDateTime,
    last_used_at: Nullable(IsoDateTime),
    last_user_agent: Nullable(Type.String()),
  },
  { title: 'ExportedDavToken', additionalProperties: false },
);

export const DavTokenCreateBody = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 256, description: `1-${DAV_TOKEN_LIMITS.labelLength} characters once trimmed; no control characters` }) },
  { additionalProperties: false },
);

export const DavTokenIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
