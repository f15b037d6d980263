import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { createStreamHub } from '../../platform/signals/hub.js';
import type { StreamHub } from '../../platform/signals/hub.js';
import { signalLog } from '../../platform/signals/log.js';
import { inProcessNotifier, otherProcessNotifier, postgresNotifier } from '../../platform/signals/notifier.js';
import type { Notifier, WakeTarget } from '../../platform/signals/notifier.js';
import { signalNumbers } from './migrations/011-signal-numbers.js';
import { pollRoutes } from './routes.js';
import { SignalSchema } from './schemas.js';
import { createSignalService } from './service.js';
import { streamRoutes } from './stream-routes.js';

/** Told, on every node, after any signal of an account commits (and when some may have been missed). */
export interface AccountChangeListener {
  changed(accountId: string): void;
  all(): void;
}

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** This node's signal streams (stats for tests and the benchmark). */
    streams: StreamHub;
    /** Subscribe to hear, on this node, that an account's signals committed (any node's commit). */
    accountChanges: { subscribe(listener: AccountChangeListener): void };
  }
}

/** GET /events (polling) and GET /events/stream (SSE, WebSocket): the signal log as clients read it (PRODUCT §7). */
export const signalsModule = defineModule({
  name: 'signals',
  operations: OPERATIONS,
  migrations: { '011-signal-numbers': signalNumbers },
  schemas: [SignalSchema],
  tags: [{ name: 'events', description: 'Signals that something changed: poll or stream' }],
  build({ config, clock, store, warn }, { sessions, cardChanges }) {
    const limits = config.events;
    // A feed is the account's own signals and the edits of the cards it receives (decision 220).
    const signals = createSignalService({ db: store.repository({ log: signalLog }), cards: cardChanges.feed, clock, retentionDays: limits.retentionDays });
    const streams = createStreamHub({
      read: signals.read,
      following: cardChanges.feed.following,
      isSessionLive: sessions.isLive,
      toSignal: signals.toSignal,
      now: clock.now,
      limits: { perAccount: limits.maxStreamsPerAccount, bufferBytes: limits.streamBufferBytes, stallMs: limits.stallTimeoutMs, heartbeatMs: limits.heartbeatMs },
      onError: (error) => warn(error, 'signal stream'),
    });
    // Whatever this node keeps about an account hears of its changes where the streams do.
    const listeners: AccountChangeListener[] = [];
    const tell = (accountId: string) => {
      for (const listener of listeners) listener.changed(accountId);
    };
    const target: WakeTarget = {
      wake(accountId) {
        tell(accountId);
        streams.wake(accountId);
      },
      wakeFollowers: (ownerId) => streams.wakeFollowers(ownerId),
      wakeAll() {
        for (const listener of listeners) listener.all();
        streams.wakeAll();
      },
    };
    // Wake-ups after commit: in process on every node, across nodes through PostgreSQL, and on
    // SQLite after another process (an operator's command) wrote to the same file.
    // On PostgreSQL every node, this one included, hears every commit through NOTIFY: the streams
    // wake from that alone (once per commit, not twice), and in process only what must not wait
    // for the round trip is told (a public card forgotten before the change's answer).
    const pool = store.handle.pool;
    const inProcess: WakeTarget = pool ? { wake: (accountId) => tell(accountId), wakeFollowers: () => {}, wakeAll: () => {} } : target;
    const notifiers: Array<[Notifier, WakeTarget]> = [[inProcessNotifier(store), inProcess]];
    if (pool) notifiers.push([postgresNotifier({ pool, onError: (error) => warn(error, 'signal notifier') }), target]);
    if (store.handle.dataVersion) notifiers.push([otherProcessNotifier(store.handle.dataVersion), target]);
    return {
      provides: { streams, accountChanges: { subscribe: (listener: AccountChangeListener) => void listeners.push(listener) } },
      routes: async (app) => {
        await pollRoutes(app, { signals, retentionDays: limits.retentionDays });
        await streamRoutes(app, { signals, streamExpiry: sessions.streamExpiry, hub: streams, maxStreamsPerAccount: limits.maxStreamsPerAccount, heartbeatMs: limits.heartbeatMs });
      },
      async start() {
        for (const [notifier, wakes] of notifiers) await notifier.start(wakes);
        streams.start();
      },
      // Open streams would hold the server open; their clients resume on another node.
      stop: () => streams.stop(),
      async close() {
        for (const [notifier] of notifiers) await notifier.stop();
      },
      prune: () => signals.prune(),
    };
  },
});
