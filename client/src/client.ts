// createVidClient: the API with the hard parts done (see ../README.md). Types come from the
// OpenAPI document; the pipeline (proofs, renewal, retries) is in http.ts.
import type {
  AccountDeletion,
  AccountExport,
  DeletionTerms,
  Annotation,
  AuthenticationCredential,
  Card,
  Contact,
  Photo,
  ContactKey,
  Field,
  FieldChanges,
  FieldTypeKey,
  FieldValues,
  KeyBundle,
  KeyShare,
  ShareLink,
  Subscription,
  Exposure,
  Profile,
  CreateCredential,
  GetAssertion,
  HttpMethod,
  ItemOf,
  Me,
  Operation,
  PathParams,
  PathsWith,
  QueryParams,
  RegistrationCredential,
  RequestBody,
  ResponseBody,
  SecurityLogEntry,
  Session,
  Tokens,
  UsernameCheckResult,
} from './api.js';
import { createDpopKey, publicJwk, thumbprint } from './dpop.js';
import { isProblem, type VidProblemError } from './errors.js';
import { createEvents } from './events.js';
import { Transport } from './http.js';
import type { CallOptions, FetchLike, VidResponse } from './http.js';
import { paginate } from './pagination.js';
import type { Page, Paginated } from './pagination.js';
import { DEFAULT_RETRY, defaultSleep } from './retry.js';
import type { RetryHook, RetryPolicy, Sleep } from './retry.js';
import { memoryStorage } from './storage.js';
import type { VidStorage } from './storage.js';

/** How a client is made: where the API is, and where the device key and the session live. */
export interface VidClientOptions {
  /** The API base URL, e.g. https://id.example.com/api/v1. */
  baseUrl: string;
  /** Where the device key and the session live. Default: memory (this process or tab only). */
  storage?: VidStorage;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** Milliseconds since the epoch, for proofs' iat and token expiry. Default: Date.now. */
  now?: () => number;
  /** Waits between retries. Default: setTimeout. */
  sleep?: Sleep;
  /** Retry limits for every call (a call's own `retry` goes over them). Default 3 retries, waits up to 60 s. */
  retry?: Partial<RetryPolicy>;
  /**
   * Told before every wait for a retry (429/503 with Retry-After, a network error): say "trying
   * again in 40 s" to the person. Return false to give up: the call throws the problem at once.
   */
  onRetry?: RetryHook;
  /** Renew this many seconds before the access token expires (at most a quarter of its lifetime). Default 60. */
  renewBeforeSeconds?: number;
  /** The session is gone (logout, revoked, refresh refused): show the sign-in screen. */
  onSessionEnded?: (reason: VidProblemError | undefined) => void;
  /**
   * Told after every POST, PUT, PATCH or DELETE made through `request`/`send` (and the helpers on
   * them) that the server accepted, with the concrete path it changed; the call answers once what
   * this returns has settled. Give it a resource cache's `changed` so a view shows the person's own
   * change at once, through the same map as signals, before the signal arrives. Its failures are ignored.
   */
  onChanged?: (path: string, method: HttpMethod) => unknown;
}

export type { CreateCredential, GetAssertion };

/** The operation of `method` on `path`, in the order `request` names them. */
export type Op<M extends HttpMethod, P extends PathsWith<M>> = Operation<P, M>;

/** Options of `request`/`send`: path parameters, query and body typed from the OpenAPI document. */
export type RequestArgs<M extends HttpMethod, P extends PathsWith<M>> = CallOptions & {
  params?: PathParams<Op<M, P>>;
  query?: QueryParams<Op<M, P>>;
  body?: RequestBody<Op<M, P>>;
};

/** The current session, as `session()` answers it. */
export interface SessionInfo {
  sessionId: string;
  trusted: boolean;
  /** When the access token expires (ms); the client renews it before. */
  expiresAt: number;
}

/** A client, as `createVidClient` makes it. */
export type VidClient = ReturnType<typeof createVidClient>;

