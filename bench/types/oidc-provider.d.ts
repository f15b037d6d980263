// oidc-provider ships no type declarations; the peer scenario uses it untyped.
declare module 'oidc-provider';
