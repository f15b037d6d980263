/**
 * Where sealed values live (decision 110), declared by the module that owns each column, the way
 * account data is: `npm run rotate-secrets` re-seals every declared column under the current
 * key, and a test checks that every column named `*_sealed` (and the idempotent replies) is
 * declared, so a module that adds one cannot be left out of a rotation.
 */
export interface SealedColumn {
  table: string;
  /** The primary key's columns: each row is re-sealed by one conditional update on them. */
  key: readonly string[];
  column: string;
  /** The associated data the values are sealed with (SecretBox purpose). */
  purpose: string;
  /** A keyed hash of the plaintext kept beside it (a lookup column), recomputed under the current key. */
  hash?: { column: string; of(plaintext: string): string };
}

export interface SealedColumns {
  declare(column: SealedColumn): void;
  all(): readonly SealedColumn[];
}

export function createSealedColumns(): SealedColumns {
  const declared: SealedColumn[] = [];
  return {
    declare(column) {
      if (declared.some((d) => d.table === column.table && d.column === column.column)) throw new Error(`${column.table}.${column.column} is declared twice`);
      declared.push(column);
    },
    all: () => declared,
  };
}
