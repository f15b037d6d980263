#!/usr/bin/python3
"""Writes data/unicode/identifier-status-allowed.txt: the code points of UTS #39 Identifier_Status=Allowed.

UTS #39 §3.1: Identifier_Status=Allowed is Identifier_Type Recommended or Inclusion, the General
Security Profile for identifiers. No npm package carries this table, so it is taken from ICU, which
builds it from Unicode's IdentifierStatus.txt: uspoof_getRecommendedUnicodeSet() and
uspoof_getInclusionUnicodeSet() (Debian's python3-icu over the system ICU). Run it when ICU's
Unicode version moves; test/store/identifier-status.test.ts checks the file against ICU in CI.
"""
import sys
import icu

def ranges():
    allowed = icu.UnicodeSet()
    allowed.addAll(icu.SpoofChecker.getRecommendedUnicodeSet())
    allowed.addAll(icu.SpoofChecker.getInclusionUnicodeSet())
    for i in range(allowed.getRangeCount()):
        yield ord(allowed.getRangeStart(i)), ord(allowed.getRangeEnd(i))

def main(path):
    lines = [
        '# UTS #39 Identifier_Status=Allowed (Identifier_Type Recommended or Inclusion):',
        f'# Unicode {icu.UNICODE_VERSION}, from ICU {icu.ICU_VERSION} (uspoof_getRecommendedUnicodeSet and',
        '# uspoof_getInclusionUnicodeSet, built from Unicode\'s IdentifierStatus.txt).',
        '# Written by scripts/write-identifier-status.py; one range of code points per line, hex.',
    ]
    lines += [f'{start:04X}..{end:04X}' for start, end in ranges()]
    with open(path, 'w') as out:
        out.write('\n'.join(lines) + '\n')

if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'data/unicode/identifier-status-allowed.txt')
