import { request as httpRequest, createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A one-hop load balancer in the test's own process: round robin over the nodes, appending the
 * connecting client's address to X-Forwarded-For as HAProxy's `option forwardfor` and nginx's
 * `$proxy_add_x_forwarded_for` do, so whatever the client wrote stays to the left of it.
 */
export interface Balancer {
  url: string;
  close(): Promise<void>;
}

export async function startBalancer(targets: string[]): Promise<Balancer> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const written = req.headers['x-forwarded-for'];
    const forwarded = [written, req.socket.remoteAddress].flat().filter(Boolean).join(', ');
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwarded } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request from a given local address (127.0.0.0/8 is all loopback on Linux): one client of many. */
export function requestFrom(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers, localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
