#!/usr/bin/env python3
"""Evaluate generated cases with whichever `yaql` this interpreter imports,
and print each outcome as a JSON line: the drop-in and yaql 3.2.0 run the
same cases (the same seeds give the same data and expressions) and
`compare.py` tells where their outcomes differ.

    python cases.py SEED COUNT [composite] > outcomes.jsonl

A case is a piece of data made of Python's built-in types (nested lists
and dicts, strings, numbers, None, booleans) and an expression: one from a
fixed list, or with `composite`, an expression composed at random from
the library's functions, methods and operators, up to three calls deep,
with literals, lambdas and regular expressions as arguments. Each is
evaluated as `statement.evaluate(data=data, context=context)` with one
context made by `yaql.create_context()`. Its outcome is the result (as
JSON, sets sorted) or the class of the exception raised (at parsing or
evaluation), with its message for the errors of function and method
resolution; a case running over 5 seconds is recorded as such.
"""

import collections.abc  # noqa: F401  (yaql 3.2.0 uses it without importing it)
import json
import random
import signal
import sys

import yaql
from yaql.language import factory
from yaql.language.exceptions import ResolutionError

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


# The parts of composite expressions: {E} is any expression, {L} one over
# `$` (a lambda's argument), {S} a string literal (some of them regular
# expressions), {I} a small integer; {{ and }} are braces. Left out: sets
# of strings (the reference iterates them in Python's hash order, which
# changes from run to run) and `enumerate()`, whose pairs are Python lists
# in the reference (unhashable: `distinct()` refuses them), and `str()`,
# which shows where the reference's results are Python lists rather than
# tuples.
PIECE_STRINGS = ['"a"', '"abc"', '","', '"b"', '"a.b"', '"x,y"', '""', '"A"',
                 '" "', '"[a-z]+"', '"(a)(b)?"', '"\\\\d"', '"{0}-{1}"',
                 '"ключ"']
PIECE_INTS = ['0', '1', '2', '3', '-1', '5', '10', '-2']
LEAVES = ['$', '$', '$', '$.a', '$[0]', '1', '2', '0', '-3', '2.5', '"a"',
          '"abc"', '"a,b"', 'null', 'true', 'false', '[1, 2, 3]',
          '["b", "a", "b"]', '{a => 1, b => "x"}', '[]', '{}',
          '[[1, 2], [3]]', '[{a => 1}, {a => 2, b => 3}]', 'set(1, 2)',
          '"x" * 3']
OPERATORS = ['+', '-', '*', '/', 'mod', '=', '!=', '<', '>', '<=', '>=',
             'and', 'or', 'in']
FUNCTIONS = [
    'len({E})', 'int({E})', 'float({E})', 'bool({E})',
    'abs({E})', 'max({E}, {E})', 'min({E}, {E})', 'pow({E}, {I})',
    'pow({E}, {I}, {I})', 'sign({E})', 'round({E})', 'round({E}, {I})',
    'isInteger({E})', 'isNumber({E})', 'isString({E})', 'isList({E})',
    'isDict({E})', 'isSet({E})', 'isBoolean({E})', 'bitwiseAnd({E}, {E})',
    'bitwiseOr({E}, {E})', 'bitwiseXor({E}, {E})', 'bitwiseNot({E})',
    'shiftBitsLeft({E}, {I})', 'shiftBitsRight({E}, {I})', 'range({I})',
    'range({I}, {I})', 'range({I}, {I}, {I})', 'list({E}, {E})',
    'list({E})', 'dict({E})', 'dict(a => {E}, b => {E})',
    'coalesce({E}, {E})', 'switch({E} => {E}, true => {E})',
    'let(x => {E}) -> $x', 'let({E}) -> [$1, $]',
    'selectCase({E}, {E}).switchCase({E}, {E}, {E})',
    'selectAllCases({E}, {E})', 'examine({E}, {E})', 'concat({E}, {E})',
    'concat({S}, {S}, {S})', 'regex({S}).search({E})',
    'regex({S}).searchAll({E})', 'regex({S}).replace({E}, {S})',
    'regex({S}).split({E})', 'escapeRegex({E})', 'isRegex({E})',
    'hex({E})', 'join({E}, {S})', 'sequence({I}).take({I})',
    'generate({I}, $ < 5, $ + 1)', 'generate(0, $ < 4, $ + 1, $ * 2)',
    'generateMany({E}, [])', 'isIterable({E})', 'isEmpty({E})', 'not {E}',
    '-{E}', '+{E}', '{E}?.a', '({E} -> {L})', '{E}[{I}]', '{E}[{S}]',
    '{E}[{S}, {E}]', '({E} =~ {S})', '({E} !~ {S})', 'zip({E}, {E})',
    'zipLongest({E}, {E})', 'sum({E})', 'len({E}, {E})',
    'call(len, [{E}], {{}})', 'def(f, $ + 1) -> f({E})',
    '{E}.#operator_+({E})']
