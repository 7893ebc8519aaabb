"""Data converted into the engine and results converted back: records
round-trip whole and in order, keys of other types keep their own
comparison, and the garbage collector is left as the application set it."""

import gc

import pytest

import yaql
from yaql.language import factory


def evaluate(expr, data):
    engine = factory.YaqlFactory().create()
    return engine(expr).evaluate(data=data, context=yaql.create_context())


def test_records_round_trip_in_order():
    data = [{'k': 'key%d' % i, 'v': i, 'f': i / 2, 'n': None, 'b': i % 2 == 0,
             'tags': ['a', 'b'][:i % 3]} for i in range(300)]
    out = evaluate('$', data)
    assert out == data
    assert [list(r) for r in out] == [list(r) for r in data]
    assert evaluate('$.where($.v > 296).select($.k)', data) == [
        'key297', 'key298', 'key299']


def test_keys_that_are_not_strings_keep_their_comparison():
    # 1 and 1.0 are one key in Python and in YAQL; a string key is another.
    data = {1: 'int', '1': 'str', (1, 2): 'tuple', None: 'none'}
    assert evaluate('$.get(1.0)', data) == 'int'
    assert evaluate('$.get("1")', data) == 'str'
    assert evaluate('$.get([1, 2])', data) == 'tuple'
    assert evaluate('$.len()', data) == 4
    # Many keys (past the dictionary's small size) are all found.
    wide = {'k%d' % i: i for i in range(40)}
    assert evaluate('$.k39 + $.k0', wide) == 39
    assert evaluate('$.set(k39 => 0).k39', wide) == 0


def test_the_collector_is_left_as_it_was():
    data = [{'a': [i]} for i in range(2000)]
    assert gc.isenabled()
    evaluate('$', data)
    assert gc.isenabled()
    gc.disable()
    try:
        evaluate('$', data)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_lazy_sequences_anywhere_in_a_result_become_lists():
    data = [{'v': 1, 'tags': ['a', 'b']}, {'v': 2, 'tags': []}]
    assert evaluate('$.select($.tags.select($ + "!"))', data) == [
        ['a!', 'b!'], []]
    assert evaluate('{a => $.select($.v), b => [$.where($.v > 1).select($.v)]}',
                    data) == {'a': [1, 2], 'b': [[2]]}
    # A lazy sequence held twice is a single pass, as in the reference: its
    # second sight finds it drained.
    assert evaluate('let(x => $.select($.v)) -> [$x, $x]', data) == [
        [1, 2], []]


def test_every_kind_of_item_survives_the_staged_conversion():
    # The data is read with the GIL held and its values made without it:
    # scalars of each type, texts of any width (held in the value up to 15
    # bytes of UTF-8, copied past it), big integers, keys seen in
    # another order, and the types converted whole on the way (tuples,
    # sets, dict subclasses) inside plain lists and dicts.
    class Sub(dict):
        pass

    data = {
        'ints': [0, -1, 2 ** 62, 2 ** 63, -2 ** 80, True, False, None],
        'floats': [0.5, -1e300],
        'texts': ['', 'ascii', 'é', '€uro', '😀 wide', 'x' * 10000,
                  'a' * 15, 'b' * 16, 'é' * 7 + 'c', 'é' * 8],
        'records': [{'a': 1, 'b': 2}, {'b': 3, 'a': 4}, {'a': 5, 'c': 6}],
        'whole': [(1, 'two', [3]), {7, 8}, Sub(z=[9])],
        10: 'int key',
    }
    out = evaluate('$', data)
    assert out['ints'] == data['ints']
    assert [type(x) for x in out['ints'][5:]] == [bool, bool, type(None)]
    assert out['floats'] == data['floats']
    assert out['texts'] == data['texts']
    assert out['records'] == data['records']
    assert [list(r) for r in out['records']] == [['a', 'b'], ['b', 'a'],
                                                 ['a', 'c']]
    assert out['whole'] == [[1, 'two', [3]], {7, 8}, {'z': [9]}]
    assert out[10] == 'int key'
    assert evaluate('$.records.select($.a)', data) == [1, 4, 5]
    assert evaluate('$.texts.select(len($))', data) == [
        0, 5, 1, 4, 6, 10000, 15, 16, 8, 8]
    assert evaluate('$.ints[3] + 1', data) == 2 ** 63 + 1


def test_records_with_the_same_keys_stay_apart():
    # Records with the same keys in the same order share one list of keys
    # in the engine; each keeps its own values, and a change to one (a new
    # key, a new value) is its own. Past a few thousand distinct sets of
    # keys, the dicts are made without sharing, and come out the same.
    data = [{'a': i, 'b': {'a': -i, 'b': None}} for i in range(3)]
    data += [{'k%d' % i: i} for i in range(5000)]
    assert evaluate('$', data) == data
    assert evaluate('$.take(3).select($.b.a)', data) == [0, -1, -2]
    grown = evaluate('$.take(2).select($.set(c => $.a))', data)
    assert [list(r) for r in grown] == [['a', 'b', 'c'], ['a', 'b', 'c']]
    assert [r['c'] for r in grown] == [0, 1]
    assert evaluate('$.take(2).select($.set(a => 7)).select($.a) + '
                    '$.take(2).select($.a)', data) == [7, 7, 0, 1]
    assert [list(r) for r in evaluate('$.skip(5000)', data)] == [
        ['k4997'], ['k4998'], ['k4999']]


