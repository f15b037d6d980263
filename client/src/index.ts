// @vid/client: a TypeScript client for the VID API (browsers and Node 20). See ../README.md.
export { createVidClient, fillPath } from './client.js';
export type { CardPath, CreateCredential, GetAssertion, HeldCard, RequestArgs, SessionInfo, VidClient, VidClientOptions } from './client.js';
export type { CallOptions, FetchLike, VidResponse } from './http.js';
export { isProblem, VidNetworkError, VidProblemError } from './errors.js';
export { contactCards, contactOfCard } from './contact-cards.js';
export type { ContactCards, ContactCardsOptions } from './contact-cards.js';
export { memoryStorage } from './storage.js';
export type { StoredSession, VidStorage } from './storage.js';
export { createDpopKey, publicJwk, thumbprint } from './dpop.js';
export type { DpopKeyPair, PublicJwk, WebCryptoKey } from './dpop.js';
export { paginate } from './pagination.js';
export type { Page, Paginated } from './pagination.js';
export type { EventPage, StreamOptions, StreamState } from './events.js';
export { SseParser } from './sse.js';
export type { SseMessage } from './sse.js';
export type { RetryPolicy, Sleep } from './retry.js';
export type * from './api.js';
