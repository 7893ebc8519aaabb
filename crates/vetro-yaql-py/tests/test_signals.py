"""A signal handler's exception stops a long evaluation, as it stops the
reference's: the evaluation runs without the GIL, and on Python's main
thread it lets Python run pending handlers now and then."""

import os
import signal
import subprocess
import sys
import time

import pytest
import yaql
from yaql.language import factory


class Alarm(Exception):
    pass


def raise_alarm(*_):
    raise Alarm()


@pytest.mark.parametrize('expression', [
    'sequence().where($ < 0).first()',
    # The result is lazy: the endless work is in draining it for Python.
    '$.repeat(-1).distinct()',
    '[1, 2].cycle().distinct()',
])
def test_an_alarm_handler_stops_an_endless_evaluation(expression):
    engine = factory.YaqlFactory().create()
    context = yaql.create_context()
    previous = signal.signal(signal.SIGALRM, raise_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        started = time.monotonic()
        with pytest.raises(Alarm):
            engine(expression).evaluate(data=1, context=context)
        assert time.monotonic() - started < 5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # The engine goes on serving.
    assert engine('[1, 2].len()').evaluate(data=None, context=context) == 2


def test_ctrl_c_stops_an_endless_evaluation():
    code = (
        "import yaql\n"
        "from yaql.language import factory\n"
        "engine = factory.YaqlFactory().create()\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    engine('$.repeat(-1).len()').evaluate(\n"
        "        data='', context=yaql.create_context())\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n")
    child = subprocess.Popen(
        [sys.executable, '-c', code], stdout=subprocess.PIPE, text=True,
        # Python installs its Ctrl-C handler only where SIGINT is not
        # ignored (a background job's is).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout.readline() == 'started\n'
        time.sleep(0.5)
        os.kill(child.pid, signal.SIGINT)
        out, _ = child.communicate(timeout=10)
    finally:
        child.kill()
    assert out == 'interrupted\n'
