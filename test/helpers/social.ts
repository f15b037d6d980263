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
  /** Per account, where its feed was last read and what it has carried (signals() below). */
  const feeds = new Map<string, { cursor: string | undefined; all: Array<[string, string]> }>();
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

    /** The account's own signal log (the events table), e.g. of a device whose session was revoked. */
    async ownSignals(device: Device): Promise<Array<[string, string]>> {
      const rows = await t.store.handle.db.selectFrom('events').select(['kind', 'resource']).where('account_id', '=', device.accountId).orderBy('seq').execute();
      return rows.map((r: { kind: string; resource: string }) => [r.kind, r.resource]);
    },

    /**
     * The kind and resource of every signal an account's feed has carried so far, in order, as a
     * client polling GET /events after its last cursor saw them: its own signals and the edits
     * of the cards it receives (decision 220). Several edits of one card between two calls are
     * one signal, as for any client that polls less often than the owner edits.
     */
    async signals(device: Device): Promise<Array<[string, string]>> {
      const seen = feeds.get(device.accountId) ?? { cursor: undefined as string | undefined, all: [] as Array<[string, string]> };
      feeds.set(device.accountId, seen);
      for (;;) {
        const res = await t.client.as(device, 'GET', `${API}/events?limit=200${seen.cursor ? `&since=${seen.cursor}` : ''}`);
        if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${JSON.stringify(res.body)}`);
        seen.all.push(...res.body.data.map((signal: { kind: string; resource: string }) => [signal.kind, signal.resource] as [string, string]));
        seen.cursor = res.body.next_cursor;
        if (!res.body.has_more) return [...seen.all];
      }
    },
  };
}

export type Social = ReturnType<typeof social>;

/** A suite's server on one backend and its people helpers, started once for the suite. */
export async function startSocialApp(backend: TestBackend): Promise<{ t: TestApp; s: Social }> {
  const t = await startTestApp(backend);
  return { t, s: social(t) };
}
