import { Type } from 'typebox';
import { IsoDateTime } from '../../platform/http/schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const MeSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    display_name: Nullable(Type.String()),
    locale: Nullable(Type.String({ description: 'BCP 47 language tag' })),
    default_country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    region: Type.String({ description: 'Deployment region holding the account (eu, us)' }),
    created_at: IsoDateTime,
    status: Type.Union([Type.Literal('active'), Type.Literal('deleted')], { description: 'deleted: DELETE /account was called; POST /account/undelete restores it until purge_at' }),
    deleted_at: Type.Union([IsoDateTime, Type.Null()]),
    purge_at: Type.Union([IsoDateTime, Type.Null()], { description: 'When a deleted account is erased for good' }),
    version: Type.Integer({ description: 'Send as If-Match (quoted) to update' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'Me', title: 'Me', additionalProperties: false },
);

export const MePatchBody = Type.Object(
  {
    display_name: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    locale: Type.Optional(Nullable(Type.String({ maxLength: 35 }))),
    default_country: Type.Optional(Nullable(Type.String({ minLength: 2, maxLength: 2 }))),
  },
  { additionalProperties: false, minProperties: 1 },
);
