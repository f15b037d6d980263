import { Type } from 'typebox';

export const PhotoSchema = Type.Object(
  {
    id: Type.String({ description: 'pho_…' }),
    sizes: Type.Array(Type.Integer(), { description: 'The square sizes GET /photos/{id}?size= serves, in pixels' }),
    created_at: Type.String({ format: 'date-time' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'Photo', title: 'Photo', additionalProperties: false, description: 'A photo the server re-encoded from an upload (the upload itself is not kept)' },
);

export const PhotoIdParams = Type.Object({ id: Type.String({ maxLength: 80 }) }, { additionalProperties: false });

export const UploadQuery = Type.Object(
  {
    crop: Type.Optional(
      Type.String({
        pattern: '^\\d{1,6},\\d{1,6},\\d{1,6}$',
        description: 'A square to keep, `x,y,size` in pixels of the image as it is shown (after its EXIF orientation); the centre square when absent',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PhotoSizeQuery = Type.Object(
  { size: Type.Optional(Type.Union([Type.Literal('64'), Type.Literal('256'), Type.Literal('512')], { description: 'Square size in pixels (default 256)' })) },
  { additionalProperties: false },
);

/** A photo in the account export: the same, with its three JPEG squares. */
export const ExportedPhoto = Type.Object(
  {
    id: Type.String(),
    sizes: Type.Array(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
    schema_version: Type.Literal(1),
    jpeg: Type.Record(Type.String(), Type.String({ contentEncoding: 'base64', contentMediaType: 'image/jpeg' }), { description: 'Each size (64, 256, 512) as base64 JPEG' }),
  },
  { title: 'ExportedPhoto', additionalProperties: false },
);
