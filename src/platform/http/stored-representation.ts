import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Conditional } from '../etag.js';
import { notModified } from './preconditions.js';

/**
 * Sends a representation as stored (a rendered card: no second serialisation), or 304 when the
 * client holds it already (RFC 9110 §13.1.2). Every card route answers through here.
 */
export function sendStored(request: FastifyRequest, reply: FastifyReply, stored: Conditional, cacheControl: string) {
  reply.header('ETag', stored.etag).header('Cache-Control', cacheControl);
  if (stored.json === undefined || notModified(request, stored.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').serializer((payload: unknown) => payload as string).send(stored.json);
}

/** The client's If-None-Match, for a service to answer a conditional read without reading what it would not send. */
export const ifNoneMatch = (request: FastifyRequest) => request.headers['if-none-match'];

/**
 * A list page whose items each carry a stored representation (a rendered card) under `field`:
 * the rest of each item serialised as JSON, the stored text spliced in as it is, so an item's
 * embedded card is byte for byte what the card's own route sends (`sendStored`), and a page of
 * 200 cards is not parsed and serialised again.
 */
export function sendPageWithStored<Item extends object>(
  reply: FastifyReply,
  page: { data: Array<Item & { stored: string | null }>; next_cursor: string | null; has_more: boolean },
  field: string,
) {
  const items = page.data.map(({ stored, ...item }) => `${JSON.stringify(item).slice(0, -1)},${JSON.stringify(field)}:${stored ?? 'null'}}`);
  const body = `{"data":[${items.join(',')}],"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`;
  return reply.type('application/json; charset=utf-8').serializer((payload: unknown) => payload as string).send(body);
}
