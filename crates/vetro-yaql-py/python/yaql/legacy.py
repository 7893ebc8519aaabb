"""Legacy (yaql 0.2 compatible) mode: ``=>`` builds pairs and the legacy
function layer is added to the context."""

import yaql
from yaql.language import contexts
from yaql.language import factory
from yaql.language import utils


class YaqlFactory(factory.YaqlFactory):
    def __init__(self, allow_delegates=False):
        super().__init__(keyword_operator=None,
                         allow_delegates=allow_delegates)
        self._legacy = True
        self.insert_operator('or', True, '=>',
                             factory.OperatorType.BINARY_LEFT_ASSOCIATIVE,
                             True)

    def create(self, options=None):
        options = dict(options or {})
        options['yaql.convertTuplesToLists'] = False
        options['yaql.iterableDicts'] = True
        return super().create(options)


def create_context(*args, **kwargs):
    """``yaql.create_context`` plus the legacy function layer."""
    kwargs.pop('tuples', None)
    context = yaql.create_context(*args, **kwargs)
    context._library.legacy = True
    return context.create_child_context()


__all__ = ['YaqlFactory', 'create_context', 'contexts', 'utils']
