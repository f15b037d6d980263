import type { Kysely, Selectable } from 'kysely';
import type { PlatformTables } from './schema.js';
import type { CeremoniesTable } from './schema.js';
import { statement } from './statement.js';
import type { Param } from './statement.js';

export type CeremonyRecord = Selectable<CeremoniesTable>;

// A ceremony's insert and its take are made by every sign-in and sign-up: statements built once
// per process (statement.ts), held to their plain twins in test/store/fast-paths.test.ts.
export const insertCeremony = statement('ceremony insert', (db: Kysely<PlatformTables>, p: Param<CeremonyRecord>) =>
  db.insertInto('ceremonies').values({
    id: p('id'),
    kind: p('kind'),
    challenge: p('challenge'),
    username: p('username'),
    user_handle: p('user_handle'),
    account_id: p('account_id'),
    session_id: p('session_id'),
    expires_at: p('expires_at'),
  }),
);

/**
 * Takes a challenge out in one statement, whatever the outcome of the verification that
 * follows: a challenge can be answered once (WebAuthn L3 §13.4.3).
 */
export const takeCeremony = statement('ceremony take', (db: Kysely<PlatformTables>, p: Param<{ id: string; kind: string }>) =>
  db.deleteFrom('ceremonies').where('id', '=', p('id')).where('kind', '=', p('kind')).returningAll(),
);

export function ceremonyQueries(db: Kysely<PlatformTables>) {
  return {
    async insert(ceremony: CeremonyRecord): Promise<void> {
      await insertCeremony.all(db, ceremony);
    },
    /** takeCeremony, above. */
    async consume(id: string, kind: string): Promise<CeremonyRecord | undefined> {
      return takeCeremony.first(db, { id, kind });
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
