// Scenario a, "the limit": a bare node:http server whose only work is the one thing every
// authenticated request must do, verifying one ES256 signature (the DPoP proof's). The public
// key is imported once per proof header (cached, as the service does), so what is left is the
// verify itself plus HTTP. Every other scenario is a ratio to this one, measured in the same run.
import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const keys = new Map<string, KeyObject>();
const OK = Buffer.from('{"ok":true}');
const REFUSED = Buffer.from('{"ok":false}');

function keyFor(header: string): KeyObject {
  let key = keys.get(header);
  if (!key) {
    const { jwk } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { jwk: object };
    key = createPublicKey({ key: jwk as never, format: 'jwk' });
    keys.set(header, key);
  }
  return key;
}

const server = createServer((req, res) => {
  const proof = req.headers.dpop;
  let valid = false;
  if (typeof proof === 'string') {
    const firstDot = proof.indexOf('.');
    const lastDot = proof.lastIndexOf('.');
    try {
      valid = verify('sha256', Buffer.from(proof.slice(0, lastDot)), { key: keyFor(proof.slice(0, firstDot)), dsaEncoding: 'ieee-p1363' }, Buffer.from(proof.slice(lastDot + 1), 'base64url'));
    } catch {
      valid = false;
    }
  }
  const body = valid ? OK : REFUSED;
  res.writeHead(valid ? 200 : 401, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`READY ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
