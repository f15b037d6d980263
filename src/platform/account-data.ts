import type { TSchema } from 'typebox';
import type { Tx } from './store/store.js';

/**
 * Who holds what about an account, declared by the module that owns each table (PRODUCT §8):
 * the export reads the sections, the purge runs the erasers, and a test checks that every table
 * in the database is declared by someone, exported or left out with a reason. A module that
 * adds a table without saying what happens to it at export and purge fails that test.
 */
export type TableFate =
  /**
   * Its rows about the account are in the export, under this section (or these); `withheld`
   * names columns kept out of it (secrets), listed in the file's `left_out` with the reason.
   */
  | { exported: string | readonly string[]; withheld?: { columns: readonly string[]; reason: string } }
  /** Not in the export; the reason is printed in the export's `left_out` list. */
  | { leftOut: string };

/**
 * One section of the export document: a list streamed page by page (the account's rows in a
 * stable order, so a big account never sits in memory whole) or one object.
 */
export type ExportSection =
  | { name: string; description: string; kind: 'list'; item: TSchema; pages(accountId: string): AsyncIterable<readonly unknown[]> }
  | { name: string; description: string; kind: 'object'; item: TSchema; read(accountId: string): Promise<unknown> };

export interface AccountDataDeclaration {
  /** Every table the module owns, with its fate. */
  tables: Record<string, TableFate>;
  sections?: ExportSection[];
  /**
   * Erases the account's personal data in the purge's one transaction. Run in reverse module
   * order (a module's tables may refer to those of modules before it, never after).
   */
  erase?(tx: Tx, accountId: string): Promise<void>;
}

export interface AccountData {
  declare(module: string, declaration: AccountDataDeclaration): void;
  /** Export sections in module order. */
  sections(): ExportSection[];
  /** Every declared table and its fate, with the module that declared it. */
  tables(): Array<{ table: string; module: string; fate: TableFate }>;
  /** Erasers in reverse module order. */
  erasers(): Array<{ module: string; erase(tx: Tx, accountId: string): Promise<void> }>;
}

export function createAccountData(): AccountData {
  const declared: Array<{ module: string } & AccountDataDeclaration> = [];
  return {
    declare(module, declaration) {
      for (const table of Object.keys(declaration.tables)) {
        const owner = declared.find((d) => table in d.tables);
        if (owner) throw new Error(`table ${table} is declared by ${owner.module} and ${module}`);
      }
      for (const section of declaration.sections ?? []) {
        if (declared.some((d) => d.sections?.some((s) => s.name === section.name))) throw new Error(`export section ${section.name} is declared twice`);
      }
      declared.push({ module, ...declaration });
    },
    sections: () => declared.flatMap((d) => d.sections ?? []),
    tables: () => declared.flatMap((d) => Object.entries(d.tables).map(([table, fate]) => ({ table, module: d.module, fate }))),
    erasers: () =>
      declared
        .filter((d) => d.erase)
        .map((d) => ({ module: d.module, erase: d.erase! }))
        .reverse(),
  };
}
