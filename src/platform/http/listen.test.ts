import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config.js';
import { listenRefusal, readyLine } from './listen.js';

describe('the lines a person starting the service reads', () => {
  it('names the public origin, the listener and the database', () => {
    const local = loadConfig({ SQLITE_PATH: join(process.cwd(), 'data', 'vid.sqlite') });
    assert.equal(readyLine(local, { address: '0.0.0.0', family: 'IPv4', port: 8080 }), `VID is ready at http://localhost:8080 (listening on 0.0.0.0:8080; SQLite ${join('data', 'vid.sqlite')})`);
    const behindProxy = loadConfig({ PUBLIC_ORIGIN: 'https://id.example.com', DATABASE_URL: 'postgres://vid:secret@db/vid', SECRET_KEY: 'a'.repeat(43) });
    // Never the connection string: it may hold a password.
    assert.equal(readyLine(behindProxy, { address: '::', family: 'IPv6', port: 3000 }), 'VID is ready at https://id.example.com (listening on [::]:3000; PostgreSQL)');
  });

  it('says what to do when the port or address cannot be had, and leaves other errors alone', () => {
    const at = { host: '0.0.0.0', port: 8080 };
    const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
    assert.equal(listenRefusal(failure('EADDRINUSE'), at), 'Port 8080 is in use; set PORT=8081 (or another free port) or stop the other process');
    assert.match(listenRefusal(failure('EACCES'), { host: '0.0.0.0', port: 80 })!, /^Port 80 needs privileges/);
    assert.match(listenRefusal(failure('EADDRNOTAVAIL'), { host: '192.0.2.1', port: 8080 })!, /^HOST 192\.0\.2\.1 is not an address of this machine/);
    assert.equal(listenRefusal(failure('EMFILE'), at), undefined);
    assert.equal(listenRefusal(new Error('no code'), at), undefined);
    assert.equal(listenRefusal(undefined, at), undefined);
  });
});
