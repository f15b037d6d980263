import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';

export interface MetricsListener {
  /** Where Prometheus scrapes: http://host:port/metrics. */
  url: string;
  close(): Promise<void>;
}

/**
 * A plain node:http listener of its own (METRICS_HOST:METRICS_PORT) that answers GET /metrics
 * and nothing else. Not a route of the API server: what it reveals (route volumes, refusal
 * reasons, pool use) is for the operator's network, not for whoever can reach the public port.
 */
export async function listenForScrapes(registry: Registry, address: { host: string; port: number }, warn: (error: unknown, what: string) => void): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('only GET /metrics is served here\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        warn(error, 'collecting /metrics failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('collecting the metrics failed\n');
      },
    );
  });
  // A scrape takes milliseconds: a connection that sends nothing for long is not a scraper.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        // Keep-alive scrapers would hold close() open; nothing they wait for is lost.
        server.closeAllConnections();
      });
    },
  };
}
