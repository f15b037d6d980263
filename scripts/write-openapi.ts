// Writes the OpenAPI document the routes generate to a file (for linting and client generation).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';

const target = process.argv[2] ?? 'build/openapi.json';
const { app } = await buildApp({ config: loadConfig({ SQLITE_PATH: ':memory:', SECRET_KEY: 'A'.repeat(43) }), logger: false });
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, JSON.stringify(app.swagger(), null, 2) + '\n');
await app.close();
console.log(`wrote ${target}`);
