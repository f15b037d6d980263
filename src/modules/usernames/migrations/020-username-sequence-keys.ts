import type { Kysely, Migration } from 'kysely';
import { inTransaction, rekeyHeldNames } from './rekey.js';

/**
 * Letters two others imitate (vv for w, cl for d) join the comparison keys (decision 007,
 * "Sequences"): every held name's keys are recomputed, as 013 did, so a new "vvendy" meets an
 * existing "wendy". No account loses its name; of two existing names that now look alike, the
 * earlier keeps the key.
 */
export const usernameSequenceKeys: Migration = {
  async up(db: Kysely<any>) {
    await inTransaction(db, rekeyHeldNames);
  },
  /** The keys are derived: recomputing them again is all a step back can do. */
  async down(db: Kysely<any>) {
    await inTransaction(db, rekeyHeldNames);
  },
};
