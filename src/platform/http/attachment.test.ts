// RFC 6266 §4.3 with RFC 8187: a download's name in UTF-8 (filename*) and an ASCII fallback
// (filename) read the same way by an independent parser (content-disposition's own parse).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'content-disposition';
import { asciiFileName, attachment } from './attachment.js';

describe('download names', () => {
  it('falls back to an ASCII reading of the name, lower-cased', () => {
    assert.equal(asciiFileName('Zoë', 'contact'), 'zoe');
    assert.equal(asciiFileName('łukasz.nowak', 'contact'), 'lukasz.nowak');
    assert.equal(asciiFileName('алиса_42', 'contact'), 'alisa_42');
    assert.equal(asciiFileName('ελένη', 'contact'), 'eleni');
    assert.equal(asciiFileName('ǅemal', 'contact'), 'dzemal', 'NFKD splits the digraph, the mark goes');
    assert.equal(asciiFileName('佐藤', 'contact'), 'contact', 'no Latin reading known: the fallback');
    assert.equal(asciiFileName('.hidden', 'contact'), 'hidden', 'never a dot file');
  });

  it('writes filename and filename* that a parser reads back', () => {
    assert.equal(attachment('ada', 'vcf', 'contact'), 'attachment; filename=ada.vcf', 'an ASCII name needs no filename*');
    const zoe = attachment('Zoë', 'vcf', 'contact');
    assert.equal(zoe, "attachment; filename=zoe.vcf; filename*=UTF-8''Zo%C3%AB.vcf");
    assert.equal(parse(zoe).parameters.filename, 'Zoë.vcf');
    const sato = attachment('佐藤', 'vcf', 'contact');
    assert.equal(sato, "attachment; filename=contact.vcf; filename*=UTF-8''%E4%BD%90%E8%97%A4.vcf");
    assert.equal(parse(sato).parameters.filename, '佐藤.vcf');
  });
});
