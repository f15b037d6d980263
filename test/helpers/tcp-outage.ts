import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

/**
 * A TCP relay in the test's own process between a node and a shared service (PostgreSQL,
 * Redis), which the test can cut: every open connection is reset and new ones are reset as they
 * arrive, as when the service restarts or the network drops. The shared service itself keeps
 * running for everyone else's tests.
 */
export interface Outage {
  /** host:port of the relay, to put in a connection URL instead of the service's. */
  hostPort: string;
  /** Resets every relayed connection and every new one until restore(). */
  cut(): void;
  /** Holds new connections open without relaying a byte (a service that hangs), until restore(). */
  hang(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startOutageRelay(target: { host: string; port: number }): Promise<Outage> {
  let mode: 'up' | 'cut' | 'hang' = 'up';
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    if (mode === 'cut') return void client.resetAndDestroy();
    if (mode === 'hang') return;
    const upstream = connect(target.port, target.host);
    open.add(upstream);
    upstream.on('close', () => open.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const resetAll = () => {
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };
  return {
    hostPort: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      mode = 'cut';
      resetAll();
    },
    hang() {
      mode = 'hang';
      resetAll();
    },
    restore() {
      mode = 'up';
      // Connections held while hanging never reached the service: let their owners retry.
      resetAll();
    },
    async close() {
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same URL with its host and port replaced (the relay's). */
export function throughRelay(url: string, relay: Outage): string {
  const parsed = new URL(url);
  parsed.host = relay.hostPort;
  return parsed.toString();
}
