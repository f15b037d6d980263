// Helpers for the social-layer suites: people with fields and profiles, subscriptions through
// the real API, and the signals each account received.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp } from './app.js';
import type { TestApp } from './app.js';
import type { TestBackend } from './backends.js';
import { uniqueName } from './client.js';
import type { CallResult, Device } from './client.js';

export const API = '/api/v1';

export function social(t: TestApp) {
  const post = (device: Device, path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.client.as(device, 'POST', `${API}${path}`, { body, headers: { 'idempotency-key': randomUUID(), ...headers } });

  async function created(res: CallResult): Promise<any> {
    assert.ok(res.status === 201 || res.status === 200, `expected 201, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  return {
    post,
    get: (device: Device, path: string, headers: Record<string, string> = {}) => t.client.as(device, 'GET', `${API}${path}`, { headers }),

    async person(prefix: string): Promise<Device> {
      return t.client.signUp(uniqueName(prefix));
    },
    field: async (device: Device, body: unknown) => created(await post(device, '/me/fields', body)),
    profile: async (device: Device, name: string, isPublic = false) => created(await post(device, '/profiles', { name, public: isPublic })),
    expose: async (device: Device, profileId: string, fieldId: string, body: unknown = {}) =>
      created(await t.client.as(device, 'PUT', `${API}/profiles/${profileId}/exposures/${fieldId}`, { body })),
    subscribe: (subscriber: Device, owner: Device, message?: string) => post(subscriber, '/contacts', { username: owner.username, ...(message ? { message } : {}) }),
    approve: (owner: Device, id: string, profileId: string) => post(owner, `/subscriptions/${id}/approve`, { profile_id: profileId }),

    /** Subscribes and approves onto a profile: an active contact; returns its id. */
    async connect(subscriber: Device, owner: Device, profileId: string): Promise<string> {
      const request = await created(await post(subscriber, '/contacts', { username: owner.username }));
      await created(await post(owner, `/subscriptions/${request.id}/approve`, { profile_id: profileId }));
      return request.id as string;
    },

    /** The kind and resource of every signal an account holds, in order. */
    async signals(device: Device): Promise<Array<[string, string]>> {
      const rows = await t.store.handle.db.selectFrom('events').select(['kind', 'resource']).where('account_id', '=', device.accountId).orderBy('seq').execute();
      return rows.map((r: { kind: string; resource: string }) => [r.kind, r.resource]);
    },
  };
}

export type Social = ReturnType<typeof social>;

/** A suite's server on one backend and its people helpers, started once for the suite. */
export async function startSocialApp(backend: TestBackend): Promise<{ t: TestApp; s: Social }> {
  const t = await startTestApp(backend);
  return { t, s: social(t) };
}
