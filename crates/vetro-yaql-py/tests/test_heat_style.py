"""The drop-in embedded the way Heat's ``yaql`` intrinsic function does:
options passed positionally, a cached root context, evaluation against
``{'data': ...}`` on a child context, and YaqlException turned into
ValueError."""

import pytest

import yaql
from yaql.language import exceptions


class Yaql:
    _engine = None
    _context = None

    @classmethod
    def get_yaql_parser(cls):
        if cls._engine is None:
            cls._engine = yaql.YaqlFactory().create({
                'yaql.limitIterators': 200,
                'yaql.memoryQuota': 10000})
        return cls._engine

    @classmethod
    def get_context(cls):
        if cls._context is None:
            cls._context = yaql.create_context()
        return cls._context.create_child_context()

    def __init__(self, expression):
        try:
            self.statement = self.get_yaql_parser()(expression)
        except exceptions.YaqlException as e:
            raise ValueError(f'Bad expression {e}.')

    def result(self, data):
        return self.statement.evaluate({'data': data}, self.get_context())


def test_template_expressions():
    assert Yaql('$.data.servers.select($.name)').result(
        {'servers': [{'name': 'a'}, {'name': 'b'}]}) == ['a', 'b']
    assert Yaql("$.data.where($ > 1).sum()").result([1, 2, 3]) == 5
    assert Yaql("dict($.data.items().where($[1] != null))").result(
        {'a': 1, 'b': None}) == {'a': 1}


def test_options_are_read():
    engine = Yaql.get_yaql_parser()
    assert engine.options['yaql.limitIterators'] == 200
    with pytest.raises(exceptions.CollectionTooLargeException):
        Yaql('$.data.select($)').result(list(range(300)))
    with pytest.raises(exceptions.MemoryQuotaExceededException):
        Yaql("range(0, 190).select('x' * 100)").result(None)


def test_bad_expression():
    with pytest.raises(ValueError, match='Bad expression'):
        Yaql('$.data.')
