const { buildApp } = await import('../dist/src/app.js');
const { loadConfig } = await import('../dist/src/config.js');
const { app } = await buildApp({ config: loadConfig({ SQLITE_PATH: '/tmp/m/x.sqlite', SECRET_KEY: Buffer.alloc(32,5).toString('base64url'), LOG_LEVEL: 'warn' }) });
await new Promise(r => setTimeout(r, 500));
const u = process.memoryUsage(); console.log(process.execArgv.join(' ').padEnd(40), 'rss', (u.rss/1e6).toFixed(1), 'heapTotal', (u.heapTotal/1e6).toFixed(1), 'heapUsed', (u.heapUsed/1e6).toFixed(1));
await app.close();
