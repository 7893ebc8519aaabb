"""Errors carry the reference's messages: those of function and method
resolution (a method's names the receiver as `str()` prints it: yaql
3.2.0 formats the Python object it holds, lists as tuples, sets as
frozensets), and Python's own errors as Python 3.11 raises them in the
reference (a KeyError holds the missing key itself)."""

import pytest

import yaql
import yaql.language.exceptions as yaql_exc
import yaql.language.factory

ENGINE = yaql.language.factory.YaqlFactory().create()

CASES = [
    ('[1, 2].foo()', yaql_exc.NoMethodRegisteredException,
     'Unknown method "foo" for receiver (1, 2)'),
    ('$.foo()', yaql_exc.NoMethodRegisteredException,
     "Unknown method \"foo\" for receiver {'x': (1, {'y': 'z'}), 'a': None}"),
    ('"abc".foo()', yaql_exc.NoMethodRegisteredException,
     'Unknown method "foo" for receiver abc'),
    ('$.a.foo()', yaql_exc.NoMethodRegisteredException,
     'Unknown method "foo" for receiver None'),
    ('1.foo(1 / 0)', yaql_exc.NoMethodRegisteredException,
     'Unknown method "foo" for receiver 1'),
    ('set(1, 2).foo()', yaql_exc.NoMethodRegisteredException,
     'Unknown method "foo" for receiver frozenset({1, 2})'),
    ('[1, 2].len(3)', yaql_exc.NoMatchingMethodException,
     'No method "len" for receiver (1, 2) matches supplied arguments'),
    ('$.x.join(1)', yaql_exc.NoMatchingMethodException,
     "No method \"join\" for receiver (1, {'y': 'z'}) matches supplied "
     "arguments"),
    ('[1, 2].thenBy($)', yaql_exc.NoMatchingMethodException,
     'No method "thenBy" for receiver (1, 2) matches supplied arguments'),
    ('set(1, 2).insert(0, 1)', yaql_exc.NoMatchingMethodException,
     'No method "insert" for receiver frozenset({1, 2}) matches supplied '
     'arguments'),
    # A lazy receiver prints as the drop-in's generator (the reference
    # prints its Python object with an address).
    ('$.x.where(true).len(2)', yaql_exc.NoMatchingMethodException,
     'No method "len" for receiver <generator object> matches supplied '
     'arguments'),
    ('foo()', yaql_exc.NoFunctionRegisteredException,
     'Unknown function "foo"'),
    ('[true, 1].max()', yaql_exc.NoMatchingFunctionException,
     'No function "#operator_>" matches supplied arguments'),
    ('[1, "a"].orderBy($)', yaql_exc.NoMatchingFunctionException,
     'No function "#operator_<" matches supplied arguments'),
]


@pytest.mark.parametrize('expr,cls,message', CASES)
def test_resolution_error_messages(expr, cls, message):
    data = {'x': [1, {'y': 'z'}], 'a': None}
    with pytest.raises(cls) as info:
        ENGINE(expr).evaluate(data=data, context=yaql.create_context())
    assert type(info.value) is cls
    assert str(info.value) == message


def test_a_huge_receiver_is_cut():
    data = ['x' * 1000] * 2000
    with pytest.raises(yaql_exc.NoMethodRegisteredException) as info:
        ENGINE('$.foo()').evaluate(data=data, context=yaql.create_context())
    text = str(info.value)
    assert text.startswith('Unknown method "foo" for receiver (\'xxx')
    assert text.endswith('...')
    assert len(text) < 2 * 2 ** 20


BUILTIN = [
    ('[].first()', StopIteration, ''),
    ('[1, 2].single()', StopIteration,
     'Collection contains more than one item'),
    ('$.b', KeyError, "'b'"),
    ('{}[-1]', KeyError, '-1'),
    ('{}[null]', KeyError, 'None'),
    ('{}[[1, 2]]', KeyError, '(1, 2)'),
    ('int([])', TypeError, "int() argument must be a string, a bytes-like "
     "object or a real number, not 'tuple'"),
    ('float({})', TypeError,
     "float() argument must be a string or a real number, not 'FrozenDict'"),
    ('0 mod 0', ZeroDivisionError, 'integer modulo by zero'),
    ('0 / 0', ZeroDivisionError, 'integer division or modulo by zero'),
    ('[1].take(-1)', ValueError, 'Stop argument for islice() must be None '
     'or an integer: 0 <= x <= sys.maxsize.'),
    ('[1].take(-2)', ValueError, 'Indices for islice() must be None or an '
     'integer: 0 <= x <= sys.maxsize.'),
    ('[1].skip(-1)', ValueError, 'Indices for islice() must be None or an '
     'integer: 0 <= x <= sys.maxsize.'),
]


@pytest.mark.parametrize('expr,cls,message', BUILTIN)
def test_python_error_messages(expr, cls, message):
    with pytest.raises(cls) as info:
        ENGINE(expr).evaluate(data={'a': 1}, context=yaql.create_context())
    assert type(info.value) is cls
    assert str(info.value) == message


def test_a_key_error_holds_the_key():
    for expr, key in (('{}[-1]', -1), ('$.b', 'b'), ('{}[[1, 2]]', (1, 2))):
        with pytest.raises(KeyError) as info:
            ENGINE(expr).evaluate(data={}, context=yaql.create_context())
        assert info.value.args == (key,)
