// The service under benchmark, in its own process so its memory is measured alone. It builds the
// real app on a fresh SQLite file, listens on a free port, and answers the parent over IPC:
// {type: 'stats'} -> {rss, heapUsed, streams}.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';

const dir = mkdtempSync(join(tmpdir(), 'vid-bench-'));
const config = loadConfig({
  ...(JSON.parse(process.env.BENCH_ENV ?? '{}') as Record<string, string>),
  SQLITE_PATH: join(dir, 'vid.sqlite'),
  SECRET_KEY: Buffer.alloc(32, 9).toString('base64url'),
});
const { app, streams } = await buildApp({ config, logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });

process.on('message', (message: { type: string; id: number }) => {
  if (message.type === 'stats') {
    globalThis.gc?.();
    const memory = process.memoryUsage();
    process.send!({ id: message.id, rss: memory.rss, heapUsed: memory.heapUsed, streams: streams.stats() });
  } else if (message.type === 'stop') {
    void app.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
process.send!({ type: 'ready', port: (app.server.address() as AddressInfo).port });
