"""Extending the language from Python: yaqlized objects, parameter types
that the engine's signatures cannot express alone (literal-only, aggregated
and negated types), ``Super``, and results of a legacy engine."""

import re

import pytest

import yaql
from yaql import legacy
from yaql import yaqlization
from yaql.language import exceptions
from yaql.language import factory
from yaql.language import specs
from yaql.language import yaqltypes

ENGINE = factory.YaqlFactory().create()


def run(expr, data=None, context=None):
    return ENGINE(expr).evaluate(data=data,
                                 context=context or yaql.create_context())


class Server:
    kind = 'vm'

    def __init__(self, name):
        self.name = name
        self._secret = 'hidden'

    def rename(self, prefix, suffix=''):
        return prefix + self.name + suffix

    def twin(self):
        return Server(self.name + '-2')

    def len(self):
        return 42

    def __getitem__(self, key):
        return key.upper()


def test_yaqlized_object_attributes_methods_and_index():
    server = yaqlization.yaqlize(Server('web'))
    assert run('$.name', server) == 'web'
    assert run('$.kind', server) == 'vm'
    assert run("$.rename('a-', suffix => '-z')", server) == 'a-web-z'
    assert run('$[key]', server) == 'KEY'
    # A yaqlized object answers its methods before the library does.
    assert run('$.len()', server) == 42
    assert run('$?.name', None) is None
    with pytest.raises(AttributeError):
        run('$._secret', server)
    with pytest.raises(AttributeError):
        run('$.missing', server)
    # Results are plain Python objects unless auto-yaqlized.
    with pytest.raises(exceptions.NoFunctionRegisteredException):
        run('$.twin().name', server)
    auto = yaqlization.yaqlize(Server('db'), auto_yaqlize_result=True)
    assert run('$.twin().name', auto) == 'db-2'


def test_yaqlization_settings_are_honoured():
    plain = Server('web')
    with pytest.raises(exceptions.NoMethodRegisteredException):
        run('$.rename(x)', plain)
    with pytest.raises(exceptions.NoFunctionRegisteredException):
        run('$.name', plain)
    no_methods = yaqlization.yaqlize(Server('a'), yaqlize_methods=False)
    with pytest.raises(exceptions.NoMethodRegisteredException):
        run('$.rename(x)', no_methods)
    listed = yaqlization.yaqlize(Server('b'),
                                 whitelist=[re.compile('^re')])
    assert run('$.rename(x)', listed) == 'xb'
    with pytest.raises(AttributeError):
        run('$.name', listed)
    blocked = yaqlization.yaqlize(Server('c'),
                                  blacklist=[lambda n: n == 'kind'])
    assert run('$.name', blocked) == 'c'
    with pytest.raises(AttributeError):
        run('$.kind', blocked)
    with pytest.raises(KeyError):
        run('$[_private]', yaqlization.yaqlize(Server('d')))
    remapped = yaqlization.yaqlize(
        Server('e'), attribute_remapping={'title': 'name'})
    assert run('$.title', remapped) == 'e'
    with pytest.raises(AttributeError):
        run('$.name', remapped)
    # A context made without the yaqlized functions does not reach in.
    context = yaql.create_context(yaqlized=False)
    with pytest.raises(exceptions.NoFunctionRegisteredException):
        run('$.name', yaqlization.yaqlize(Server('f')), context)


def test_constant_parameters_refuse_computed_arguments():
    @specs.parameter('arg', yaqltypes.NumericConstant())
    def const_num(arg):
        return arg

    context = yaql.create_context()
    context.register_function(const_num)
    assert run('constNum(12)', context=context) == 12
    for expr in ('constNum($)', 'constNum(1 + 1)', "constNum('1')"):
        with pytest.raises(exceptions.NoMatchingFunctionException):
            run(expr, data=5, context=context)


def test_aggregated_and_negated_types():
    @specs.parameter('arg', yaqltypes.AnyOf(str, yaqltypes.Integer()))
    def either(arg):
        return type(arg).__name__

    @specs.parameter('arg', yaqltypes.NotOfType(str))
    def not_text(arg):
        return True

    context = yaql.create_context()
    context.register_function(either)
    context.register_function(not_text)
    assert run('either(a)', context=context) == 'str'
    assert run('either(1)', context=context) == 'int'
    assert run('notText(1)', context=context) is True
    for expr in ('either(1.5)', 'either(true)', 'notText(a)'):
        with pytest.raises(exceptions.NoMatchingFunctionException):
            run(expr, context=context)


