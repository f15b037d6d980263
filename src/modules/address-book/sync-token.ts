/**
 * Sync tokens (RFC 6578 §3.2: a URI, opaque to clients): `<public origin>/ns/sync/<n>`, n being
 * a position in the card-change log (decision 180). The CTag (CS:getctag, which iOS and macOS
 * poll) is the same string, so it changes exactly when a sync would find something.
 */
export function syncTokens(publicOrigin: string) {
  const prefix = `${publicOrigin.replace(/\/$/, '')}/ns/sync/`;
  return {
    format: (position: number) => `${prefix}${position}`,
    /** The position a token names, or undefined for anything else (another server's, a bare UUID). */
    parse(token: string): number | undefined {
      if (!token.startsWith(prefix)) return undefined;
      const digits = token.slice(prefix.length);
      if (!/^(0|[1-9][0-9]{0,15})$/.test(digits)) return undefined;
      const position = Number(digits);
      return Number.isSafeInteger(position) ? position : undefined;
    },
  };
}

export type SyncTokens = ReturnType<typeof syncTokens>;
