import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { refuse } from '../../platform/errors.js';
import type { RegionVerification } from '../../platform/federation/signatures.js';
import type { IncomingRegionRequest } from '../../platform/federation/signatures.js';
import { AppError } from '../../platform/errors.js';
import { isDelivery } from './deliveries.js';
import type { RegionService } from './service.js';

const rawBodies = new WeakMap<FastifyRequest, Buffer>();
/**
 * What a peer may send in one request: its sender keeps to half (MAX_REQUEST_BYTES, sender.ts);
 * more than the API's own limit, as a delivery carries up to a hundred cards (photos' thumbnails
 * included). Only signed requests are parsed, so a stranger gains nothing by it.
 */
export const FEDERATION_BODY_LIMIT = 4 * 1024 * 1024;
const Answer = Type.Object({}, { additionalProperties: true });
/** A username as deliveries carry one (deliveries.ts isDelivery): some text, at most 128 characters. */
const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 128;

/**
 * The server-to-server API between one operator's regions (PRODUCT §10, decision 352), outside
 * /api/v1 and its document: no person calls it. Every request must carry a valid signature of a
 * configured peer region (RFC 9421, with its RFC 9530 content digest, a short validity and a
 * nonce used once); anything else is refused before its body is read as JSON, and counted.
 */
export async function regionRoutes(app: FastifyInstance, opts: { service: RegionService; publicOrigin: string; verify(request: IncomingRegionRequest): Promise<RegionVerification> }) {
  // The signature covers the body's exact bytes (RFC 9530 §2): keep them, parse after.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    rawBodies.set(request, body);
    done(null, undefined);
  });

  /** The sending region, or the refusal (401) that says why the request is nobody's. */
  async function sender(request: FastifyRequest): Promise<{ region: string; body: unknown }> {
    const raw = rawBodies.get(request) ?? Buffer.alloc(0);
    // @target-uri as this request arrived (RFC 9421 §2.2.2), behind a trusted proxy as it forwarded it.
    const verdict = await opts.verify({ method: request.method, url: `${request.protocol}://${request.host}${request.url}`, headers: request.headers, body: raw });
    if (!verdict.ok) {
      if (verdict.reason === 'unsigned') throw refuse('region_signature_required', 'requests between regions are signed (RFC 9421)');
      if (verdict.reason === 'replayed') throw refuse('region_request_replayed', 'this signed request was used before');
      throw refuse('region_signature_invalid', `the request's signature does not hold: ${verdict.reason.replace('_', ' ')}`);
    }
    await opts.service.heard(verdict.region);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw refuse('invalid_json', 'the body is not JSON');
    }
    // Both routes read members of an object: `null`, a list or a string would fail as a 500.
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse('validation_failed', 'the body is a JSON object');
    return { region: verdict.region, body };
  }

  app.post('/federation/v1/requests', { bodyLimit: FEDERATION_BODY_LIMIT, schema: { hide: true, response: { 201: Answer } } }, async (request, reply) => {
    const { region, body } = await sender(request);
    const asked = body as { owner?: unknown; subscriber?: unknown; message?: unknown };
    // The subscriber becomes a stand-in here under exactly this name: one a region could give (never empty, never `name@region`).
    if (!isName(asked.owner) || !isName(asked.subscriber) || asked.subscriber.includes('@') || (asked.message !== null && asked.message !== undefined && typeof asked.message !== 'string')) {
      throw refuse('validation_failed', 'owner and subscriber are usernames, message a string or null');
    }
    const answer = await opts.service.requested(region, { owner: asked.owner, subscriber: asked.subscriber, message: (asked.message as string | null | undefined) ?? null });
    reply.code(201);
    return answer;
  });

  app.post('/federation/v1/deliveries', { bodyLimit: FEDERATION_BODY_LIMIT, schema: { hide: true, response: { 200: Answer } } }, async (request) => {
    const { region, body } = await sender(request);
    const deliveries = (body as { deliveries?: unknown }).deliveries;
    if (!Array.isArray(deliveries)) throw refuse('validation_failed', 'deliveries is a list');
    // In order (per owner, the order the changes committed in); each on its own, so one refused
    // (a subject that is not between these regions) neither stops nor undoes the others.
    const results: Array<{ status: 'applied' | 'unchanged' | 'refused'; code?: string }> = [];
    for (const delivery of deliveries as unknown[]) {
      if (!isDelivery(delivery)) {
        results.push({ status: 'refused', code: 'validation_failed' });
        continue;
      }
      try {
        results.push({ status: await opts.service.apply(region, delivery) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        results.push({ status: 'refused', code: error.code });
      }
    }
    return { results };
  });
}
