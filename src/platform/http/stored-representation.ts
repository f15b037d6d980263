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
