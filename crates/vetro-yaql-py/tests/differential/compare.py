#!/usr/bin/env python3
"""Compare the outcomes `cases.py` printed for the drop-in and for yaql
3.2.0: print how many cases ran and each that differs, and exit 1 when any
does. Two differences are allowed: a case the reference runs past its
time (building a huge sequence) may end in the drop-in's memory limit, and
`str()` of a lazy sequence is `<generator object>`, where the reference
prints the Python object's class, name and address.

    python compare.py DROPIN.jsonl REFERENCE.jsonl
"""

import json
import re
import sys

# `<generator object NAME at 0x...>`, `<map object at 0x...>`...
GENERATOR = re.compile(r'<[\w.]+ object[^>]*>')


def allowed(dropin, reference):
    if reference == ['timed out']:
        return dropin == ['raised', 'MemoryQuotaExceededException']
    return (dropin[0] == reference[0] == 'ok'
            and dropin[1] == GENERATOR.sub('<generator object>', reference[1]))


def main():
    with open(sys.argv[1]) as a, open(sys.argv[2]) as b:
        dropin = [json.loads(line) for line in a]
        reference = [json.loads(line) for line in b]
    if len(dropin) != len(reference):
        print(f"differential: {len(dropin)} outcomes against "
              f"{len(reference)} from the reference")
        return 1
    differ = [(d, r) for d, r in zip(dropin, reference)
              if d[3] != r[3] and not allowed(d[3], r[3])]
    for d, r in differ[:50]:
        print(f"case {d[0]}: {d[1]} over {d[2]}\n  drop-in:   {d[3]}\n"
              f"  reference: {r[3]}")
    print(f"differential: {len(dropin)} cases, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
