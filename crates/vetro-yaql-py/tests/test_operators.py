"""Custom operators: ``YaqlFactory.insert_operator`` as in the reference
(new symbols and words, their precedence groups, aliases, the name-value
operator) and the errors of an invalid table."""

import pytest

import yaql
from yaql.language import exceptions
from yaql.language import factory
from yaql.language import specs

OT = factory.OperatorType


def context():
    ctx = yaql.create_context()

    @specs.name('#operator_<>')
    def concat(left, right):
        return f'{left}<>{right}'

    @specs.name('#unary_operator_~')
    def tilde(value):
        return f'~{value}'

    @specs.name('#unary_operator_!')
    def factorial(value):
        out = 1
        for i in range(2, value + 1):
            out *= i
        return out

    @specs.name('*xor')
    def xor(left, right):
        return bool(left) != bool(right)

    for f in (concat, tilde, factorial, xor):
        ctx.register_function(f)
    return ctx


def engine(*inserts, **kwargs):
    f = factory.YaqlFactory(**kwargs)
    for args in inserts:
        f.insert_operator(*args)
    return f.create()


def run(eng, expr, data=None):
    return eng(expr).evaluate(data=data, context=context())


def test_binary_operator_groups_decide_precedence():
    # `<>` in a group of its own right below `*`: tighter than `+`.
    tight = engine(('*', True, '<>', OT.BINARY_LEFT_ASSOCIATIVE, True))
    assert run(tight, "'a' + 2 <> 3") == 'a2<>3'
    # In the group of `or`: looser than `+`.
    loose = engine(('or', True, '<>', OT.BINARY_LEFT_ASSOCIATIVE, False))
    assert run(loose, '1 + 2 <> 3') == '3<>3'
    assert run(loose, "1 <> 2 <> 3") == '1<>2<>3'


def test_right_associative_and_word_operators_with_alias():
    eng = engine(('and', True, 'xor', OT.BINARY_RIGHT_ASSOCIATIVE, False,
                  'xor'))
    assert run(eng, 'true xor false') is True
    assert run(eng, 'true xor true xor true') is True
    # `xor` is an operator word now, but `xor(` still calls a function
    with pytest.raises(exceptions.NoFunctionRegisteredException):
        run(eng, 'xor(1, 2)')


def test_prefix_and_suffix_operators():
    eng = engine((None, False, '~', OT.PREFIX_UNARY, True),
                 ('-', False, '!', OT.SUFFIX_UNARY, True))
    assert run(eng, '~$', 'x') == '~x'
    assert run(eng, '3! + 1') == 7
    # `!` is in a group below the unary minus: (-3)!
    assert run(eng, '-3!') == 1


def test_high_precedence_insertion_keeps_the_standard_grammar():
    eng = engine((None, True, ':', OT.BINARY_LEFT_ASSOCIATIVE, True),
                 allow_delegates=True)
    assert run(eng, '$.a[0]', {'a': [1]}) == 1
    assert run(eng, 'let(x => 2) -> $x * 3 + 1') == 7
    assert run(eng, '[1, 2, 3].where($ > 1).select($ * 10)') == [20, 30]


def test_keyword_operator_of_the_factory():
    eng = engine(keyword_operator='<-')
    assert run(eng, 'dict(a <- 1)') == {'a': 1}
    with pytest.raises(exceptions.YaqlGrammarException):
        run(eng, 'dict(a => 1)')


def test_invalid_tables_raise_at_create():
    f = factory.YaqlFactory()
    f.insert_operator(None, True, '+', OT.BINARY_LEFT_ASSOCIATIVE, True)
    with pytest.raises(exceptions.InvalidOperatorTableException):
        f.create()
    f = factory.YaqlFactory()
    f.insert_operator(None, True, '::', OT.NAME_VALUE_PAIR, True)
    with pytest.raises(exceptions.InvalidOperatorTableException):
        f.create()
    with pytest.raises(ValueError):
        factory.YaqlFactory().insert_operator(
            'nope', True, '<>', OT.BINARY_LEFT_ASSOCIATIVE, True)
