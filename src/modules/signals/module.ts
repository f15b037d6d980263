import { defineModule } from '../../platform/module.js';
import { createStreamHub } from '../../platform/signals/hub.js';
import type { StreamHub } from '../../platform/signals/hub.js';
import { signalLog } from '../../platform/signals/log.js';
import { inProcessNotifier, otherProcessNotifier, postgresNotifier } from '../../platform/signals/notifier.js';
import type { Notifier } from '../../platform/signals/notifier.js';
import { signalNumbers } from './migrations/011-signal-numbers.js';
import { pollRoutes } from './routes.js';
import { SignalSchema } from './schemas.js';
import { createSignalService } from './service.js';
import { streamRoutes } from './stream-routes.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** This node's signal streams (stats for tests and the benchmark). */
    streams: StreamHub;
  }
}

/** GET /events (polling) and GET /events/stream (SSE, WebSocket): the signal log as clients read it (PRODUCT §7). */
export const signalsModule = defineModule({
  name: 'signals',
  migrations: { '011-signal-numbers': signalNumbers },
  schemas: [SignalSchema],
  tags: [{ name: 'events', description: 'Signals that something changed: poll or stream' }],
  build({ config, clock, store, warn }, { sessions, addressBook }) {
    const limits = config.events;
    // A feed is the account's own signals and the edits of the cards it receives (decision 220).
    const signals = createSignalService({ db: store.repository({ log: signalLog }), cards: addressBook.feed, clock, retentionDays: limits.retentionDays });
    const streams = createStreamHub({
      read: signals.read,
      following: addressBook.feed.following,
      isSessionLive: sessions.isLive,
      toSignal: signals.toSignal,
      now: clock.now,
      limits: { perAccount: limits.maxStreamsPerAccount, bufferBytes: limits.streamBufferBytes, stallMs: limits.stallTimeoutMs, heartbeatMs: limits.heartbeatMs },
      onError: (error) => warn(error, 'signal stream'),
    });
    // Wake-ups after commit: in process on every node, across nodes through PostgreSQL, and on
    // SQLite after another process (an operator's command) wrote to the same file.
    const notifiers: Notifier[] = [inProcessNotifier(store)];
    if (store.handle.pool) notifiers.push(postgresNotifier({ pool: store.handle.pool, onError: (error) => warn(error, 'signal notifier') }));
    if (store.handle.dataVersion) notifiers.push(otherProcessNotifier(store.handle.dataVersion));
    return {
      provides: { streams },
      routes: async (app) => {
        await pollRoutes(app, { signals, retentionDays: limits.retentionDays });
        await streamRoutes(app, { signals, streamExpiry: sessions.streamExpiry, hub: streams, maxStreamsPerAccount: limits.maxStreamsPerAccount, heartbeatMs: limits.heartbeatMs });
      },
      async start() {
        for (const notifier of notifiers) await notifier.start(streams);
        streams.start();
      },
      // Open streams would hold the server open; their clients resume on another node.
      stop: () => streams.stop(),
      async close() {
        for (const notifier of notifiers) await notifier.stop();
      },
      prune: () => signals.prune(),
    };
  },
});
