#!/usr/bin/env python3
"""Evaluate generated cases with whichever `yaql` this interpreter imports,
and print each outcome as a JSON line: the drop-in and yaql 3.2.0 run the
same cases (the same seeds give the same data and expressions) and
`compare.py` tells where their outcomes differ.

    python cases.py SEED COUNT > outcomes.jsonl

A case is a piece of data made of Python's built-in types (nested lists
and dicts, strings, numbers, None, booleans) and an expression from a
fixed list, each parsed once, evaluated as `statement.evaluate(data=data,
context=context)` with one context made by `yaql.create_context()`. Its
outcome is the result (as JSON, sets sorted) or the class of the exception
raised; a case running over 5 seconds is recorded as such.
"""

import collections.abc  # noqa: F401  (yaql 3.2.0 uses it without importing it)
import json
import random
import signal
import sys

import yaql
from yaql.language import factory

STRINGS = ['', 'a', 'abc', 'Hello World', 'ключ', 'x,y,z', ' pad ', '12',
           '-3.5', 'a.b.c', 'AbC', 'tRuE', '😀x', 'é\u0301', 'x' * 20]

EXPRESSIONS = [
    '$', 'str($)', '$.len()', 'len($)', 'bool($)', 'not $', '$ and true',
    '$ or false', '$ = $', '[$, $]', '{a => $}', 'isList($)', 'isDict($)',
    'isString($)', 'int($)', 'float($)', '-$', 'abs($)', '$ + 1', '$ - 1',
    '$ * 3', '$ / 2', '$ mod 3', '$ + $', '$ in [1, "a"]',
    '$.toUpper()', '$.toLower()', '$.split(",")', '$.trim()',
    '$.replace("a", "b")', '$.indexOf("b")', '$.substring(1)',
    '$.substring(1, 2)', '$.startsWith("a")', '$.endsWith("c")',
    '$.matches("a.*")', 'regex("[a-z]+").search($)', '$.characters()',
    '$.format(1)', '$.join("-")',
    '$.select($)', '$.select($ * 2)', '$.where($ != null)', '$.where($ > 1)',
    '$.any($ = "a")', '$.all()', '$.any()', '$.count()', '$.sum()',
    '$.min()', '$.max()', '$.orderBy($)', '$.orderByDescending($)',
    '$.skip(1)', '$.take(2)', '$.first(7)', '$.last(7)', '$.single()',
    '$.distinct()', '$.flatten()', '$.selectMany($)', '$.concat($)',
    '$.concat([1])', '$.aggregate($1 + $2)', '$.zip([1, 2, 3])',
    '$.enumerate()', '$.indexOf(1)', '$.lastIndexOf(1)', '$.contains(1)',
    '$.memorize().len()', '$.sequence()', '$.slice(2)', '$.splitAt(1)',
    '$.repeat(2).take(3)', '$.toList()', '$.toList().reverse()',
    '$.insert(0, 9)', '$.replace(0, 9)', '$.remove(1)', '$.append(1)',
    '$.groupBy($).len()', '$.set()', '$.toSet()', '$.isEmpty()',
    '$.keys()', '$.values()', '$.items()', 'dict($.items())', '$.a',
    '$.get("a")', '$.get("a", 5)', '$.set("a", 1)', '$.delete("a")',
    '$.mergeWith({a => 1})', '$.dict($, $)',
    'switch($ = 1 => "one", true => "other")',
]


def data(r, depth=0):
    kind = r.randint(0, 11 if depth < 3 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return r.choice([True, False])
    if kind == 2:
        return r.choice([0, 1, -7, 3, 100, -1, 12345678901])
    if kind == 3:
        return r.choice([0.5, -2.25, 3.0, 1e10])
    if kind in (4, 5):
        return r.choice(STRINGS)
    if kind in (6, 7, 8):
        return [data(r, depth + 1) for _ in range(r.randint(0, 5))]
    return {r.choice(STRINGS): data(r, depth + 1)
            for _ in range(r.randint(0, 4))}


class TimedOut(Exception):
    pass


def on_alarm(*_):
    raise TimedOut()


def outcome(statement, context, value):
    signal.alarm(5)
    try:
        result = statement.evaluate(data=value, context=context)
        return ['ok', json.dumps(result, sort_keys=True, default=as_json)]
    except TimedOut:
        return ['timed out']
    except Exception as e:  # the class is the outcome
        return ['raised', type(e).__name__]
    finally:
        signal.alarm(0)


def as_json(o):
    if isinstance(o, (set, frozenset)):
        return sorted((json.dumps(x, sort_keys=True, default=as_json)
                       for x in o))
    return repr(o)


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    r = random.Random(seed)
    signal.signal(signal.SIGALRM, on_alarm)
    engine = factory.YaqlFactory().create()
    statements = {e: engine(e) for e in EXPRESSIONS}
    context = yaql.create_context()
    for i in range(count):
        value = data(r)
        expression = r.choice(EXPRESSIONS)
        print(json.dumps([i, expression, repr(value)[:200],
                          outcome(statements[expression], context, value)]))


if __name__ == '__main__':
    main()
