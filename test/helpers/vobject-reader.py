"""Reads vCard files with python-vobject (Debian's python3-vobject, what khard and vdirsyncer
read address books with) for test/helpers/vcard-readers.ts: one JSON request per line on stdin
({"text": "..."}), one JSON answer per line on stdout: {"cards": [[[name, group, params, value],
...], ...]} or {"error": "..."}. N, ADR and ORG values are their components; text is decoded."""
import json
import sys

import vobject

N_PARTS = ('family', 'given', 'additional', 'prefix', 'suffix')
ADR_PARTS = ('box', 'extended', 'street', 'city', 'region', 'code', 'country')


def component(part):
    # vobject keeps a component that held a list as a list.
    return ','.join(part) if isinstance(part, list) else part


def value_of(line):
    value = line.value
    if isinstance(value, vobject.vcard.Name):
        return [component(getattr(value, part)) for part in N_PARTS]
    if isinstance(value, vobject.vcard.Address):
        return [component(getattr(value, part)) for part in ADR_PARTS]
    if isinstance(value, list):
        return [component(part) for part in value]
    return str(value)


def read(text):
    cards = []
    for card in vobject.readComponents(text, validate=True):
        cards.append([[line.name, line.group, line.params, value_of(line)] for line in card.lines()])
    return cards


for request in sys.stdin:
    try:
        answer = {'cards': read(json.loads(request)['text'])}
    except Exception as error:  # every failure is an answer the test shows
        answer = {'error': f'{type(error).__name__}: {error}'}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + '\n')
    sys.stdout.flush()
