// E-mail addresses (RFC 5321, RFC 6531 SMTPUTF8, IDNA domains) through the catalog.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFieldCatalog } from './catalog.js';

const catalog = createFieldCatalog();
const check = (value: unknown) => catalog.check(catalog.definition('email')!, value, undefined, undefined, 0);

describe('e-mail addresses', () => {
  it('keeps the local part as typed and lower-cases the domain, Unicode form stored, A-label in details', () => {
    const outcome = check('  Ada.Lovelace+cards@Example.ORG ');
    assert.ok(outcome.ok);
    assert.equal(outcome.checked.value, 'Ada.Lovelace+cards@example.org');
    assert.equal(outcome.checked.details.ascii, 'Ada.Lovelace+cards@example.org');
    const idn = check('info@Bücher.de');
    assert.ok(idn.ok);
    assert.equal(idn.checked.value, 'info@bücher.de');
    assert.equal(idn.checked.details.ascii, 'info@xn--bcher-kva.de');
    assert.equal(idn.checked.original, 'info@Bücher.de');
    const punycode = check('info@xn--bcher-kva.de');
    assert.ok(punycode.ok);
    assert.equal(punycode.checked.value, 'info@bücher.de');
  });

  it('accepts internationalised local parts (RFC 6531) and flags them for SMTPUTF8', () => {
    for (const address of ['用户@例子.广告', 'अजय@डाटा.भारत', 'θσερ@εχαμπλε.ψομ', 'josé@correo.es']) {
      const outcome = check(address);
      assert.ok(outcome.ok, address);
      assert.equal(outcome.checked.details.smtputf8, true);
      assert.equal(outcome.checked.details.ascii, undefined);
    }
  });

  it('refuses what is not a mailbox', () => {
    const cases: [string, string][] = [
      ['ada.example.org', 'email_missing_at'],
      ['ada..lovelace@example.org', 'email_local_part_invalid'],
      ['.ada@example.org', 'email_local_part_invalid'],
      ['"ada lovelace"@example.org', 'email_local_part_invalid'],
      ['ada@localhost', 'email_domain_invalid'],
      ['ada@[192.0.2.1]', 'email_domain_invalid'],
      ['ada@exa_mple.org', 'email_domain_invalid'],
      ['ada@-example.org', 'email_domain_invalid'],
      ['ada@example.123', 'email_domain_invalid'],
      [`${'a'.repeat(65)}@example.org`, 'email_local_part_too_long'],
      [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.org`, 'email_too_long'],
    ];
    for (const [address, code] of cases) {
      const outcome = check(address);
      assert.ok(!outcome.ok, address);
      assert.equal(outcome.errors[0]?.code, code, address);
    }
  });

  it('checks the shape first: a number is not an address', () => {
    const outcome = check(42);
    assert.ok(!outcome.ok);
    assert.deepEqual(outcome.errors[0], { path: '/value', code: 'type', message: 'must be string' });
  });
});
