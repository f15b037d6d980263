import type { AccountData, ExportSection } from '../../platform/account-data.js';
import type { Clock } from '../../platform/clock.js';

/** Why something the server holds is not in the file (PRODUCT §8: it lists what it leaves out and why). */
export interface LeftOut {
  table: string;
  columns?: string[];
  reason: string;
}

/** The export's sections: the account itself first, then each module's, in module order. */
export function exportSections(accountData: AccountData): ExportSection[] {
  const sections = accountData.sections();
  return [...sections.filter((s) => s.kind === 'object'), ...sections.filter((s) => s.kind === 'list')];
}

/** What the file leaves out: whole tables, and the secret columns of exported ones. */
export function leftOut(accountData: AccountData): LeftOut[] {
  return accountData.tables().flatMap(({ table, fate }): LeftOut[] => {
    if ('leftOut' in fate) return [{ table, reason: fate.leftOut }];
    return fate.withheld ? [{ table, columns: [...fate.withheld.columns], reason: fate.withheld.reason }] : [];
  });
}

/**
 * GET /account/export as a stream of JSON text (PRODUCT §8): written a page of rows at a time,
 * so an account with thousands of contacts and log entries never sits in memory whole. The
 * document is one JSON object: `schema_version`, `exported_at`, `left_out`, then a member per
 * section.
 */
export async function* exportDocument(accountData: AccountData, clock: Clock, accountId: string): AsyncGenerator<string> {
  yield `{"schema_version":1,"exported_at":${JSON.stringify(new Date(clock.now()).toISOString())},"left_out":${JSON.stringify(leftOut(accountData))}`;
  for (const section of exportSections(accountData)) {
    if (section.kind === 'object') {
      yield `,${JSON.stringify(section.name)}:${JSON.stringify(await section.read(accountId))}`;
      continue;
    }
    yield `,${JSON.stringify(section.name)}:[`;
    let first = true;
    for await (const page of section.pages(accountId)) {
      if (page.length === 0) continue;
      yield (first ? '' : ',') + page.map((item) => JSON.stringify(item)).join(',');
      first = false;
    }
    yield ']';
  }
  yield '}';
}
