import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { basicCredentials, newPassword, passwordHasher, tokenIdOf } from './passwords.js';

const header = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

describe('address-book passwords', () => {
  it('are vidcd_<id>_<43 base64url characters>, carry their id, and never repeat', () => {
    const made = Array.from({ length: 200 }, newPassword);
    for (const { id, password } of made) {
      assert.match(password, /^vidcd_dav_[A-Za-z0-9_-]{22}_[A-Za-z0-9_-]{43}$/);
      assert.equal(tokenIdOf(password), id);
    }
    assert.equal(new Set(made.map((m) => m.password)).size, made.length);
    assert.equal(new Set(made.map((m) => m.id)).size, made.length);
  });

  it('find no id in anything else', () => {
    const { password } = newPassword();
    for (const other of ['', 'hunter2', password.slice(1), `${password}x`, password.slice(0, -1), password.replace('vidcd_', 'VIDCD_'), password.replace('_dav_', '_shl_'), ` ${password}`]) {
      assert.equal(tokenIdOf(other), undefined, other);
    }
  });

  it('read Basic credentials per RFC 7617: any case of the scheme, UTF-8, the password after the first colon', () => {
    assert.deepEqual(basicCredentials(header('ada:secret')), { userId: 'ada', password: 'secret' });
    assert.deepEqual(basicCredentials(`basic ${Buffer.from('ada:secret').toString('base64')}`), { userId: 'ada', password: 'secret' });
    assert.deepEqual(basicCredentials(header('zoë:pä:ss')), { userId: 'zoë', password: 'pä:ss' }, '§2.1 charset="UTF-8"; a colon belongs to the password');
    assert.deepEqual(basicCredentials(header(':secret')), { userId: '', password: 'secret' });
    for (const bad of ['', 'Basic', 'Basic ', 'Bearer abc', `Digest ${Buffer.from('a:b').toString('base64')}`, 'Basic !!!!', header('no colon')]) {
      assert.equal(basicCredentials(bad), undefined, bad);
    }
  });

  it('are hashed under the current key and checked under every key of the ring', () => {
    const [current, older, unknown] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const { password } = newPassword();
    const before = passwordHasher([older]);
    const ring = passwordHasher([current, older]);
    assert.equal(ring.keyOf(password, ring.hash(password)), 0);
    assert.equal(ring.keyOf(password, before.hash(password)), 1, 'made under the older key');
    assert.equal(ring.keyOf(password, passwordHasher([unknown]).hash(password)), -1);
    assert.equal(ring.keyOf(newPassword().password, ring.hash(password)), -1, 'another password');
    assert.equal(ring.keyOf(password, 'short'), -1, 'a stored value of another length');
    assert.notEqual(ring.hash(password), before.hash(password));
    assert.ok(!ring.hash(password).includes(password.slice(-43)));
  });
});
