import type { Store } from '../store/store.js';
import { resealQueries } from '../store/reseal-queries.js';
import type { SecretBox } from './secret-box.js';
import type { SealedColumns } from './sealed-columns.js';

export interface ColumnReport {
  column: string;
  resealed: number;
  /** Rows changed by the service between the read and the update: left as the service wrote them. */
  skipped: number;
  /** Values still under another key afterwards (0 unless a node still seals under an old key). */
  remaining: number;
}

/**
 * `npm run rotate-secrets` (decision 110): every declared sealed value not under the current key
 * is opened, sealed again under it (and its keyed hash recomputed), in small transactions while
 * the service serves. Each row is replaced by a conditional update on the value read, so a
 * value the service rewrote meanwhile is left alone. Run again until nothing remains; then the
 * older keys can go.
 */
export async function resealAll(deps: { store: Store; box: SecretBox; sealed: SealedColumns; batchSize?: number; onBatch?(column: string, done: number): void }): Promise<ColumnReport[]> {
  const { store, box } = deps;
  const batchSize = deps.batchSize ?? 200;
  const reports: ColumnReport[] = [];
  for (const column of deps.sealed.all()) {
    const name = `${column.table}.${column.column}`;
    const report: ColumnReport = { column: name, resealed: 0, skipped: 0, remaining: 0 };
    // Rows skipped in one pass are not read again in it: `seen` keeps a pass finite.
    const seen = new Set<string>();
    for (;;) {
      const rows = (await store.use(resealQueries).notCurrent(column, box.currentPrefix, batchSize + seen.size)).filter((row) => !seen.has(JSON.stringify(row.key)));
      if (rows.length === 0) break;
      const batch = rows.slice(0, batchSize);
      // Opening and sealing happen before the transaction: it holds only the updates.
      const replacements = batch.map((row) => {
        const plaintext = box.open(row.value, column.purpose);
        return { row, value: box.seal(plaintext, column.purpose), hash: column.hash?.of(plaintext) };
      });
      await store.transaction(async (tx) => {
        const q = tx.use(resealQueries);
        for (const { row, value, hash } of replacements) {
          if (await q.replace(column, row, value, hash)) report.resealed++;
          else {
            report.skipped++;
            seen.add(JSON.stringify(row.key));
          }
        }
      });
      deps.onBatch?.(name, report.resealed);
      if (rows.length < batchSize) break;
    }
    report.remaining = await store.use(resealQueries).countNotCurrent(column, box.currentPrefix);
    reports.push(report);
  }
  return reports;
}
