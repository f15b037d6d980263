import type { AddressInfo } from 'node:net';
import { relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

const CHATTY = new Set(['trace', 'debug', 'info']);

/**
 * Listens on HOST:PORT and answers the one line a person starting the service reads:
 * "VID is ready at http://localhost:8080 (listening on 0.0.0.0:8080; SQLite data/vid.sqlite)".
 * The origin is PUBLIC_ORIGIN, the address people open (passkeys are bound to its host), and the
 * listener is said beside it because behind a proxy the two differ. Fastify would log a line for
 * every address of every interface the listener covers; that one call is quietened.
 */
export async function listen(app: FastifyInstance, config: Config): Promise<string> {
  const level = app.log.level;
  if (CHATTY.has(level)) app.log.level = 'warn';
  try {
    await app.listen({ host: config.host, port: config.port });
  } finally {
    app.log.level = level;
  }
  return readyLine(config, app.server.address() as AddressInfo);
}

export function readyLine(config: Config, address: Pick<AddressInfo, 'address' | 'family' | 'port'>): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const database = config.database.kind === 'sqlite' ? `SQLite ${shortPath(config.database.path)}` : 'PostgreSQL';
  return `VID is ready at ${config.publicOrigin} (listening on ${host}:${address.port}; ${database})`;
}

/** A file under the working directory by its relative path, any other by its absolute one. */
function shortPath(path: string): string {
  const near = relative(process.cwd(), path);
  return near && !near.startsWith('..') ? near : path;
}

/**
 * Why listening failed, in one sentence that says what to do, for the errors a person causes
 * (another process on the port, a privileged port, an address this machine does not have);
 * undefined for anything else, which stays a crash with its stack.
 */
export function listenRefusal(error: unknown, config: Pick<Config, 'host' | 'port'>): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const { host, port } = config;
  switch (code) {
    case 'EADDRINUSE':
      return `Port ${port} is in use; set PORT=${port === 65535 ? port - 1 : port + 1} (or another free port) or stop the other process`;
    case 'EACCES':
      return `Port ${port} needs privileges this process does not have; set PORT to 1024 or above (PORT=8080)`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine; set HOST=0.0.0.0 (every address) or HOST=127.0.0.1 (this machine only)`;
    default:
      return undefined;
  }
}
