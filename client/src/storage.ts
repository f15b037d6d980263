// Where the client keeps the device key and the session. Memory by default; a browser app
// provides IndexedDB (it stores the non-extractable CryptoKey pair by structured clone, so the
// private key survives reloads without ever being readable).
import type { DpopKeyPair } from './dpop.js';

/** A session as the client keeps it (times are milliseconds since the epoch, by the client's clock). */
export interface StoredSession {
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  /** When the access token expires (from expires_in). */
  expiresAt: number;
  /** When the client renews ahead of expiry. */
  renewAt: number;
  /** When the refresh token expires unless used (from refresh_expires_in). */
  refreshExpiresAt: number;
  trusted: boolean;
}

/** Where a client keeps its device key and its session: memory by default, IndexedDB in a browser app that should survive reloads. */
export interface VidStorage {
  /** The device key, if one was made. */
  getKey(): Promise<DpopKeyPair | undefined>;
  /** Keeps the device key (undefined: forget it). Store the CryptoKey pair itself (structured clone), never an export. */
  setKey(key: DpopKeyPair | undefined): Promise<void>;
  /** The session, if signed in. */
  getSession(): Promise<StoredSession | undefined>;
  /** Keeps the session (undefined: signed out). */
  setSession(session: StoredSession | undefined): Promise<void>;
}

/** Keeps everything in this process (or tab) only. */
export function memoryStorage(): VidStorage {
  let key: DpopKeyPair | undefined;
  let session: StoredSession | undefined;
  return {
    getKey: async () => key,
    setKey: async (value) => {
      key = value;
    },
    getSession: async () => (session ? { ...session } : undefined),
    setSession: async (value) => {
      session = value ? { ...value } : undefined;
    },
  };
}
