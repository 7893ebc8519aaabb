"""The drop-in embedded the way orquesta (StackStorm) does: a default
engine, data under ``__vars`` read by a ``ctx()`` function, string results
re-evaluated, exact error texts reported as ``Class: message``."""

import pytest

import yaql
import yaql.language.exceptions as yaql_exc
import yaql.language.factory
import yaql.language.utils as yaql_utils

ENGINE = yaql.language.factory.YaqlFactory().create()
ROOT = yaql.create_context()


def ctx_(context, key=None):
    variables = context['__vars']
    if not key:
        return variables
    if key not in variables:
        raise KeyError(f'Unable to resolve key "{key}"')
    return variables[key]


def zip_(*args, **kwargs):
    pad = kwargs.pop('pad', None)
    longest = max(len(a) for a in args)
    return [tuple(a[i] if i < len(a) else pad for a in args)
            for i in range(longest)]


def item_(context, key=None):
    current = context['__current_item']
    return current if not key else current[key]


ROOT.register_function(ctx_, name='ctx')
ROOT.register_function(zip_, name='zip')
ROOT.register_function(item_, name='item')


def contextualize(data):
    ctx = ROOT.create_child_context()
    if isinstance(data, (yaql_utils.SequenceType, yaql_utils.MappingType)):
        ctx['__vars'] = yaql_utils.convert_input_data(data)
    ctx['__current_item'] = data.get('__current_item') \
        if isinstance(data, dict) else None
    return ctx


def evaluate(expression, data):
    try:
        return ENGINE(expression).evaluate(context=contextualize(data))
    except KeyError as e:
        return f'KeyError: {e}'
    except (yaql_exc.YaqlException, ValueError, TypeError) as e:
        return f'{e.__class__.__name__}: {e}'


def test_ctx_function():
    data = {'x': 1, 'y': {'z': [1, 2, 3]}}
    assert evaluate('ctx().x', data) == 1
    assert evaluate('ctx(y).z.sum()', data) == 6
    assert evaluate("ctx('x') + 1", data) == 2
    assert evaluate('ctx().keys().orderBy($)', data) == ['x', 'y']


def test_zip_keyword_padding():
    assert evaluate('zip([1, 2], [3], pad => 0)', {}) == [[1, 3], [2, 0]]


def test_items():
    assert evaluate('item(a)', {'__current_item': {'a': 5}}) == 5


def test_error_texts():
    assert evaluate('ctx().y.value', {'y': 1}) == \
        'NoFunctionRegisteredException: Unknown function "#property#value"'
    # The parser refuses `<` before the lexer reaches `%`.
    assert evaluate('<% succeeded()', {}) == \
        "YaqlGrammarException: Parse error: unexpected '<' at position 0 " \
        "of expression '<% succeeded()'"
    assert evaluate('1 + %', {}) == \
        "YaqlLexicalException: Lexical error: illegal character '%' at " \
        "position 4"
    assert evaluate("f(1 'a')", {}) == \
        "YaqlGrammarException: Parse error: unexpected 'a' at position 4 " \
        "of expression 'f(1 'a')'"
    assert evaluate('ctx(missing)', {'x': 1}) == \
        'KeyError: \'Unable to resolve key "missing"\''
    assert evaluate('ctx().x.foo()', {'x': 1}).startswith(
        'NoMethodRegisteredException: Unknown method "foo" for receiver 1')


def test_grammar_error_attributes():
    with pytest.raises(yaql_exc.YaqlGrammarException) as info:
        ENGINE('ctx().x +')
    assert info.value.message == 'Parse error: unexpected end of statement'
    assert info.value.position is None
