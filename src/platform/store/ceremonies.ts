import type { Kysely, Selectable } from 'kysely';
import type { PlatformTables } from './schema.js';
import type { CeremoniesTable } from './schema.js';

export type CeremonyRecord = Selectable<CeremoniesTable>;

export function ceremonyQueries(db: Kysely<PlatformTables>) {
  return {
    async insert(ceremony: CeremonyRecord): Promise<void> {
      await db.insertInto('ceremonies').values(ceremony).execute();
    },
    /**
     * Takes a challenge out in one statement, whatever the outcome of the verification that
     * follows: a challenge can be answered once (WebAuthn L3 §13.4.3).
     */
    async consume(id: string, kind: string): Promise<CeremonyRecord | undefined> {
      return db.deleteFrom('ceremonies').where('id', '=', id).where('kind', '=', kind).returningAll().executeTakeFirst();
    },
    /** Step-up: the assertion names its challenge; only the session that asked may answer it. */
    async consumeByChallenge(challenge: string, kind: string, sessionId: string): Promise<CeremonyRecord | undefined> {
      return db
        .deleteFrom('ceremonies')
        .where('challenge', '=', challenge)
        .where('kind', '=', kind)
        .where('session_id', '=', sessionId)
        .returningAll()
        .executeTakeFirst();
    },
  };
}
