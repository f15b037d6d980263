/**
 * The catalogue of signal kinds (PRODUCT §7). A signal says that something changed and carries
 * no data: `resource` is the path the client pulls, a template where the kind names one
 * resource of several (`/contacts/{id}/card`). Code emits signals only through `signal()`
 * (signal.ts), which takes the path from here, so what clients receive cannot drift from this
 * list; docs/events.md is generated from it.
 */
export interface SignalKind {
  kind: string;
  resource: string;
  description: string;
}

export const SIGNAL_KINDS = {
  'me.changed': { resource: '/me', description: 'Display name, locale or default country changed.' },
  'fields.changed': { resource: '/me/fields', description: 'An identity field was added, changed or removed.' },
  'photos.changed': { resource: '/me/photos', description: 'A photo was added or deleted.' },
  'profiles.changed': { resource: '/profiles', description: 'A profile or its exposures changed.' },
  'subscriptions.changed': { resource: '/subscriptions', description: 'A subscription to you was requested, approved, moved, revoked or ended.' },
  'contacts.changed': { resource: '/contacts', description: 'One of your subscriptions changed state.' },
  'contact.card.changed': { resource: '/contacts/{id}/card', description: 'The card you see of a contact changed (only subscribers whose visible card changed get it; several edits since your last read are one signal). The card\'s `changed` lists the kinds of detail that changed (field types such as phone, email, postal_address, and display_name), never values, and only kinds the card showed you before or shows you now: say "new phone number" from it.' },
  'annotations.changed': { resource: '/contacts/{id}/annotation', description: 'Your private note or labels on a contact changed (on another of your devices).' },
  'share_links.changed': { resource: '/share-links', description: 'A share link was created, used up or revoked.' },
  'dav-tokens.changed': { resource: '/dav-tokens', description: 'An address-book password was created or revoked.' },
  'methods.changed': { resource: '/auth/methods', description: 'A passkey or TOTP authenticator was added, renamed or removed.' },
  'sessions.changed': { resource: '/auth/sessions', description: 'A session was opened (sign-in, recovery, join) or revoked.' },
  'join.requested': { resource: '/auth/join/pending', description: 'A new device asks to join with a code: approve or deny it.' },
  'join.changed': { resource: '/auth/join/pending', description: 'A join attempt was approved, denied, finished or expired.' },
  'join.code.changed': { resource: '/auth/join/code', description: 'A join code this account issued was used (take it off the screen: the request is in /auth/join/pending), or five wrong guesses voided it (say so, and offer a new code).' },
  'recovery_key.changed': { resource: '/auth/recovery-key/state', description: 'Your recovery key was downloaded (on any of your devices): show the new date.' },
  // Bundles are what other devices pull; the share needs a step-up to read, so it is read when needed, not on a signal.
  'keys.changed': { resource: '/keys/devices', description: 'Your key material changed: a device\'s key bundle was stored, replaced or removed (pull /keys/devices), or the server share changed (GET /keys/share, with a step-up, when you next need it).' },
  'contact.keys.changed': { resource: '/contacts/{id}/keys', description: 'A contact\'s device key bundles changed (stored, replaced, or removed with a passkey): pull them again (active subscribers only).' },
  'account.changed': { resource: '/me', description: 'The account itself changed (recovered, deleted, undeleted).' },
} as const satisfies Record<string, Omit<SignalKind, 'kind'>>;

export type SignalKindName = keyof typeof SIGNAL_KINDS;

type Placeholders<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** The values a kind's resource template needs (`{ id }` for `/contacts/{id}/card`), or none. */
export type SignalParams<K extends SignalKindName> = [Placeholders<(typeof SIGNAL_KINDS)[K]['resource']>] extends [never]
  ? []
  : [params: Record<Placeholders<(typeof SIGNAL_KINDS)[K]['resource']>, string>];

const PLACEHOLDER = /\{([a-z_]+)\}/g;

/** The concrete path of one signal: the kind's template with its placeholders filled. */
export function resourceOf(kind: SignalKindName, params: Record<string, string> = {}): string {
  return SIGNAL_KINDS[kind].resource.replace(PLACEHOLDER, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '' || value.includes('/')) throw new Error(`signal ${kind} needs a path segment for {${name}}`);
    return value;
  });
}

/** A template as a pattern that matches exactly the paths it can produce (the catalogue test). */
export function resourcePattern(kind: SignalKindName): RegExp {
  const escaped = SIGNAL_KINDS[kind].resource.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(PLACEHOLDER, '[^/]+')}$`);
}

/**
 * A signal as clients receive it (GET /events, SSE `data`, WebSocket frames). `id` is the
 * cursor to resume after it; `at` is when the change committed (ISO 8601).
 */
export interface Signal {
  id: string;
  kind: string;
  resource: string;
  at: string;
}
