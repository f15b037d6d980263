// Scenario c2, the peer TypeScript teams pick today: better-auth (devDependency, pinned in
// package-lock.json) with its default options on SQLite through better-sqlite3, served by
// node:http through better-auth's own Node handler, in production mode (NODE_ENV=production).
// The one option set beyond the required database, secret, base URL and email+password
// sign-in: the rate limiter's max (its 100 per 10 s per path would answer the load with 429s;
// it still runs on every request, as VID's limiter does, with VID's limits raised for the
// benchmark too). BENCH_COOKIE_CACHE=1 turns on `session.cookieCache` (a signed copy of the
// session in a second cookie, read without the database until it expires, 5 min by default).
// Setup signs up one person by email and password once; the load is
// GET /api/auth/get-session with that session's cookies. Prints COOKIE <header> and READY.
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

const port = Number(process.env.PORT);
const baseURL = `http://localhost:${port}`;
const cookieCache = process.env.BENCH_COOKIE_CACHE === '1';
const database = new Database(join(mkdtempSync(join(tmpdir(), 'vid-bench-better-auth-')), 'auth.sqlite'));

const auth = betterAuth({
  database,
  secret: 'bench-secret-bench-secret-bench-secret-0123456789',
  baseURL,
  emailAndPassword: { enabled: true },
  rateLimit: { max: 1_000_000_000 },
  ...(cookieCache ? { session: { cookieCache: { enabled: true } } } : {}),
});

// better-auth's own migrations create its tables (user, session, account, verification).
const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const signUp = await auth.api.signUpEmail({
  body: { email: 'bench@example.org', password: 'correct horse battery staple', name: 'Bench User' },
  asResponse: true,
});
if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
// Set-Cookie → Cookie: every cookie the sign-up set (the session token, and the cached session with cookieCache).
const cookie = signUp.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');

const server = createServer(toNodeHandler(auth));
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', async () => {
  const check = await fetch(`${baseURL}/api/auth/get-session`, { headers: { cookie } });
  const body = (await check.json()) as { user?: { email?: string } } | null;
  if (check.status !== 200 || body?.user?.email !== 'bench@example.org') throw new Error(`get-session does not answer the session: ${check.status} ${JSON.stringify(body)}`);
  console.log(`COOKIE ${cookie}`);
  console.log(`READY ${port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
