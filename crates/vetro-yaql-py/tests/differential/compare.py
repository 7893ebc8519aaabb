#!/usr/bin/env python3
"""Compare the outcomes `cases.py` printed for the drop-in and for yaql
3.2.0: print how many cases ran and each that differs, and exit 1 when any
does. These differences are allowed: a case the reference runs past its
time (building a huge sequence) may end in the drop-in's memory limit;
`str()` of a lazy sequence (in a result, or as the receiver named by a
method-resolution error) is `<generator object>`, where the reference
prints the Python object's class, name and address; the receiver a
method-resolution error names is printed as the drop-in's own types where
the reference's is or holds a Python list, `itertools.repeat` or a view of
a dict; a set in a message may print its items in another order (Python's
hash order changes from run to run).

    python compare.py DROPIN.jsonl REFERENCE.jsonl
"""

import json
import re
import sys

# `<generator object NAME at 0x...>`, `<map object at 0x...>`...
GENERATOR = re.compile(r'<[\w.]+ object[^>]*>')


# The receiver a method-resolution error prints, when the reference's is
# or holds one of the Python types the drop-in does not reproduce: a list
# (what `split()` returns), `itertools.repeat`, a dict's views.
PYTHON_RECEIVER = re.compile(
    r'for receiver (?=.*?(\[|repeat\(|(Keys|Values|Items)View\())')


def allowed(dropin, reference):
    if reference == ['timed out']:
        return dropin == ['raised', 'MemoryQuotaExceededException']
    if dropin[:-1] != reference[:-1] or len(dropin) < 2:
        return False
    # A result, or the message of a resolution error, equal but for the
    # printed lazy objects and the receivers of Python types.
    ours, theirs = dropin[-1], GENERATOR.sub('<generator object>', reference[-1])
    if dropin[0] == 'raised' and PYTHON_RECEIVER.search(theirs):
        cut = PYTHON_RECEIVER.search(theirs).start()
        return ours[:cut] == theirs[:cut]
    if dropin[0] == 'raised' and 'frozenset({' in theirs:
        # A set in a message prints in Python's hash order there, which
        # changes from run to run: the same characters are enough.
        return sorted(ours) == sorted(theirs)
    return ours == theirs


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
