import { SIGNAL_KINDS, resourcePattern } from '../../src/platform/signals/catalogue.js';
import type { SignalKindName } from '../../src/platform/signals/catalogue.js';
import type { Store } from '../../src/platform/store/store.js';

/**
 * Every signal the log holds against the catalogue (src/platform/signals/catalogue.ts): its kind
 * is listed there and its resource is that kind's path. Returns what does not match.
 */
export async function signalsOffCatalogue(store: Store): Promise<string[]> {
  const rows = await store.handle.db.selectFrom('events').select(['kind', 'resource']).distinct().execute();
  return rows
    .filter((row: { kind: string; resource: string }) => !(row.kind in SIGNAL_KINDS) || !resourcePattern(row.kind as SignalKindName).test(row.resource))
    .map((row: { kind: string; resource: string }) => `${row.kind} ${row.resource}`);
}
