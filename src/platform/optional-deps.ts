import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Redis } from 'ioredis';

// pg and ioredis serve only deployments configured with DATABASE_URL or REDIS_URL. Imported at
// the top of a module they would cost every SQLite node about 3 MB of heap for nothing, so they
// are loaded when first needed; both are CommonJS, so loading stays synchronous.
const require = createRequire(import.meta.url);

export const loadPg = (): typeof pg => require('pg');
export const loadRedis = (): typeof Redis => require('ioredis').Redis;
