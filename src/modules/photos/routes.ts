import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { refuse } from '../../platform/errors.js';
import { PHOTO_LIMITS, PHOTO_MEDIA_TYPES } from './processing.js';
import { PhotoIdParams, PhotoSchema, UploadQuery } from './schemas.js';
import { MAX_PHOTOS_PER_ACCOUNT } from './service.js';
import type { PhotoService } from './service.js';

const accepted = (type: string | undefined): type is (typeof PHOTO_MEDIA_TYPES)[number] => (PHOTO_MEDIA_TYPES as readonly string[]).includes(type ?? '');

/** Your photos (PRODUCT §2): upload, list, delete. Who sees one is the cards' business (card-photos). */
export async function photoRoutes(app: FastifyInstance, opts: { photos: PhotoService }) {
  const { photos } = opts;
  const tags = ['fields'];

  await app.register(async (scope) => {
    // The four formats arrive as bytes, up to the limit; anything else is refused by media type.
    scope.addContentTypeParser([...PHOTO_MEDIA_TYPES], { parseAs: 'buffer', bodyLimit: PHOTO_LIMITS.maxBytes }, (_request, body, done) => done(null, body));
    const r = scope.withTypeProvider<TypeBoxTypeProvider>();

    r.post('/me/photos', {
      config: {
        auth: 'session',
        idempotency: 'required',
        bodyRefusals: { tooLarge: 'photo_too_large', mediaType: 'photo_not_image' },
        refusals: [
          ['photo_too_large', `over ${PHOTO_LIMITS.maxBytes / 1024 / 1024} MiB, or over ${PHOTO_LIMITS.maxPixels / 1e6} megapixels`],
          ['photo_not_image', 'another media type than image/jpeg, image/png, image/webp or image/avif (415, code photo_unreadable)'],
          ['photo_unreadable', 'not an image of the type sent, damaged, cut short, animated, or the crop lies outside it'],
          ['photo_limit', `you keep ${MAX_PHOTOS_PER_ACCOUNT} photos already`],
        ],
      },
      schema: {
        tags,
        summary: 'Upload a photo',
        description:
          'The body is the image itself (image/jpeg, image/png, image/webp or image/avif; at most 10 MiB and 40 megapixels). The server ' +
          'decodes it, applies its orientation, keeps a square (`crop`, else the centre) and re-encodes it as JPEG squares of 64, 256 and 512 px ' +
          'with no metadata at all (no EXIF, GPS or comments): the upload itself is never kept or served. Show it on your cards through a field of ' +
          `type photo (\`value: {photo_id}\`), exposed per profile like any field. At most ${MAX_PHOTOS_PER_ACCOUNT} photos per account.`,
        consumes: [...PHOTO_MEDIA_TYPES],
        body: { type: 'string', contentMediaType: 'image/*', contentEncoding: 'binary', description: 'The image bytes' } as never,
        querystring: UploadQuery,
        response: { 201: ref(PhotoSchema) },
      },
    }, async (request, reply) => {
      const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (!Buffer.isBuffer(request.body) || !accepted(type)) throw refuse('photo_not_image', 'send the image itself as image/jpeg, image/png, image/webp or image/avif');
      const [x, y, size] = request.query.crop?.split(',').map(Number) ?? [];
      const photo = await photos.upload(callerOf(request), request.body, type, size === undefined ? undefined : { x: x!, y: y!, size });
      reply.header('Location', `${API_PREFIX}/me/photos/${photo.id}`);
      return reply.code(201).send(photo);
    });
  });

  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/me/photos', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Your photos', description: 'Oldest first.', querystring: PageQuery, response: { 200: PageOf(ref(PhotoSchema), 'PhotoPage') } },
  }, async (request) => photos.list(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.get('/me/photos/:id', {
    config: { auth: 'session', refusals: [['photo_not_found', 'you have no photo with this id']] },
    schema: { tags, summary: 'One of your photos', description: 'A photo\'s details: its id, when it was added and the square sizes served; the image itself is at GET /photos/{id}?size=.', params: PhotoIdParams, response: { 200: ref(PhotoSchema) } },
  }, async (request) => photos.get(callerOf(request), request.params.id));

  r.delete('/me/photos/:id', {
    config: { auth: 'session', refusals: [['photo_not_found', 'you have no photo with this id']] },
    schema: {
      tags,
      summary: 'Delete a photo',
      description: 'The photo goes, and with it every field that shows it: every card that showed it changes (its followers are told), and its URL answers 404 to everyone.',
      params: PhotoIdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await photos.remove(callerOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}
