import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { optionalIfMatch, requireIfMatch, setEtag, versionOf } from '../../platform/http/preconditions.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { NoContent, PageOf, PageQuery, problem, ref } from '../../platform/http/schemas.js';
import { BundleBody, ContactIdParams, ContactKeySchema, KeyBundleSchema, KeyShareSchema, MethodIdParams, ShareBody } from './schemas.js';
import type { KeyService } from './service.js';

const stale = problem('It changed since you read it, or If-Match names no version of it (version_mismatch)');
const noIfMatch = problem('If-Match is missing (precondition_required)');
const noBundle = problem('No passkey of yours has this id (method_not_found), or it has no bundle yet (key_bundle_not_found)');
const noShare = problem('No server share is stored (key_share_not_found)');


/** Key material is never worth a cached copy anywhere (RFC 9111 §5.2.2.5). */
const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');

/** Keys (PRODUCT §7): device bundles, a contact's bundles, the server share. */
export async function keyRoutes(app: FastifyInstance, opts: { keys: KeyService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { keys } = opts;
  const tags = ['keys'];

  r.get('/keys/devices', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Your devices\' key bundles', description: 'One per passkey that has one, oldest first.', querystring: PageQuery, response: { 200: PageOf(ref(KeyBundleSchema), 'KeyBundlePage') } },
  }, async (request, reply) => {
    noStore(reply);
    return keys.devices.list(callerOf(request), request.query.cursor, request.query.limit ?? 50);
  });

  r.get('/keys/devices/:method_id', {
    config: { auth: 'session' },
    schema: { tags, summary: 'One device\'s key bundle', params: MethodIdParams, response: { 200: ref(KeyBundleSchema), 404: noBundle } },
  }, async (request, reply) => {
    const bundle = await keys.devices.get(callerOf(request), request.params.method_id);
    setEtag(noStore(reply), bundle.version);
    return bundle;
  });

  r.put('/keys/devices/:method_id', {
    config: { ifMatch: 'optional', auth: 'session' },
    schema: {
      tags,
      summary: 'Store a device\'s key bundle',
      description:
        '`method_id` is one of your passkeys. The first PUT creates the bundle (201, no If-Match); later ones replace it and need If-Match ' +
        '(428 without, 412 when stale). The bundle is opaque base64url of at most 8192 characters (else 400 invalid_key_bundle): stored, ' +
        'handed to your active contacts, never read. It goes when its passkey is removed. Your devices get keys.changed, your active ' +
        'subscribers contact.keys.changed; the same bundle again changes nothing.',
      params: MethodIdParams,
      body: BundleBody,
      response: {
        200: ref(KeyBundleSchema),
        201: ref(KeyBundleSchema),
        400: problem('Not opaque base64url, or longer than 8192 characters (invalid_key_bundle); or another malformed request'),
        404: problem('No passkey of yours has this id (method_not_found)'),
        412: stale,
        428: problem('The bundle exists: send If-Match (precondition_required)'),
      },
    },
  }, async (request, reply) => {
    const { method_id: methodId } = request.params;
    const { created, bundle } = await keys.devices.put(callerOf(request), methodId, await optionalIfMatch(request, versionOf(() => keys.devices.get(callerOf(request), methodId))), request.body.bundle);
    setEtag(noStore(reply), bundle.version);
    if (created) reply.header('Location', `${API_PREFIX}/keys/devices/${encodeURIComponent(methodId)}`);
    return reply.code(created ? 201 : 200).send(bundle);
  });

  r.delete('/keys/devices/:method_id', {
    config: { ifMatch: 'required', auth: 'session' },
    schema: {
      tags,
      summary: 'Delete a device\'s key bundle',
      description: 'Needs If-Match. Your devices get keys.changed, your active subscribers contact.keys.changed.',
      params: MethodIdParams,
      response: { 204: NoContent, 404: noBundle, 412: stale, 428: noIfMatch },
    },
  }, async (request, reply) => {
    await keys.devices.remove(callerOf(request), request.params.method_id, await requireIfMatch(request, versionOf(() => keys.devices.get(callerOf(request), request.params.method_id))));
    return reply.code(204).send(null);
  });

  r.get('/contacts/:id/keys', {
    config: { auth: 'session' },
    schema: {
      tags: ['keys', 'contacts'],
      summary: 'A contact\'s device key bundles',
      description:
        'The bundles of the person you subscribe to, oldest first, while the contact is active (else 403 contact_not_active). Each `id` is ' +
        'opaque and stays while the bundle lives; it is never their passkey\'s id. contact.keys.changed says when to pull again.',
      params: ContactIdParams,
      querystring: PageQuery,
      response: {
        200: PageOf(ref(ContactKeySchema), 'ContactKeyPage'),
        403: problem('The contact is not active (contact_not_active)'),
        404: problem('You have no contact with this id (contact_not_found)'),
        410: problem('The contact\'s account is deleted; its keys are back if they restore it (account_deleted)'),
      },
    },
  }, async (request, reply) => {
    noStore(reply);
    return keys.contactKeys(callerOf(request), request.params.id, request.query.cursor, request.query.limit ?? 50);
  });

  r.get('/keys/share', {
    config: { auth: 'session', stepUp: true },
    schema: { tags, summary: 'The server\'s share of your split secret (step-up)', response: { 200: ref(KeyShareSchema), 404: noShare } },
  }, async (request, reply) => {
    const share = await keys.share.get(callerOf(request));
    setEtag(noStore(reply), share.version);
    return share;
  });

  r.put('/keys/share', {
    config: { ifMatch: 'optional', auth: 'session', stepUp: true },
    schema: {
      tags,
      summary: 'Store the server\'s share of your split secret (step-up)',
      description:
        'The first PUT creates it (201, no If-Match); later ones replace it and need If-Match (428 without, 412 when stale). Opaque base64url ' +
        'of at most 8192 characters (else 400 invalid_key_share), never read, never exported. Only your devices are told (keys.changed).',
      body: ShareBody,
      response: {
        200: ref(KeyShareSchema),
        201: ref(KeyShareSchema),
        400: problem('Not opaque base64url, or longer than 8192 characters (invalid_key_share); or another malformed request'),
        412: stale,
        428: problem('The share exists: send If-Match (precondition_required)'),
      },
    },
  }, async (request, reply) => {
    const { created, share } = await keys.share.put(callerOf(request), await optionalIfMatch(request, versionOf(() => keys.share.get(callerOf(request)))), request.body.share);
    setEtag(noStore(reply), share.version);
    if (created) reply.header('Location', `${API_PREFIX}/keys/share`);
    return reply.code(created ? 201 : 200).send(share);
  });

  r.delete('/keys/share', {
    config: { ifMatch: 'required', auth: 'session', stepUp: true },
    schema: { tags, summary: 'Delete the server\'s share of your split secret (step-up)', description: 'Needs If-Match.', response: { 204: NoContent, 404: noShare, 412: stale, 428: noIfMatch } },
  }, async (request, reply) => {
    await keys.share.remove(callerOf(request), await requireIfMatch(request, versionOf(() => keys.share.get(callerOf(request)))));
    return reply.code(204).send(null);
  });
}
