import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { clientInfo } from '../../client-info.js';
import type { LocatedClient } from '../../client-info.js';
import type { Locate } from '../../geo/locate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling from where: address, user agent and approximate location, looked up once per request. */
    client(): Promise<LocatedClient>;
  }
}

const located = new WeakMap<FastifyRequest, Promise<LocatedClient>>();

/** `request.client()`: the caller's address, user agent and location, resolved at most once. */
export const clientPlugin = fp(async (app: FastifyInstance, opts: { locate: Locate }) => {
  app.decorateRequest('client', function client(this: FastifyRequest): Promise<LocatedClient> {
    let pending = located.get(this);
    if (!pending) {
      const info = clientInfo(this.ip, this.headers['user-agent']);
      pending = opts.locate(info.ip).then((location) => ({ ...info, location }));
      located.set(this, pending);
    }
    return pending;
  });
}, { name: 'client' });
