"""The drop-in embedded the way Mistral does: one global engine built with
options by keyword, one root context with Python functions whose first
parameter is ``context``, data on a child context, errors caught as
YaqlException / KeyError / ValueError / TypeError."""

import threading

import pytest
import yaml

import yaql
from yaql.language import exceptions as yaql_exc
from yaql.language import factory
from yaql.language import utils as yaql_utils

yaml.SafeDumper.add_representer(
    yaql_utils.FrozenDict,
    lambda dumper, data: dumper.represent_dict(data._d))

ENGINE = factory.YaqlFactory(keyword_operator='=>',
                             allow_delegates=False).create(options={
                                 'yaql.limitIterators': -1,
                                 'yaql.memoryQuota': -1,
                                 'yaql.convertTuplesToLists': True,
                                 'yaql.convertSetsToLists': False,
                                 'yaql.iterableDicts': False,
                                 'yaql.convertOutputData': True,
                             })
ROOT = yaql.create_context()

CALLS = []


def env_(context):
    return context['__env']


def execution_(context):
    return context['__execution']


def task_(context, task_name=None):
    CALLS.append(task_name)
    return {'name': task_name or context['__task_execution']['name'],
            'state': 'SUCCESS'}


def json_dump_(context, data):
    import json
    return json.dumps(data, sort_keys=True, default=lambda o: dict(o))


def yaml_dump_(context, data):
    return yaml.safe_dump(data, default_flow_style=True).strip()


def tasks_(context, workflow_execution_id=None, recursive=False, state=None,
           *args, **kwargs):
    return [workflow_execution_id, recursive, state, list(args),
            sorted(kwargs.items())]


for name, func in [('env', env_), ('execution', execution_), ('task', task_),
                   ('json_dump', json_dump_), ('yaml_dump', yaml_dump_),
                   ('tasks', tasks_)]:
    ROOT.register_function(func, name=name)


def evaluate(expression, data):
    ctx = ROOT.create_child_context()
    ctx['$'] = yaql_utils.convert_input_data(data)
    ctx['__env'] = {'region': 'eu'}
    ctx['__execution'] = {'id': 'ex-1', 'params': {'a': 1}}
    ctx['__task_execution'] = {'name': 'current'}
    return ENGINE(expression).evaluate(context=ctx)


def sanitize(result):
    if isinstance(result, yaql_utils.FrozenDict):
        return result._d
    if yaql_utils.is_iterator(result):
        return list(result)
    return result


def test_data_and_functions():
    assert evaluate('$.x + 1', {'x': 41}) == 42
    assert evaluate('env().region', {}) == 'eu'
    assert evaluate('execution().params.a', {}) == 1
    assert evaluate('task().name', {}) == 'current'
    assert evaluate("task('other').state", {}) == 'SUCCESS'


def test_defaults_varargs_and_keyword_arguments():
    assert evaluate("tasks()", {}) == [None, False, None, [], []]
    assert evaluate("tasks('w', true, state => 'ERROR')", {}) == \
        ['w', True, 'ERROR', [], []]
    assert evaluate("tasks('w', false, 'RUNNING', 1, 2, x => 3)", {}) == \
        ['w', False, 'RUNNING', [1, 2], [['x', 3]]]


def test_callbacks_receive_frozen_values():
    assert evaluate('json_dump($)', {'b': [1, 2], 'a': {'c': None}}) == \
        '{"a": {"c": null}, "b": [1, 2]}'
    assert evaluate('yaml_dump($.a)', {'a': {'k': 'v'}}) == '{k: v}'


def test_results_are_plain_python():
    r = evaluate('$.items.where($.v > 1).select({n => $.n})',
                 {'items': [{'n': 'a', 'v': 1}, {'n': 'b', 'v': 2}]})
    assert r == [{'n': 'b'}]
    assert type(r) is list and type(r[0]) is dict
    assert sanitize(evaluate('$', {'k': (1, 2)})) == {'k': [1, 2]}


@pytest.mark.parametrize('expression, data, error', [
    ('$.a.b', {'a': {}}, KeyError),
    ('1 / 0', {}, ZeroDivisionError),
    ('unknown_function()', {}, yaql_exc.NoFunctionRegisteredException),
    ('$.foo(', {}, yaql_exc.YaqlGrammarException),
    ('int("x")', {}, ValueError),
])
def test_errors_mistral_catches(expression, data, error):
    with pytest.raises(error) as info:
        evaluate(expression, data)
    assert isinstance(info.value, (yaql_exc.YaqlException, KeyError,
                                   ValueError, TypeError,
                                   ZeroDivisionError))


def test_validation_message():
    with pytest.raises(yaql_exc.YaqlException) as info:
        ENGINE('$.a *')
    message = getattr(info.value, 'message', info.value)
    assert "unexpected end of statement" in str(message)
    with pytest.raises(yaql_exc.YaqlGrammarException) as info:
        ENGINE('* 1')
    assert "unexpected '*' at position 0" in info.value.message
    assert info.value.position == 0


def test_shared_engine_and_root_context_across_threads():
    results = []
    errors = []

    def work(i):
        try:
            for j in range(50):
                results.append(evaluate('$.n * 2 + env().region.len()',
                                        {'n': i * 100 + j}))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == sorted((i * 100 + j) * 2 + 2
                                     for i in range(4) for j in range(50))