/** A client of one VID server: DPoP, renewal, Idempotency-Key, If-Match and retries are its business (README). */
export function createVidClient(options: VidClientOptions) {
  const transport = new Transport({
    baseUrl: options.baseUrl,
    storage: options.storage ?? memoryStorage(),
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now: options.now ?? (() => Date.now()),
    sleep: options.sleep ?? defaultSleep,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    renewBeforeMs: (options.renewBeforeSeconds ?? 60) * 1000,
    onSessionEnded: options.onSessionEnded,
    onRetry: options.onRetry,
  });
  const { storage } = transport.config;

  /** Any operation of the API, typed from the OpenAPI document; answers the whole response. */
  function send<M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, args: RequestArgs<M, P> = {}): Promise<VidResponse<ResponseBody<Op<M, P>>>> {
    const { params, query, body, ...call } = args;
    const filled = fillPath(path, params as Record<string, string> | undefined);
    return told(method, filled, transport.send<ResponseBody<Op<M, P>>>({ ...call, method, path: filled, query: query as never, body }));
  }

  /** A change the server accepted is told to `onChanged` before the call answers. */
  function told<T>(method: HttpMethod, path: string, sent: Promise<T>): Promise<T> {
    const { onChanged } = options;
    if (!onChanged || method === 'GET') return sent;
    return sent.then(async (response) => {
      try {
        await onChanged(path, method);
      } catch {
        // What a view shows is brought up to date by the next signal anyway.
      }
      return response;
    });
  }

  /** Any operation of the API; answers the parsed body. Throws VidProblemError on refusal. */
  async function request<M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, args: RequestArgs<M, P> = {}): Promise<ResponseBody<Op<M, P>>> {
    return (await send(method, path, args)).data;
  }

  /** Iterates a list endpoint (`{data, next_cursor, has_more}`) page by page. */
  function list<P extends PathsWith<'GET'>>(path: P, args: RequestArgs<'GET', P> = {}): Paginated<ItemOf<Op<'GET', P>>> {
    return paginate(async (cursor) => {
      const query = { ...(args.query as object), ...(cursor ? { cursor } : {}) } as never;
      return (await request('GET', path, { ...args, query })) as unknown as Page<ItemOf<Op<'GET', P>>>;
    });
  }

  const events = createEvents(transport);

  /** GET a card with If-None-Match from the copy held; a 304 hands back that same copy. */
  async function cardsGet(path: CardPath, held?: HeldCard, call?: CallOptions): Promise<HeldCard & { changed: boolean }> {
    const headers = { ...call?.headers, ...(held ? { 'if-none-match': held.etag } : {}) };
    const response = await transport.send<Card>({ ...call, headers, method: 'GET', path, ...(path.startsWith('/public/') ? { auth: 'none' as const } : {}) });
    if (response.status === 304 && held) return { ...held, changed: false };
    return { card: response.data, etag: response.headers.get('etag') ?? '', changed: true };
  }

  return {
    /** Any operation of the API, typed from the OpenAPI document; answers the parsed body. */
    request,
    /** Like `request`, but answers `{ status, headers, data }`. */
    send,
    /** Iterates any list endpoint (`{data, next_cursor, has_more}`) page by page. */
    list,

    /** Usernames before sign-up. */
    usernames: {
      /** Availability as the person types; reserves nothing. */
      check: (username: string, call?: CallOptions): Promise<UsernameCheckResult> =>
        request('POST', '/auth/username/check', { ...call, body: { username }, auth: 'none', idempotent: true }),
    },

    /** Sign-up: creation options, the authenticator, then an account and a session bound to a new device key. */
    async register(input: { username: string; createCredential: CreateCredential; signal?: AbortSignal }) {
      const { username, signal } = input;
      const begin = await request('POST', '/auth/register/begin', { body: { username }, auth: 'none', idempotent: true, signal });
      const credential = await input.createCredential(begin.options);
      const key = await createDpopKey();
      const body: RequestBody<Op<'POST', '/auth/register/finish'>> = { ceremony_id: begin.ceremony_id, username, credential: credential as RegistrationCredential };
      // The proof is made by the new key, which the session is then bound to.
      const { data: done } = await transport.send<ResponseBody<Op<'POST', '/auth/register/finish'>>>({
        method: 'POST', path: '/auth/register/finish', body, auth: 'proof', key, signal,
      });
      await transport.adopt(done.tokens, key);
      transport.versions.set('/me', `"${done.account.version}"`);
      return done;
    },

    /** Discoverable sign-in: the authenticator offers its passkeys; the session binds a new device key. */
    async login(input: { getAssertion: GetAssertion; signal?: AbortSignal }): Promise<Tokens> {
      const { signal } = input;
      const begin = await request('POST', '/auth/login/begin', { auth: 'none', idempotent: true, signal });
      const credential = await input.getAssertion(begin.options);
      const key = await createDpopKey();
      const body: RequestBody<Op<'POST', '/auth/login/finish'>> = { ceremony_id: begin.ceremony_id, credential: credential as AuthenticationCredential };
      const { data: tokens } = await transport.send<Tokens>({ method: 'POST', path: '/auth/login/finish', body, auth: 'proof', key, signal });
      await transport.adopt(tokens, key);
      return tokens;
    },

    /** Revokes this session on the server (when reachable) and forgets it here. */
    async logout(call?: CallOptions): Promise<void> {
      try {
        if (await storage.getSession()) await request('POST', '/auth/logout', { ...call, idempotencyKey: false });
      } catch (error) {
        if (!isProblem(error) || error.status !== 401) throw error;
      } finally {
        await transport.endSession();
        await storage.setKey(undefined);
      }
    },

    /** Keeps tokens obtained outside register/login (e.g. /auth/join/finish), bound to the current device key. */
    useTokens: async (tokens: Tokens): Promise<void> => {
      await transport.adopt(tokens);
    },

    /** Renews now (normally automatic: ahead of expiry and once on a 401 invalid_token). */
    renew: async (): Promise<void> => {
      await transport.renew();
    },

    /** The current session, or undefined when signed out. */
    async session(): Promise<SessionInfo | undefined> {
      const session = await storage.getSession();
      return session && { sessionId: session.sessionId, trusted: session.trusted, expiresAt: session.expiresAt };
    },

    /** RFC 7638 thumbprint of the device key (the `jkt` the session is bound to), creating the key if needed. */
    async jkt(): Promise<string> {
      return thumbprint(await publicJwk((await transport.key(true))!));
    },

    /** The signed-in account. */
    me: {
      /** GET /me; remembers its version for the next patch. */
      get: (call?: CallOptions): Promise<Me> => request('GET', '/me', call),
      /** PATCH /me with If-Match from the last version seen (or `ifMatch`). */
      patch: (changes: RequestBody<Op<'PATCH', '/me'>>, call?: CallOptions): Promise<Me> =>
        request('PATCH', '/me', { idempotent: true, ...call, body: changes }),
    },

    /** The account's signed-in devices. */
    sessions: {
      /** Your live sessions, following cursors: `for await (const s of sessions.list())`, or `.pages()`. */
      list: (query: { limit?: number } = {}, call?: CallOptions): Paginated<Session> => list('/auth/sessions', { ...call, query }),
      /** Revokes one session; revoking this one signs this client out. */
      async revoke(id: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/auth/sessions/{id}', { ...call, params: { id } });
        if ((await storage.getSession())?.sessionId === id) await transport.endSession();
      },
    },

    /** What happened to the account, newest first: sign-ins, passkeys, apps, recovery, revocations. */
    securityLog: {
      /** `for await (const entry of securityLog.list())`, or `.pages()` to show a page at a time. */
      list: (query: { limit?: number } = {}, call?: CallOptions): Paginated<SecurityLogEntry> => list('/auth/security-log', { ...call, query }),
    },

    /**
     * Cards (the preview, a contact's card, a public card) are pulled with If-None-Match from the
     * copy held: the server answers 304 while it is current, and this returns that same copy.
     */
    cards: {
      /** A card by path, with If-None-Match from `held`: `changed: false` and the same copy on a 304. */
      get: cardsGet,
    },

    /** Profiles (PRODUCT §3): audiences, each showing some of your fields. */
    profiles: {
      /** Your profiles, in the order you made them. */
      list: (call?: CallOptions): Paginated<Profile> => list('/profiles', { ...call }),
      /** One profile; remembers its version for the next update. */
      get: (id: string, call?: CallOptions): Promise<Profile> => request('GET', '/profiles/{id}', { ...call, params: { id } }),
      /** A new profile (an audience), showing nothing yet. */
      create: (body: RequestBody<Op<'POST', '/profiles'>>, call?: CallOptions): Promise<Profile> => request('POST', '/profiles', { ...call, body }),
      /** PATCH with If-Match from the last version seen (or `ifMatch`). */
      update: (id: string, body: RequestBody<Op<'PATCH', '/profiles/{id}'>>, call?: CallOptions): Promise<Profile> =>
        request('PATCH', '/profiles/{id}', { idempotent: true, ...call, params: { id }, body }),
      /** DELETE with If-Match; `moveTo` moves its subscribers to another profile first. */
      async remove(id: string, options: { moveTo?: string } & CallOptions = {}): Promise<void> {
        const { moveTo, ...call } = options;
        await request('DELETE', '/profiles/{id}', { ...call, params: { id }, ...(moveTo ? { query: { move_to: moveTo } } : {}) });
      },
      /** Every field the profile shows, in its order (the list's pages followed: a profile shows at most 200). */
      async exposures(id: string, call?: CallOptions): Promise<Exposure[]> {
        const all: Exposure[] = [];
        for await (const exposure of list('/profiles/{id}/exposures', { ...call, params: { id }, query: { limit: 200 } })) all.push(exposure);
        return all;
      },
      /** Shows a field in the profile (or changes its label or place); answers the exposure. */
      expose: (id: string, fieldId: string, body: RequestBody<Op<'PUT', '/profiles/{id}/exposures/{field_id}'>> = {}, call?: CallOptions): Promise<Exposure> =>
        request('PUT', '/profiles/{id}/exposures/{field_id}', { ifMatch: false, ...call, params: { id, field_id: fieldId }, body }),
      /** Stops showing a field in the profile (the field itself stays). */
      async hide(id: string, fieldId: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/profiles/{id}/exposures/{field_id}', { ifMatch: false, ...call, params: { id, field_id: fieldId } });
      },
    },

    /**
     * Your photos (PRODUCT §2): upload one (the server keeps only its own square JPEGs), show it
     * through a field of type photo, and read any photo a card shows you as a Blob (DPoP cannot
     * ride on an <img>: show it from URL.createObjectURL; a card's 64 px thumbnail needs no call).
     */
    photos: {
      /**
       * POST /me/photos: the image's bytes with its media type (image/jpeg, image/png, image/webp,
       * image/avif); `crop` is the square to keep, in pixels of the upright picture (else the centre).
       */
      upload: (image: Blob | Uint8Array, options: { type: string; crop?: { x: number; y: number; size: number } } & CallOptions): Promise<Photo> => {
        const { type, crop, ...call } = options;
        const query = crop ? { crop: `${Math.round(crop.x)},${Math.round(crop.y)},${Math.round(crop.size)}` } : undefined;
        return told('POST', '/me/photos', transport.send<Photo>({ ...call, method: 'POST', path: '/me/photos', query, bytes: { data: image, type } }))
          .then((response) => response.data);
      },
      /** Your photos, oldest first. */
      list: (call?: CallOptions): Paginated<Photo> => list('/me/photos', { ...call }),
      /** Deletes a photo and every field that shows it: every card that showed it changes. */
      async remove(id: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/me/photos/{id}', { ...call, params: { id } });
      },
      /** A photo's bytes in one size (64, 256 or 512), if a card shows it to you (else 404). */
      async image(id: string, size: 64 | 256 | 512 = 256, call?: CallOptions): Promise<Blob> {
        const response = await transport.exchange({ ...call, method: 'GET', path: `/photos/${encodeURIComponent(id)}`, query: { size } });
        return response.blob();
      },
    },

    /** The people you subscribe to (PRODUCT §4), their cards and your private annotations (§5). */
    contacts: {
      /** The people you follow (`status` keeps one state, `label` one of your labels). */
      list: (query: QueryParams<Op<'GET', '/contacts'>> = {}, call?: CallOptions): Paginated<Contact> => list('/contacts', { ...call, query }),
      /** One contact. */
      get: (id: string, call?: CallOptions): Promise<Contact> => request('GET', '/contacts/{id}', { ...call, params: { id } }),
      /** Asks to follow someone by username, with an optional message; pending until they approve. */
      subscribe: (username: string, message?: string, call?: CallOptions): Promise<Contact> => request('POST', '/contacts', { ...call, body: { username, ...(message ? { message } : {}) } }),
      /** Unsubscribes (pending or active), or removes an ended contact from the list. */
      async remove(id: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/contacts/{id}', { ...call, params: { id } });
      },
      /** The card, pulled with If-None-Match from the copy held (see cards.get). */
      card: (id: string, held?: HeldCard, call?: CallOptions) => cardsGet(`/contacts/${id}/card`, held, call),
      /** One contact's vCard text; 3.0 for phones' address books. */
      vcard: (id: string, version: '3.0' | '4.0' = '3.0', call?: CallOptions): Promise<string> =>
        request('GET', '/contacts/{id}/vcard', { ...call, params: { id }, query: { version } }) as Promise<string>,
      /** Every active contact in one vCard file. */
      allVcards: (version: '3.0' | '4.0' = '3.0', call?: CallOptions): Promise<string> => request('GET', '/contacts/vcard', { ...call, query: { version } }) as Promise<string>,
      /** Your private note and labels on a contact. */
      annotation: {
        /** Your note and labels on a contact (404 annotation_not_found when there are none). */
        get: (id: string, call?: CallOptions): Promise<Annotation> => request('GET', '/contacts/{id}/annotation', { ...call, params: { id } }),
        /** Creates it (no If-Match the first time) or updates it (If-Match from the last read). */
        put: (id: string, body: RequestBody<Op<'PUT', '/contacts/{id}/annotation'>>, call?: CallOptions): Promise<Annotation> =>
          request('PUT', '/contacts/{id}/annotation', { ...call, params: { id }, body }),
        /** Deletes your note and labels on a contact. */
        async remove(id: string, call?: CallOptions): Promise<void> {
          await request('DELETE', '/contacts/{id}/annotation', { ...call, params: { id } });
        },
      },
      /** Every label with its count, following the list's pages. */
      labels: (call?: CallOptions) => list('/labels', { ...call }).toArray(),
      /** The device key bundles of an active contact (opaque ids, never their passkeys'); pull again on contact.keys.changed. */
      keys: (id: string, call?: CallOptions): Paginated<ContactKey> => list('/contacts/{id}/keys', { ...call, params: { id } }),
    },

    /**
     * Your identity fields (`/me/fields`, docs/fields.md): each `value` typed by its `type` from
     * the field catalog, so `create({ type: 'birthday', value: '1990-05-17' })` does not compile.
     */
    fields: {
      /** Your fields in creation order; `type` keeps one type (and types the items). */
      list: <K extends FieldTypeKey = FieldTypeKey>(query: { type?: K; limit?: number } = {}, call?: CallOptions): Paginated<Field<K>> =>
        list('/me/fields', { ...call, query }) as unknown as Paginated<Field<K>>,
      /** One of your fields; remembers its version for the next update. */
      get: (id: string, call?: CallOptions): Promise<Field> => request('GET', '/me/fields/{id}', { ...call, params: { id } }) as Promise<Field>,
      /** Adds a field; the server normalises it (`+49 30 1234567` for `030 1234567` in DE) and answers it. */
      create: <K extends FieldTypeKey>(field: { type: K; value: FieldValues[K]; label?: string | null; country?: string | null }, call?: CallOptions): Promise<Field<K>> =>
        request('POST', '/me/fields', { ...call, body: field }) as Promise<Field<K>>,
      /** PATCH with If-Match from the last version seen (or `ifMatch`); the type never changes. */
      update: <K extends FieldTypeKey = FieldTypeKey>(id: string, changes: FieldChanges<K>, call?: CallOptions): Promise<Field<K>> =>
        request('PATCH', '/me/fields/{id}', { idempotent: true, ...call, params: { id }, body: changes }) as Promise<Field<K>>,
      /** DELETE with If-Match from the last version seen. */
      async remove(id: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/me/fields/{id}', { ...call, params: { id } });
      },
    },

    /** Who sees your cards (PRODUCT §4): requests, approvals, moves, revocations, blocks. */
    subscriptions: {
      /** Who follows you or asked to (`status: 'pending'` for the requests to answer). */
      list: (query: QueryParams<Op<'GET', '/subscriptions'>> = {}, call?: CallOptions): Paginated<Subscription> => list('/subscriptions', { ...call, query }),
      /** One subscription. */
      get: (id: string, call?: CallOptions): Promise<Subscription> => request('GET', '/subscriptions/{id}', { ...call, params: { id } }),
      /** Lets a pending request in, showing them this profile. */
      approve: (id: string, profileId: string, call?: CallOptions): Promise<Subscription> =>
        request('POST', '/subscriptions/{id}/approve', { ...call, params: { id }, body: { profile_id: profileId } }),
      /** Turns a pending request down (silently); `block` refuses their later requests too. */
      deny: (id: string, options: { block?: boolean } & CallOptions = {}): Promise<Subscription> => {
        const { block, ...call } = options;
        return request('POST', '/subscriptions/{id}/deny', { ...call, params: { id }, body: { block: block ?? false } });
      },
      /** Shows a follower another profile. */
      move: (id: string, profileId: string, call?: CallOptions): Promise<Subscription> =>
        request('POST', '/subscriptions/{id}/move', { ...call, params: { id }, body: { profile_id: profileId } }),
      /** Ends an approved subscription (silently); `block` refuses their later requests too. */
      revoke: (id: string, options: { block?: boolean } & CallOptions = {}): Promise<Subscription> => {
        const { block, ...call } = options;
        return request('POST', '/subscriptions/{id}/revoke', { ...call, params: { id }, body: { block: block ?? false } });
      },
      /** The usernames you block. */
      blocks: (call?: CallOptions) => list('/blocks', { ...call }),
      /** Lets a blocked username ask again. */
      async unblock(username: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/blocks/{username}', { ...call, params: { username } });
      },
    },

    /** Share links (PRODUCT §6): a QR code or link that lets someone subscribe to one profile. */
    shareLinks: {
      /** A link to one profile: `auto_approve` lets holders in at once; `expires_at` and `max_uses` limit it. */
      create: (body: RequestBody<Op<'POST', '/share-links'>>, call?: CallOptions): Promise<ShareLink> => request('POST', '/share-links', { ...call, body }),
      /** Your share links. */
      list: (call?: CallOptions): Paginated<ShareLink> => list('/share-links', { ...call }),
      /** Ends a share link: holders can no longer use it. */
      async revoke(id: string, call?: CallOptions): Promise<void> {
        await request('DELETE', '/share-links/{id}', { ...call, params: { id } });
      },
      /** Whose link is it (no session needed)? */
      resolve: (token: string, call?: CallOptions) => request('GET', '/share-links/resolve', { ...call, auth: 'none', query: { token } }),
      /** Follows the profile a link names: active at once with auto_approve, else pending. */
      redeem: (token: string, call?: CallOptions): Promise<Contact> => request('POST', '/share-links/redeem', { ...call, body: { token } }),
    },

    /** Key material the server keeps and never reads (PRODUCT §7): opaque base64url, at most 8192 characters. */
    keys: {
      /** One bundle per passkey (`methodId`, from GET /auth/methods), which your active contacts read. */
      devices: {
        /** Your devices' key bundles. */
        list: (call?: CallOptions): Paginated<KeyBundle> => list('/keys/devices', { ...call }),
        /** One passkey's key bundle. */
        get: (methodId: string, call?: CallOptions): Promise<KeyBundle> => request('GET', '/keys/devices/{method_id}', { ...call, params: { method_id: methodId } }),
        /** Creates the bundle (no If-Match the first time) or replaces it (If-Match from the last read or write). */
        put: (methodId: string, bundle: string, call?: CallOptions): Promise<KeyBundle> =>
          request('PUT', '/keys/devices/{method_id}', { ...call, params: { method_id: methodId }, body: { bundle } }),
        /** Deletes one passkey's key bundle. */
        async remove(methodId: string, call?: CallOptions): Promise<void> {
          await request('DELETE', '/keys/devices/{method_id}', { ...call, params: { method_id: methodId } });
        },
      },
      /** The server's share of your split secret: every call needs a step-up (`stepUp`). */
      share: {
        /** The server's share of your secret (step-up needed). */
        get: (call?: CallOptions): Promise<KeyShare> => request('GET', '/keys/share', { ...call }),
        /** Creates the share (no If-Match the first time) or replaces it (If-Match from the last read or write). */
        put: (share: string, call?: CallOptions): Promise<KeyShare> => request('PUT', '/keys/share', { ...call, body: { share } }),
        /** Deletes the server's share (step-up needed). */
        async remove(call?: CallOptions): Promise<void> {
          await request('DELETE', '/keys/share', { ...call });
        },
      },
    },

    /** Public cards: no session needed. */
    public: {
      /** Someone's public card (their public profile), without a session. */
      card: (username: string, call?: CallOptions): Promise<Card> => request('GET', '/public/{username}', { ...call, auth: 'none', params: { username } }) as Promise<Card>,
      /** Where the vCard is (3.0 for phones' address books, 4.0 otherwise): a link to download. */
      vcardUrl: (username: string, version: '3.0' | '4.0' = '3.0'): string =>
        `${transport.config.baseUrl.replace(/\/$/, '')}${fillPath('/public/{username}/vcard', { username })}?version=${version}`,
    },

    /** Your data and the account's lifecycle (PRODUCT §8). */
    account: {
      /**
       * Everything stored about the account, parsed; `left_out` says what the file keeps out and
       * why. Needs a step-up (`stepUp`); works while the account is deleted.
       */
      export: (call?: CallOptions): Promise<AccountExport> => request('GET', '/account/export', { ...call }),
      /**
       * Deletes the account, restorable until `purge_at`: every other session is revoked, this one
       * can only read /me, export, undelete and sign out. Needs a step-up (`stepUp`).
       */
      remove: (call?: CallOptions): Promise<AccountDeletion> => request('DELETE', '/account', { ...call }),
      /** What deleting means on this server (days to restore, days the username stays held): say it before asking. */
      deletionTerms: (call?: CallOptions): Promise<DeletionTerms> => request('GET', '/account/deletion-terms', { ...call }),
      /** Restores a deleted account (until its `purge_at`); answers /me, active again. */
      async undelete(call?: CallOptions): Promise<Me> {
        const me = await request('POST', '/account/undelete', { ...call });
        // The next PATCH /me goes with this version, like after a GET /me.
        transport.versions.set('/me', `"${me.version}"`);
        return me;
      },
    },

    /** Signals (docs/events.md): `stream` follows them live, `list` polls one page. */
    events,
  };
}

/** A card and the entity tag it came with, as a client keeps it. */
export interface HeldCard {
  card: Card;
  etag: string;
}

/** Paths that answer a card. */
export type CardPath = `/profiles/${string}/preview` | `/contacts/${string}/card` | `/public/${string}`;

/** `/auth/sessions/{id}` + {id: 'ses_1'} → `/auth/sessions/ses_1` (each value URL-encoded). */
export function fillPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`missing path parameter "${name}" for ${template}`);
    return encodeURIComponent(String(value));
  });
}
