import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * When the recovery key was last downloaded, so the Security page can say "downloaded on …" or
 * warn that it never was. Keys downloaded before this column existed take the time from the
 * security log's last `recovery_key_downloaded` entry, where the log still holds one.
 */
export const recoveryKeyDownloads: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('recovery_keys').addColumn('downloaded_at', 'bigint').execute();
    await sql`
      update recovery_keys set downloaded_at = (
        select max(security_log.created_at) from security_log
        where security_log.account_id = recovery_keys.account_id and security_log.kind = 'recovery_key_downloaded'
      )`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('recovery_keys').dropColumn('downloaded_at').execute();
  },
};
