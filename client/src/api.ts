// Types of the API, all derived from the OpenAPI document (src/generated/openapi.ts, made by
// `npm run client:generate`). Nothing here is written by hand except the mapping helpers.
import type { components, paths } from './generated/openapi.js';
import type { SIGNAL_RESOURCES } from './generated/signal-kinds.js';
import type { FieldTypeKey, FieldValues } from './generated/field-values.js';
import type { OperationProblemCodes, ServerProblemCode } from './generated/problem-codes.js';

export type { FieldTypeKey, FieldValues, OperationProblemCodes, ServerProblemCode };

export type { components, paths };
/** Every named schema of the OpenAPI document, by name. */
export type Schemas = components['schemas'];
/** An RFC 9457 problem document: what every refusal answers (`application/problem+json`). */
export type Problem = Schemas['Problem'];
/** The signed-in account (`GET /me`). */
export type Me = Schemas['Me'];
/** An access token and a refresh token, both bound to the device key (RFC 9449). */
export type Tokens = Schemas['Tokens'];
/** One signed-in device of the account (`GET /auth/sessions`). */
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
/** Whether a username is free, and why not. */
export type UsernameCheckResult = Schemas['UsernameCheckResult'];
/** WebAuthn creation options, as JSON (what `navigator.credentials.create` is given). */
export type CreationOptions = Schemas['CreationOptions'];
/** WebAuthn request options, as JSON (what `navigator.credentials.get` is given). */
export type RequestOptions = Schemas['RequestOptions'];
/** A new passkey's registration, as JSON. */
export type RegistrationCredential = Schemas['RegistrationCredential'];
/** A passkey's assertion (sign-in or step-up), as JSON. */
export type AuthenticationCredential = Schemas['AuthenticationCredential'];
/**
 * One field of yours (`/me/fields`), its `value` (and `original`) typed by its `type`: narrow on
 * `type` (`if (field.type === 'phone') field.value` is a string) or name the type, `Field<'birthday'>`.
 */
export type Field<K extends FieldTypeKey = FieldTypeKey> = {
  [T in K]: Omit<Schemas['Field'], 'type' | 'value' | 'original'> & { type: T; value: FieldValues[T]; original: FieldValues[T] | null };
}[K];
/** POST /me/fields: a new field, its `value` shaped as its `type` needs (a wrong shape does not compile). */
export type NewField<K extends FieldTypeKey = FieldTypeKey> = {
  [T in K]: { type: T; value: FieldValues[T]; label?: string | null; country?: string | null };
}[K];
/** PATCH /me/fields/{id}: what changes (the type never does). */
export type FieldChanges<K extends FieldTypeKey = FieldTypeKey> = { value?: FieldValues[K]; label?: string | null; country?: string | null };
/** One field a card shows, its `value` typed by its `type`. */
export type CardField<K extends FieldTypeKey = FieldTypeKey> = {
  [T in K]: Omit<Schemas['Card']['fields'][number], 'type' | 'value'> & { type: T; value: FieldValues[T] };
}[K];
/** What one person shows another; each field's `value` typed by its `type`. */
export type Card = Omit<Schemas['Card'], 'fields'> & { fields: CardField[] };
/** An audience: the fields it shows (its exposures) and who follows it. */
export type Profile = Schemas['Profile'];
/** One field a profile shows, with its label and place. */
export type Exposure = Schemas['Exposure'];
/** Someone you follow, and the state of your subscription. */
export type Contact = Schemas['Contact'];
/** A photo the server re-encoded from an upload (PRODUCT §2). */
export type Photo = Schemas['Photo'];
/** Someone who follows you (or asked to), and the profile they see. */
export type Subscription = Schemas['Subscription'];
/** Your private note and labels on a contact. */
export type Annotation = Schemas['Annotation'];
/** A link (or QR code) that lets its holder follow one profile. */
export type ShareLink = Schemas['ShareLink'];
/** One device's key bundle as its owner sees it (PRODUCT §7). */
export type KeyBundle = Schemas['KeyBundle'];
/** One of a contact's key bundles, under an opaque id (never their passkey's). */
export type ContactKey = Schemas['ContactKey'];
/** The server's share of the account's split secret. */
export type KeyShare = Schemas['KeyShare'];

/**
 * Every problem `code` the client can throw: the server's (its refusal catalogue) and the client's
 * own (`unexpected_response`: an answer that was no problem document; `not_signed_in`).
 */
export type ProblemCode = ServerProblemCode | 'unexpected_response' | 'not_signed_in';

/** The methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The operation of `method` on the path template `P` (never when the API has none). */
export type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<paths[P][Lowercase<M>]>;

/** Path templates (e.g. `/auth/sessions/{id}`) that accept `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P;
}[keyof paths];

/** The parameters of an operation in one place (path or query). */
export type Parameters_<Op, Where extends 'path' | 'query'> = Op extends { parameters: { [K in Where]?: infer X } } ? X : never;
/** The path parameters of an operation (`{ id: string }` for `/profiles/{id}`). */
export type PathParams<Op> = [Parameters_<Op, 'path'>] extends [never | undefined] ? never : NonNullable<Parameters_<Op, 'path'>>;
/** The query parameters of an operation. */
export type QueryParams<Op> = [Parameters_<Op, 'query'>] extends [never | undefined] ? never : NonNullable<Parameters_<Op, 'query'>>;

/** The JSON body an operation takes (undefined when it takes none). */
export type RequestBody<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** The statuses a call resolves with. */
export type Success = 200 | 201 | 202 | 204;
/** The body of one response: JSON, another media type's text, or undefined. */
export type ContentOf<R> = R extends { content: { 'application/json': infer B } }
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
export type CreateCredential = {
  /** Creates a passkey for these options, as `navigator.credentials.create` would. */
  callback(options: CreationOptions): Promise<CredentialJSON<RegistrationCredential>> }['callback'];
/** The authenticator callback of sign-in and step-up: signs the challenge with a passkey. */
export type GetAssertion = {
  /** Signs these options' challenge, as `navigator.credentials.get` would. */
  callback(options: RequestOptions): Promise<CredentialJSON<AuthenticationCredential>> }['callback'];

/** DELETE /account's answer: restorable until purge_at. */
export type AccountDeletion = Schemas['AccountDeletion'];
/** GET /account/deletion-terms: the days to restore a deleted account, the days its username stays held. */
export type DeletionTerms = Schemas['DeletionTerms'];
/** GET /account/export, parsed: everything stored about the account, and `left_out`. */
export type AccountExport = ResponseBody<Operation<'/account/export', 'GET'>>;

/**
 * The codes the operation `METHOD /path` declares (its route's refusals and those any route may
 * answer), e.g. `ProblemCodeOf<'POST', '/me/fields'>`; every code when it declares none.
 */
export type ProblemCodeOf<M extends HttpMethod, P extends string> = `${M} ${P}` extends keyof OperationProblemCodes ? OperationProblemCodes[`${M} ${P}`] : ProblemCode;
