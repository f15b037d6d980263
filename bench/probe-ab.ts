import { fileURLToPath } from 'node:url';
import { Generator, LOAD_CORE, ServerProcess, freePort, pin } from './lib/processes.js';
import { HOST, ORIGIN, createDatabase, signUpDevices, startVid } from './lib/vid.js';
pin(process.pid, LOAD_CORE);
const gen = new Generator(); await gen.start();
const which = process.argv[2] ?? 'ab';
const db = await createDatabase('sqlite');
const vid = await startVid('vid', db);
const devices = await signUpDevices(vid.port, 50, 'b');
const job = (port: number) => ({ kind: 'get' as const, targets: [{ host: '127.0.0.1', port }], connections: 50, warmupSeconds: 2, durationSeconds: Number(process.env.D ?? 5), host: HOST, path: '/api/v1/me', htu: ORIGIN + '/api/v1/me', expectedRate: 8000, devices: devices.map((d) => ({ key: d.key, accessToken: d.device.tokens.access_token })) });
if (which.includes('a')) {
  const port = await freePort();
  const limit = new ServerProcess('limit', [process.execPath, '--import', 'tsx', fileURLToPath(new URL('./servers/limit.ts', import.meta.url))], { PORT: String(port) }, port);
  await limit.start(async () => false);
  const c0 = limit.cpuSeconds()!;
  const r = await gen.run(job(port));
  console.log('a', JSON.stringify({ ...r, steps: r.steps.map(s => ({ ...s })) }), 'servercpu', limit.cpuSeconds()! - c0);
  await limit.stop();
}
if (which.includes('b')) {
  const c0 = vid.cpuSeconds()!;
  const r = await gen.run(job(vid.port));
  console.log('b', JSON.stringify(r), 'servercpu', vid.cpuSeconds()! - c0, vid.memory());
}
await vid.stop(); await db.drop(); gen.stop();
