"""The GIL is released while an expression evaluates: other Python threads
run meanwhile, and threads share one engine."""

import threading
import time

import pytest

import yaql
from yaql.language import factory

# A computation on no data: all of it runs in the engine.
LONG = 'range({n}).where($ mod 7 = 0).select($ * 2).len()'
# The same left lazy in the result (which ends empty): all of it runs as
# the result is drained.
LAZY = 'range({n}).where($ mod 7 = 0).select($ * 2).where($ < 0)'


def _counting(during):
    """How far a Python thread counts while `during()` runs."""
    stop = threading.Event()
    count = [0]

    def counter():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=counter)
    t.start()
    try:
        time.sleep(0.01)  # let the counter start
        before = count[0]
        t0 = time.perf_counter()
        during()
        elapsed = time.perf_counter() - t0
        counted = count[0] - before
    finally:
        stop.set()
        t.join()
    return counted, elapsed


@pytest.mark.parametrize('text', [LONG, LAZY])
def test_python_threads_run_while_an_expression_evaluates(text):
    engine = factory.YaqlFactory().create()
    context = yaql.create_context()
    n = 20000
    stmt = engine(text.format(n=n))
    stmt.evaluate(context=context)
    # Grow the computation until one evaluation takes about 0.2 s.
    while True:
        t0 = time.perf_counter()
        stmt.evaluate(context=context)
        if time.perf_counter() - t0 > 0.2 or n > 50_000_000:
            break
        n *= 4
        stmt = engine(text.format(n=n))
    expected = len([x for x in range(n) if x % 7 == 0]) if text == LONG else []

    results = []
    counted, elapsed = _counting(
        lambda: results.append(stmt.evaluate(context=context)))
    assert results == [expected]
    # The same thread's count while this thread sleeps (which releases
    # the GIL), for as long: what a free-running counter reaches.
    free, _ = _counting(lambda: time.sleep(elapsed))
    # Were the GIL held while the engine evaluates, the counter would only
    # run at the call's edges (a few milliseconds of switch interval out of
    # 0.2 s or more).
    assert counted > free * 0.1, (counted, free)


def test_threads_share_one_statement():
    engine = factory.YaqlFactory().create()
    context = yaql.create_context()
    stmt = engine('$.where($.v > 2).select($.k)')
    data = [{'k': 'k%d' % i, 'v': i % 5} for i in range(2000)]
    expected = ['k%d' % i for i in range(2000) if i % 5 > 2]
    results = [None] * 4
    errors = []

    def work(i):
        try:
            for _ in range(5):
                results[i] = stmt.evaluate(data=data, context=context)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == [expected] * 4


def test_phase_times_split_a_call_by_the_gil():
    from yaql._vetro_yaql import phase_times
    engine = factory.YaqlFactory().create()
    context = yaql.create_context()
    data = [{'k': 'k%d' % i, 'v': i} for i in range(20000)]
    computation = engine(LONG.format(n=200000))
    conversion = engine('1')
    computation.evaluate(context=context)
    try:
        phase_times(True)
        for _ in range(3):
            computation.evaluate(context=context)
        calls, held_in, released, held_out = phase_times(True)
        assert calls == 3
        # A computation on no data holds the GIL only to start and return.
        assert released > 10 * (held_in + held_out), (held_in, released)
        for _ in range(3):
            conversion.evaluate(data=data, context=context)
        calls, held_in, released, held_out = phase_times(False)
        assert calls == 3
        # Converting the records in is done with the GIL held.
        assert held_in > 0 and held_in > held_out
    finally:
        phase_times(False)
    assert phase_times() == (0, 0, 0, 0)
