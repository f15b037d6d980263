import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { refuse } from '../../platform/errors.js';
import { noneMatchHolds } from '../../platform/etag.js';
import { NotModified } from '../../platform/http/schemas.js';
import type { PhotoSize } from '../photos/tables.js';
import { PhotoIdParams, PhotoSizeQuery } from '../photos/schemas.js';
import type { PhotoService } from '../photos/service.js';
import { photoAudience } from './audience.js';

type Deps = Parameters<typeof photoAudience>[0] & { photos: Pick<PhotoService, 'bytes'> };

/**
 * GET /photos/{id}: a photo's bytes to those a card shows it to, 404 to everyone else (the same
 * answer as a photo that does not exist, so a URL tells a stranger nothing).
 */
export async function cardPhotoRoutes(app: FastifyInstance, deps: Deps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/photos/:id', {
    config: { auth: 'optional', refusals: [['photo_not_found', 'no photo with this id that a card shows you']] },
    schema: {
      tags: ['fields', 'public'],
      summary: 'A photo, to those a card shows it to',
      description:
        'The JPEG square in `size` px (64, 256 or 512; default 256). Without credentials: only a photo the public card shows, cacheable by anyone ' +
        '(Cache-Control public, max-age=60). With a session (DPoP): also your own photos and those the cards you receive show, private to you ' +
        '(private, no-cache: revalidate with If-None-Match). Everyone else, and every photo that does not exist, gets 404. The ETag is strong and ' +
        'changes with the bytes. A card\'s photo field carries a 64 px thumbnail, so lists show faces without calling this.',
      params: PhotoIdParams,
      querystring: PhotoSizeQuery,
      response: {
        200: { description: 'The photo', content: { 'image/jpeg': { schema: Type.String({ contentMediaType: 'image/jpeg', contentEncoding: 'binary' }) } } },
        304: NotModified,
      },
    },
  }, async (request, reply) => {
    const size = Number(request.query.size ?? 256) as PhotoSize;
    const photo = await deps.photos.bytes(request.params.id, size);
    const audience = photo && (await photoAudience(deps, { id: request.params.id, ownerId: photo.account_id }, request.auth?.account.id));
    if (!photo || !audience) throw refuse('photo_not_found', 'no photo with this id that a card shows you');
    const etag = `"${photo.digest}.${size}"`;
    reply.header('ETag', etag);
    // Public: a shared cache may keep it a minute after the public card stops showing it. Private:
    // only the viewer's own cache, asking again every time (a revoked follower loses it at once).
    reply.header('Cache-Control', audience === 'public' ? 'public, max-age=60' : 'private, no-cache');
    if (audience === 'private') reply.header('Vary', 'Authorization, DPoP');
    if (noneMatchHolds(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
    return (reply as FastifyReply).type('image/jpeg').send(Buffer.from(photo.bytes));
  });
}
