// Types of the API, all derived from the OpenAPI document (src/generated/openapi.ts, made by
// `npm run client:generate`). Nothing here is written by hand except the mapping helpers.
import type { components, paths } from './generated/openapi.js';
import type { SIGNAL_RESOURCES } from './generated/signal-kinds.js';

export type { components, paths };
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Me = Schemas['Me'];
export type Tokens = Schemas['Tokens'];
export type Session = Schemas['Session'];
/** One line of the account's security log: what happened, when, from where, on which device. */
export type SecurityLogEntry = Schemas['SecurityLogEntry'];
/** A kind of the signal catalogue (docs/events.md). */
export type SignalKind = keyof typeof SIGNAL_RESOURCES;
/** `/contacts/{id}/card` → `/contacts/${string}/card`: the paths a resource template stands for. */
export type ResourcePath<Template extends string> = Template extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${ResourcePath<Tail>}` : Template;
/**
 * A signal of a kind the client knows, with the resource its kind names: a `switch` on `kind`
 * narrows `resource`. Kinds a newer server adds are not delivered (the catalogue says to ignore them).
 */
export type Signal = { [K in SignalKind]: Omit<Schemas['Signal'], 'kind' | 'resource'> & { kind: K; resource: ResourcePath<(typeof SIGNAL_RESOURCES)[K]> } }[SignalKind];
export type UsernameCheckResult = Schemas['UsernameCheckResult'];
export type CreationOptions = Schemas['CreationOptions'];
export type RequestOptions = Schemas['RequestOptions'];
export type RegistrationCredential = Schemas['RegistrationCredential'];
export type AuthenticationCredential = Schemas['AuthenticationCredential'];
export type Card = Schemas['Card'];
export type Profile = Schemas['Profile'];
export type Exposure = Schemas['Exposure'];
export type Contact = Schemas['Contact'];
/** A photo the server re-encoded from an upload (PRODUCT §2). */
export type Photo = Schemas['Photo'];
export type Subscription = Schemas['Subscription'];
export type Annotation = Schemas['Annotation'];
export type ShareLink = Schemas['ShareLink'];
/** One device's key bundle as its owner sees it (PRODUCT §7). */
export type KeyBundle = Schemas['KeyBundle'];
/** One of a contact's key bundles, under an opaque id (never their passkey's). */
export type ContactKey = Schemas['ContactKey'];
/** The server's share of the account's split secret. */
export type KeyShare = Schemas['KeyShare'];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The operation of `method` on the path template `P` (never when the API has none). */
export type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<paths[P][Lowercase<M>]>;

/** Path templates (e.g. `/auth/sessions/{id}`) that accept `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P;
}[keyof paths];

type Parameters_<Op, Where extends 'path' | 'query'> = Op extends { parameters: { [K in Where]?: infer X } } ? X : never;
export type PathParams<Op> = [Parameters_<Op, 'path'>] extends [never | undefined] ? never : NonNullable<Parameters_<Op, 'path'>>;
export type QueryParams<Op> = [Parameters_<Op, 'query'>] extends [never | undefined] ? never : NonNullable<Parameters_<Op, 'query'>>;

export type RequestBody<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

type Success = 200 | 201 | 202 | 204;
type ContentOf<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: Record<string, infer T> }
    ? T
    : undefined;
/** The body of a successful answer: parsed JSON, text for other media types, undefined for 204. */
export type ResponseBody<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & Success]: ContentOf<R[S]> }[keyof R & Success]
  : unknown;

/** The item type of a list endpoint answering `{data, next_cursor, has_more}`. */
export type ItemOf<Op> = ResponseBody<Op> extends { data: (infer T)[] } ? T : never;

/**
 * A credential as WebAuthn libraries return it (e.g. @simplewebauthn/browser): the generated
 * shape, except that extension outputs may be any object (DOM types have no index signature).
 */
export type CredentialJSON<T extends { clientExtensionResults: unknown }> = Omit<T, 'clientExtensionResults'> & { clientExtensionResults: object };

/**
 * The authenticator callbacks. Written as methods so their parameter is checked bivariantly:
 * a callback typed with a WebAuthn library's stricter options type (string unions where the
 * document says string) is accepted, e.g.
 * `(optionsJSON: PublicKeyCredentialCreationOptionsJSON) => startRegistration({ optionsJSON })`.
 */
export type CreateCredential = { callback(options: CreationOptions): Promise<CredentialJSON<RegistrationCredential>> }['callback'];
export type GetAssertion = { callback(options: RequestOptions): Promise<CredentialJSON<AuthenticationCredential>> }['callback'];

/** DELETE /account's answer: restorable until purge_at. */
export type AccountDeletion = Schemas['AccountDeletion'];
/** GET /account/deletion-terms: the days to restore a deleted account, the days its username stays held. */
export type DeletionTerms = Schemas['DeletionTerms'];
/** GET /account/export, parsed: everything stored about the account, and `left_out`. */
export type AccountExport = ResponseBody<Operation<'/account/export', 'GET'>>;
