// Scenario a2, the baseline of the public card (i): a bare node:http server answering a fixed
// small JSON body, with no crypto at all, since a public GET carries no credential to verify.
// What is left is HTTP itself; i is reported as a ratio to this, measured in the same run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const OK = Buffer.from('{"ok":true}');

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': OK.length });
  res.end(OK);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`READY ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
