import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import type { AccountReport } from './modules/account/locks.js';
import { loadCommandConfig } from './platform/config.js';
import { AppError } from './platform/errors.js';

/**
 * `npm run admin -- <command>`: an operator's tools, run beside the service against the same
 * database (SQLite or PostgreSQL; every node sees the change on its next request).
 *
 *   lock USERNAME --reason "…"   revoke every session and refuse the account everything (403 account_locked)
 *   unlock USERNAME              let it sign in again (its old sessions stay revoked)
 *   show USERNAME [--json]       status, live sessions and sign-in methods; never a secret
 */
const USAGE = 'usage: npm run admin -- lock USERNAME --reason "why" | unlock USERNAME | show USERNAME [--json]';

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { reason: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const [command, username, ...extra] = positionals;
if (!command || !username || extra.length > 0 || !['lock', 'unlock', 'show'].includes(command)) {
  console.error(USAGE);
  process.exit(2);
}
if (command === 'lock' && values.reason === undefined) {
  console.error('lock needs --reason "…": it is kept for operators and never shown to anyone else');
  process.exit(2);
}

function printReport(report: AccountReport): void {
  const line = (label: string, value: string | null) => console.log(`${label.padEnd(10)}${value ?? '-'}`);
  line('username', report.username);
  line('id', report.id);
  line('status', report.status);
  line('created', report.created_at);
  if (report.locked_at) line('locked', `${report.locked_at} (${report.lock_reason ?? ''})`);
  if (report.deleted_at) line('deleted', `${report.deleted_at}, purged after ${report.purge_at}`);
  console.log(`sessions  ${report.sessions.length} live`);
  for (const s of report.sessions as Array<Record<string, unknown>>) console.log(`  ${s.id}  ${s.device_label}  ${s.ip}  last seen ${s.last_seen_at}`);
  console.log(`passkeys  ${report.passkeys.length}`);
  for (const p of report.passkeys as Array<Record<string, unknown>>) console.log(`  ${p.id}  ${p.name}  added ${p.created_at}`);
  console.log(`totp      ${report.totp.length}`);
  for (const t of report.totp as Array<Record<string, unknown>>) console.log(`  ${t.id}  ${t.name}  ${t.confirmed_at ? 'active' : 'pending'}`);
}

const { app, services } = await buildApp({ config: loadCommandConfig(), logger: false });
try {
  if (command === 'lock') {
    const { sessions_revoked } = await services.locks.lock(username, values.reason!);
    console.log(`locked ${username}: ${sessions_revoked} session(s) revoked`);
  } else if (command === 'unlock') {
    await services.locks.unlock(username);
    console.log(`unlocked ${username}: it can sign in again`);
  } else {
    const report = await services.locks.show(username);
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
  }
} catch (error) {
  if (!(error instanceof AppError)) throw error;
  // The same stable codes as the API: scripts can tell "not found" from "already locked".
  console.error(`${error.code}: ${error.detail}`);
  process.exitCode = 1;
} finally {
  await app.close();
}
