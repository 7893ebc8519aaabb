"""Values that share their containers (``[$l, $l]`` doubled in a loop: 60
lists, 2^60 paths) cross into Python without walking every path: a callback
receives the shared tuples themselves, comparisons are immediate, and a
result that would be written out path by path is refused at the engine's
cap instead of running without end."""

import time

import pytest

import yaql
from yaql.language import exceptions
from yaql.language import factory
from yaql.language import specs

DOUBLED = 'range(60).aggregate([$1, $1], 1)'


def test_a_callback_receives_a_shared_value_as_shared_tuples():
    context = yaql.create_context()

    @specs.parameter('v')
    def depth(v):
        n = 0
        while isinstance(v, tuple) and v:
            assert v[0] is v[1]
            v = v[0]
            n += 1
        return n

    context.register_function(depth)
    engine = factory.YaqlFactory().create()
    started = time.monotonic()
    assert engine('depth({0})'.format(DOUBLED)).evaluate(context=context) == 60
    assert time.monotonic() - started < 10


def test_shared_values_compare_at_once():
    engine = factory.YaqlFactory().create()
    expr = '{0} = {0}'.format(DOUBLED)
    started = time.monotonic()
    assert engine(expr).evaluate(context=yaql.create_context()) is True
    assert time.monotonic() - started < 10


def test_a_result_too_large_written_out_is_refused():
    engine = factory.YaqlFactory().create(
        options={'yaql.convertTuplesToLists': False})
    with pytest.raises(exceptions.MemoryQuotaExceededException):
        engine(DOUBLED).evaluate(context=yaql.create_context())
