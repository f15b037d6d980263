import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ExportSection } from '../../platform/account-data.js';
import { callerOf } from '../../platform/http/caller.js';
import { ref } from '../../platform/http/schemas.js';
import { MeSchema } from '../me/schemas.js';
import { AccountDeletionSchema, DeletionTermsSchema, accountExportSchema } from './schemas.js';
import type { LifecycleService } from './lifecycle.js';

/** Export, delete, undelete (PRODUCT §8). */
export async function accountRoutes(
  app: FastifyInstance,
  opts: { lifecycle: LifecycleService; sections: readonly ExportSection[]; exportDocument(accountId: string): AsyncIterable<string> },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/account/export', {
    config: { auth: 'session', stepUp: true, openWhileDeleted: true },
    schema: {
      tags: ['lifecycle'],
      summary: 'Download everything stored about your account',
      description: 'A JSON attachment, streamed. No secrets: `left_out` lists what is kept out and why. Works while the account is deleted.',
      response: { 200: accountExportSchema(opts.sections) },
    },
  }, async (request, reply) => {
    const account = callerOf(request).account;
    const day = new Date().toISOString().slice(0, 10);
    // RFC 6266: the username may hold any letter; the fallback name is ASCII.
    const ascii = account.username_canonical.replace(/[^A-Za-z0-9._-]/g, '_');
    reply
      .header('Content-Disposition', `attachment; filename="vid-export-${ascii}-${day}.json"; filename*=UTF-8''${encodeURIComponent(`vid-export-${account.username}-${day}.json`)}`)
      .header('Cache-Control', 'no-store')
      .type('application/json; charset=utf-8');
    return reply.send(Readable.from(opts.exportDocument(account.id)));
  });

  r.get('/account/deletion-terms', {
    config: { auth: 'session', openWhileDeleted: true },
    schema: {
      tags: ['lifecycle'],
      summary: 'What deleting your account means here: the days to restore it, the days your username stays held',
      description: 'The operator sets both (ACCOUNT_GRACE_DAYS, USERNAME_HOLD_DAYS); a client shows them before asking for the confirmation. Works while the account is deleted.',
      response: { 200: ref(DeletionTermsSchema) },
    },
  }, async () => opts.lifecycle.terms());

  r.delete('/account', {
    config: { auth: 'session', stepUp: true },
    schema: {
      tags: ['lifecycle'],
      summary: 'Delete your account (restorable until purge_at)',
      description:
        'Every other session is revoked, your public card and share links stop working, subscribers see `unavailable`. Until purge_at you can sign in and restore it (POST /account/undelete); after that it is erased and your username held for a while.',
      response: { 202: ref(AccountDeletionSchema) },
    },
  }, async (request, reply) => reply.code(202).send(await opts.lifecycle.remove(callerOf(request), await request.client())));

  r.post('/account/undelete', {
    config: { auth: 'session', openWhileDeleted: true, refusals: ['account_not_deleted'] },
    schema: {
      tags: ['lifecycle'],
      summary: 'Restore your deleted account',
      description: 'Everything comes back as it was (other devices sign in again); subscribers see your card again.',
      response: { 200: ref(MeSchema) },
    },
  }, async (request) => opts.lifecycle.restore(callerOf(request), await request.client()));
}
