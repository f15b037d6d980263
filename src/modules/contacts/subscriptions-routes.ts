import { canonicalPerson } from '../../platform/person-name.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { setEtag } from '../../platform/http/preconditions.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { BlockBody, BlockSchema, IdParams, ProfileBody, SubscriptionSchema, SubscriptionsQuery, UsernameParams } from './schemas.js';
import type { SubscriptionService } from './subscriptions.js';

/** The owner's side: requests and subscribers (PRODUCT §4). */
export async function subscriptionRoutes(app: FastifyInstance, opts: { subscriptions: SubscriptionService; canonicalOf(username: string): string | undefined; region: string }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { subscriptions } = opts;
  const tags = ['subscriptions'];

  r.get('/subscriptions', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Subscriptions to you', description: '`status` narrows the list (pending: requests waiting for you).', querystring: SubscriptionsQuery, response: { 200: PageOf(ref(SubscriptionSchema), 'SubscriptionPage') } },
  }, async (request) => subscriptions.list(callerOf(request), request.query.status, request.query.cursor, request.query.limit ?? 50));

  r.get('/subscriptions/:id', {
    config: { auth: 'session', refusals: [['subscription_not_found', 'no subscription to you has this id']] },
    schema: { tags, summary: 'One subscription to you', description: 'One request or subscription of someone who follows you (or asked to): who, its status and the profile they see.', params: IdParams, response: { 200: ref(SubscriptionSchema) } },
  }, async (request, reply) => {
    const subscription = await subscriptions.get(callerOf(request), request.params.id);
    setEtag(reply, subscription.version);
    return subscription;
  });

  r.post('/subscriptions/:id/approve', {
    config: { auth: 'session', idempotency: 'required', refusals: [['subscription_not_found', 'no subscription to you has this id'], ['profile_not_found', 'no profile of yours has this id'], ['invalid_transition', 'the subscription is not in a state this allows']] },
    schema: {
      tags,
      summary: 'Approve a request onto one of your profiles',
      description: 'pending → active: from now on the subscriber sees that profile\'s card.',
      params: IdParams,
      body: ProfileBody,
      response: { 200: ref(SubscriptionSchema) },
    },
  }, async (request) => subscriptions.approve(callerOf(request), request.params.id, request.body.profile_id));

  r.post('/subscriptions/:id/deny', {
    config: { auth: 'session', idempotency: 'optional', refusals: [['subscription_not_found', 'no subscription to you has this id'], ['invalid_transition', 'the subscription is not in a state this allows']] },
    schema: { tags, summary: 'Deny a request', description: 'pending → denied; `block` keeps them from asking again.', params: IdParams, body: BlockBody, response: { 200: ref(SubscriptionSchema) } },
  }, async (request) => subscriptions.deny(callerOf(request), request.params.id, request.body.block ?? false));

  r.post('/subscriptions/:id/move', {
    config: { auth: 'session', idempotency: 'optional', refusals: [['subscription_not_found', 'no subscription to you has this id'], ['profile_not_found', 'no profile of yours has this id'], ['invalid_transition', 'the subscription is not in a state this allows']] },
    schema: {
      tags,
      summary: 'Show a subscriber another profile',
      description: 'active → active on another profile: their card changes and they are told (contact.card.changed).',
      params: IdParams,
      body: ProfileBody,
      response: { 200: ref(SubscriptionSchema) },
    },
  }, async (request) => subscriptions.move(callerOf(request), request.params.id, request.body.profile_id));

  r.post('/subscriptions/:id/revoke', {
    config: { auth: 'session', idempotency: 'optional', refusals: [['subscription_not_found', 'no subscription to you has this id'], ['invalid_transition', 'the subscription is not in a state this allows']] },
    schema: { tags, summary: 'Revoke a subscriber', description: 'active → revoked: they no longer get your card; `block` keeps them from asking again.', params: IdParams, body: BlockBody, response: { 200: ref(SubscriptionSchema) } },
  }, async (request) => subscriptions.revoke(callerOf(request), request.params.id, request.body.block ?? false));

  r.get('/blocks', {
    config: { auth: 'session' },
    schema: { tags, summary: 'People you blocked', description: 'The people you blocked, a page at a time (limit and cursor): they cannot ask to follow you until unblocked.', querystring: PageQuery, response: { 200: PageOf(BlockSchema, 'BlockPage') } },
  }, async (request) => subscriptions.blocks(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.delete('/blocks/:username', {
    config: { auth: 'session', refusals: [['block_not_found', 'you have not blocked this person']] },
    schema: { tags, summary: 'Unblock someone', description: 'They may ask to follow you again. 404 block_not_found when you have not blocked that username.', params: UsernameParams, response: { 204: NoContent } },
  }, async (request, reply) => {
    // Someone of another region is unblocked by username@region, as they were followed (decision 352).
    await subscriptions.unblock(callerOf(request), request.params.username, canonicalPerson(request.params.username, opts.region, opts.canonicalOf));
    return reply.code(204).send(null);
  });
}