METHODS = [
    'toUpper()', 'toLower()', 'len()', 'split({S})', 'split({S}, {I})',
    'rightSplit({S}, {I})', 'join({S})', 'trim()', 'trimLeft()',
    'trimRight()', 'trim({S})', 'norm()', 'isEmpty()', 'replace({S}, {S})',
    'replace({S}, {S}, {I})', 'replace({{"a" => "b"}})', 'substring({I})',
    'substring({I}, {I})', 'indexOf({S})', 'indexOf({S}, {I})',
    'lastIndexOf({S})', 'lastIndexOf({S}, {I})', 'toCharArray()',
    'characters()', 'startsWith({S})', 'endsWith({S})', 'format({E})',
    'format({E}, {E})', 'matches({S})', 'select({L})', 'where({L})',
    'skip({I})', 'take({I})', 'limit({I})', 'append({E})', 'distinct()',
    'distinct({L})', 'any()', 'any({L})',
    'all()', 'all({L})', 'concat({E})', 'count()', 'count({L})',
    'memorize()', 'sum()', 'sum({I})', 'max()', 'min()', 'max({I})',
    'first()', 'first({E})', 'single()', 'last()', 'last({E})',
    'selectMany({L})', 'orderBy({L})', 'orderByDescending({L})',
    'orderBy({L}).thenBy({L})', 'orderBy({L}).thenByDescending({L})',
    'groupBy({L})', 'groupBy({L}, {L})',
    'groupBy({L}, {L}, [$[0], $[1].len()])', 'zip({E})', 'zipLongest({E})',
    'zipLongest({E}, default => {E})', 'join({E}, $1 = $2, [$1, $2])',
    'repeat({I})', 'cycle().take({I})', 'takeWhile({L})', 'skipWhile({L})',
    'indexOf({E})', 'lastIndexOf({E})', 'indexWhere({L})',
    'lastIndexWhere({L})', 'slice({I})', 'splitWhere({L})',
    'sliceWhere({L})', 'splitAt({I})', 'aggregate($1 + $2)',
    'aggregate($1 + $2, {E})', 'reverse()', 'mergeWith({E})',
    'mergeWith({E}, $1 + $2)', 'accumulate($1 + $2)',
    'accumulate($1 + $2, {E})', 'defaultIfEmpty({E})', 'toList()',
    'flatten()', 'flatten({I})', 'contains({E})',
    'containsKey({E})', 'containsValue({E})', 'keys()', 'items()',
    'get({S})', 'get({S}, {E})', 'set({S}, {E})', 'set({{"a" => {E}}})',
    'delete({S})', 'deleteAll({E})', 'insert({I}, {E})',
    'insertMany({I}, {E})', 'replace({I}, {E})', 'replaceMany({I}, {E})',
    'remove({E})', 'add({E})', 'union({E})', 'intersect({E})',
    'difference({E})', 'symmetricDifference({E})', 'toDict($, $)',
    'toDict({L}, {L})', 'isIterable()', 'sequence()', 'dict($, $)',
    'dict({L}, {L})', 'combine({E})']


def composite(r, depth=0):
    """A random expression; deeper ones end sooner in a leaf."""
    if depth >= 3 or r.random() < 0.25 + 0.15 * depth:
        return r.choice(LEAVES)
    k = r.random()
    if k < 0.2:
        return '(%s %s %s)' % (composite(r, depth + 1), r.choice(OPERATORS),
                               composite(r, depth + 1))
    if k < 0.45:
        return fill(r, r.choice(FUNCTIONS), depth)
    receiver = composite(r, depth + 1) if r.random() < 0.4 else '$'
    return receiver + '.' + fill(r, r.choice(METHODS), depth)


def fill(r, template, depth):
    pick = {'S': lambda: r.choice(PIECE_STRINGS),
            'I': lambda: r.choice(PIECE_INTS),
            'E': lambda: composite(r, depth + 1),
            'L': lambda: composite(r, depth + 1)}
    out, i = [], 0
    while i < len(template):
        if template.startswith(('{{', '}}'), i):
            out.append(template[i])
            i += 2
        elif template[i] == '{':
            j = template.index('}', i)
            out.append(pick[template[i + 1:j]]())
            i = j + 1
        else:
            out.append(template[i])
            i += 1
    return ''.join(out)


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
    except ResolutionError as e:  # the drop-in gives the reference's text
        return ['raised', type(e).__name__, str(e)]
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
    composed = sys.argv[3:] == ['composite']
    r = random.Random(seed)
    signal.signal(signal.SIGALRM, on_alarm)
    engine = factory.YaqlFactory().create()
    statements = {}
    context = yaql.create_context()
    for i in range(count):
        value = data(r)
        expression = composite(r) if composed else r.choice(EXPRESSIONS)
        if expression not in statements:
            try:
                statements[expression] = engine(expression)
            except Exception as e:  # the class is the outcome
                statements[expression] = ['parse error', type(e).__name__]
        statement = statements[expression]
        result = (statement if isinstance(statement, list)
                  else outcome(statement, context, value))
        print(json.dumps([i, expression, repr(value)[:200], result]))

if __name__ == '__main__':
    main()