def test_super_calls_the_outer_overload():
    @specs.parameter('items', yaqltypes.Sequence())
    @specs.inject('base', yaqltypes.Super())
    def len_(items, base):
        return base(items) * 10

    context = yaql.create_context().create_child_context()
    context.register_function(len_, name='len')
    assert run('len([1, 2])', context=context) == 20
    assert run("len('abc')", context=context) == 3


def test_legacy_results_keep_tuples_and_list_iterators():
    engine = legacy.YaqlFactory().create()
    context = legacy.create_context()
    assert engine('[1, 2]').evaluate(context=context) == (1, 2)
    assert engine('[1, 2].select($ * 2)').evaluate(context=context) == [2, 4]
    assert engine('[[1], range(0, 2)]').evaluate(context=context) == \
        ((1,), [0, 1])
    # Legacy `range(n)` counts from n without end: limits stop it.
    limited = legacy.YaqlFactory().create({'yaql.limitIterators': 3})
    with pytest.raises(exceptions.CollectionTooLargeException):
        limited('range(10).select($)').evaluate(context=context)
    quota = legacy.YaqlFactory().create({'yaql.memoryQuota': 100000})
    with pytest.raises(exceptions.MemoryQuotaExceededException):
        quota('range(10)').evaluate(context=context)


def test_legacy_lists_stay_lists_where_the_reference_builds_them():
    engine = legacy.YaqlFactory().create()
    context = legacy.create_context()

    def run(expr, data=None):
        return engine(expr).evaluate(data=data, context=context)

    assert run('list(1, [2], null)') == [1, (2,), None]
    assert run('[1, 2].toList()') == [1, 2]
    assert run("'a b'.split()") == ['a', 'b']
    # a list passed through unchanged stays a list...
    assert run("dict(a => list(1)).a") == [1]
    assert run("[list(1, 2), 3][0]") == [1, 2]
    assert run('[list(1), [1]]') == ([1], (1,))
    # the reference joins two tuples into a tuple, anything else lazily
    assert run("[1, 2] + [3]") == (1, 2, 3)
    assert run("list(1, 2) + [3]") == [1, 2, 3]
    assert run('list(1, 2).select($)') == [1, 2]


def test_legacy_results_refuse_what_python_cannot_hash():
    # Dict keys and set members of a legacy result take the result's
    # shape, as in the reference: tuples stay hashable, dicts, sets and
    # lists do not.
    engine = legacy.YaqlFactory().create()
    context = legacy.create_context()

    def run(expr):
        return engine(expr).evaluate(context=context)

    assert run('set([1, 2])') == {(1, 2)}
    assert run('dict([1, 2] => 1)') == {(1, 2): 1}
    for expr, kind in (('set({a => 1})', 'dict'),
                       ('{a => {}}.items()', 'dict'),
                       ('set(set(1))', 'set'),
                       ('set("a,b".split(","))', 'list')):
        with pytest.raises(TypeError) as info:
            run(expr)
        assert str(info.value) == f"unhashable type: '{kind}'"


def test_a_function_changed_after_registration_is_seen_as_changed():
    # The description of a Python function for the engine is kept from
    # one evaluation to the next, and made again when the definition
    # changes.
    from yaql.language import specs, yaqltypes
    engine = factory.YaqlFactory().create()
    context = yaql.create_context()

    def twice(x):
        return x * 2

    fd = specs.get_function_definition(twice, name='twice')
    context.register_function(fd)
    assert engine('twice(21)').evaluate(context=context) == 42
    assert engine('twice(abc)').evaluate(context=context) == 'abcabc'
    fd.parameters['x'].value_type = yaqltypes.PythonType(int)
    with pytest.raises(exceptions.NoMatchingFunctionException):
        engine('twice(abc)').evaluate(context=context)
    assert engine('twice(2)').evaluate(context=context) == 4
    fd.is_function, fd.is_method = False, True
    assert engine('3.twice()').evaluate(context=context) == 6
    with pytest.raises(exceptions.NoFunctionRegisteredException):
        engine('twice(3)').evaluate(context=context)
