import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { CloseReason, StreamSink } from './hub.js';

/** The subprotocol a client must offer (and the server selects) on GET /events/stream. */
export const WS_PROTOCOL = 'vid.events.v1';
/** Browser credentials ride in two more offered subprotocols (see docs/events.md). */
export const WS_AUTH_PREFIX = 'vid.auth.';
export const WS_DPOP_PREFIX = 'vid.dpop.';

/** Close codes (RFC 6455 §7.4.2 private range) and what the client should do. */
export const WS_CLOSE: Record<Exclude<CloseReason, 'slow_consumer'>, [number, string]> = {
  expired: [4401, 'token_expired'], // renew the access token, reconnect with since
  revoked: [4403, 'session_revoked'], // the session is over: sign in again
  replaced: [4409, 'replaced'], // this device opened a newer stream
  shutdown: [1001, 'going_away'], // reconnect (another node) with since
};

/**
 * Finds the credentials a browser sent as subprotocols (it cannot set headers on a WebSocket):
 * `vid.auth.<access token>` and `vid.dpop.<proof JWT>`; both are valid tokens of the
 * Sec-WebSocket-Protocol grammar (RFC 6455 §4.1), so no encoding is needed.
 */
export function credentialsFromProtocols(header: string | undefined): { token?: string; proof?: string; offered: string[] } {
  const offered = (header ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const token = offered.find((p) => p.startsWith(WS_AUTH_PREFIX))?.slice(WS_AUTH_PREFIX.length);
  const proof = offered.find((p) => p.startsWith(WS_DPOP_PREFIX))?.slice(WS_DPOP_PREFIX.length);
  return { token, proof, offered };
}

/** Frames are JSON text: `{type: "ready", cursor}` once, then `{type: "signal", signal}`. */
export function webSocketSink(ws: WebSocket, socket: Socket): StreamSink {
  let alive = true;
  ws.on('pong', () => {
    alive = true;
  });
  return {
    send: (signal) => ws.send(JSON.stringify({ type: 'signal', signal })),
    heartbeat: () => {
      // No pong since the last ping: the peer is gone without a close (RFC 6455 §5.5.2).
      if (!alive) {
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    },
    buffered: () => ws.bufferedAmount,
    onDrain: (listener) => {
      socket.once('drain', listener);
    },
    close: (reason) => {
      if (reason === 'slow_consumer') {
        ws.terminate();
        return;
      }
      const [code, text] = WS_CLOSE[reason];
      ws.close(code, text);
    },
  };
}

/** ws `handleProtocols`: a client that offers subprotocols must offer ours; we select it. */
export function selectProtocol(protocols: Set<string>): string | false {
  return protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false;
}
