// oidc-provider ships no type declarations; the peer server uses a handful of its APIs.
declare module 'oidc-provider';
