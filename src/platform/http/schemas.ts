import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';

/** RFC 9457 problem details with our extension members (PRODUCT §0). */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'URI reference naming the problem type' }),
    title: Type.String({ description: 'Stable summary of the problem type' }),
    status: Type.Integer({ description: 'The HTTP status code' }),
    detail: Type.String({ description: 'What went wrong this time, to help the client fix it' }),
    code: Type.String({ description: 'Stable machine-readable code (snake_case; JOIN_NOT_APPROVED is the spec\'s own)' }),
    request_id: Type.String({ description: 'Same as the VID-Request-Id header' }),
    instance: Type.Optional(Type.String()),
    contact_id: Type.Optional(Type.String({ description: 'already_subscribed: the contact that exists (GET /contacts/{id})' })),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer into the request part that failed' }),
          code: Type.String(),
          message: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem', additionalProperties: false },
);

export const ProblemRef = Type.Unsafe({ $ref: 'Problem#' });

/** A response carried as application/problem+json. */
export function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: ProblemRef } } };
}

/** List envelope of the spec: {data, next_cursor, has_more}. */
export function PageOf<T extends TSchema>(item: T, name: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last' }),
      has_more: Type.Boolean(),
    },
    { title: name, additionalProperties: false },
  );
}

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200 (default 50)' })),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: 'Opaque cursor from next_cursor' })),
  },
  { additionalProperties: false },
);

export const NoContent = Type.Null({ description: 'No content' });

/** 304: the representation the client named in If-None-Match is current. */
export const NotModified = { type: 'null', description: 'Not Modified: the copy you hold (If-None-Match) is current' } as const;

export const IsoDateTime = Type.String({ format: 'date-time' });

/**
 * A reference to a shared schema (registered once with addSchema, so it appears once in the
 * OpenAPI components), typed as the schema it points to.
 */
export function ref<T extends TSchema & { $id?: string }>(schema: T) {
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#` });
}