def test_context_variables_are_converted_as_data_is():
    # Mistral binds its data as the context's `$`, orquesta as variables:
    # both are staged with the data, in layers of their own.
    engine = factory.YaqlFactory().create()
    root = yaql.create_context()
    root['limit'] = 2
    ctx = root.create_child_context()
    records = [{'k': 'k%d' % i, 'v': i, 't': ('x', [i])} for i in range(5)]
    ctx['$'] = records
    ctx['other'] = {'records': records, 'limit': 3}
    assert engine('$.where($.v > $limit).select($.k)').evaluate(
        context=ctx) == ['k3', 'k4']
    assert engine('$other.records.where($.v < $other.limit).select($.t)'
                  ).evaluate(context=ctx) == [['x', [0]], ['x', [1]],
                                              ['x', [2]]]
    assert engine('$').evaluate(data=[1], context=ctx) == [1]


def test_frozen_data_is_staged_as_plain_data_is():
    # Mistral passes its data through `convert_input_data` (frozen dicts
    # and tuples): the same values come out as for the plain data.
    from yaql.language import utils as yaql_utils

    class Frozen(yaql_utils.FrozenDict):
        pass

    plain = [{'k': 'k%d' % i, 'v': i, 'tags': ['a', ('b', i)],
              'sub': {'x': i, 'y': [None, 1.5]}} for i in range(50)]
    frozen = yaql_utils.convert_input_data(plain)
    assert isinstance(frozen[0], yaql_utils.FrozenDict)
    assert evaluate('$', frozen) == evaluate('$', plain)
    assert evaluate('$.where($.v > 47).select([$.k, $.sub.y])', frozen) == [
        ['k48', [None, 1.5]], ['k49', [None, 1.5]]]
    assert evaluate('$.tags', Frozen(tags=('x', 'y'))) == ['x', 'y']
    assert evaluate('$', ((1, 2), ())) == [[1, 2], []]


def test_a_list_changed_while_it_is_converted_is_read_as_it_is_now():
    # A mapping of the application's own is converted by running its code,
    # which here empties or extends the list being converted: the items
    # read are those the list holds at each step, as the reference reads
    # them (no crash, no item twice).
    import collections.abc

    class Mutating(collections.abc.Mapping):
        def __init__(self, change):
            self.change = change

        def __getitem__(self, key):
            return 1

        def __iter__(self):
            self.change()
            return iter(['a'])

        def __len__(self):
            return 1

    emptied = []
    emptied.extend([Mutating(emptied.clear), 'x', {'k': 'y'}])
    assert evaluate('$', emptied) == [{'a': 1}]
    extended = ['a']
    extended.append(Mutating(lambda: extended.append('late')))
    assert evaluate('$', extended) == ['a', {'a': 1}, 'late']


def test_data_or_results_nested_too_deep_raise_recursion_error():
    # A list or dict that holds itself, and a result nested a hundred
    # thousand deep, end in RecursionError as in the reference (they once
    # overflowed the native stack and took the process down).
    import pytest
    looped = []
    looped.append(looped)
    with pytest.raises(RecursionError):
        evaluate('$.len()', looped)
    selfish = {}
    selfish['self'] = selfish
    with pytest.raises(RecursionError):
        evaluate('$.len()', selfish)
    with pytest.raises(RecursionError):
        evaluate('range(100000).aggregate([$1], [])', None)
    # Within Python's recursion limit both ways are converted.
    nested = evaluate('range(300).aggregate([$1], [])', None)
    depth = 0
    while nested:
        nested, depth = nested[0], depth + 1
    assert depth == 300
    assert evaluate('$.len()', [[[[1]]]]) == 1


def test_a_thread_with_a_small_stack_gets_recursion_error_not_a_crash():
    # 900 containers, within Python's recursion limit but more than a
    # 256 KiB stack holds at a few hundred bytes a level: the conversion
    # stops at the stack's end (on a machine where it fits, it converts);
    # a crash would end the test run.
    import threading
    deep = []
    for _ in range(450):
        deep = [{'a': deep}]
    outcome = []

    def convert():
        try:
            evaluate('$', deep)
            outcome.append('converted')
        except RecursionError:
            outcome.append('RecursionError')

    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=convert)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert outcome in (['RecursionError'], ['converted'])


def test_strings_that_are_not_unicode_text_pass_through():
    # json.loads keeps an escaped lone surrogate; such a string is carried
    # through as the Python object it is (the engine's strings are Unicode
    # text), where the reference also keeps it.
    import json
    data = json.loads('[{"n": "ok", "s": "a\\ud800b"}, {"n": "x", "s": "b"}]')
    assert evaluate('$', data) == data
    assert evaluate('$.where($.n = "ok").select($.s)', data) == ['a\ud800b']
    assert evaluate('$.select($.n)', data) == ['ok', 'x']


def test_a_key_python_cannot_hash_stops_the_result_before_later_lazy_parts():
    # The reference converts a result in order and drains a lazy sequence
    # as it meets it: a dict key that becomes a list raises TypeError before
    # the parts after it run (here they would raise another error, or
    # never end).
    data = ['a', [], {'a': {'b': None}}, -7]
    for expr in ('$.accumulate($1 + $2, $.toDict($, $))',
                 '[{[1] => 2}, $.repeat(-1).distinct()]',
                 '{[1] => 2, 3 => $.repeat(-1).distinct()}'):
        with pytest.raises(TypeError) as info:
            evaluate(expr, data)
        assert str(info.value) == "unhashable type: 'list'", expr
    # Sets of lists are refused as sets, and kept as lists of lists.
    with pytest.raises(TypeError):
        evaluate('[set([1]), range(3).select($)]', None)
    engine = factory.YaqlFactory().create(
        options={'yaql.convertSetsToLists': True})
    assert engine('[set([1]), range(3).select($)]').evaluate(
        data=None, context=yaql.create_context()) == [[[1]], [0, 1, 2]]
