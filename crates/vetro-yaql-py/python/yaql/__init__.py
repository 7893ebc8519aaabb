"""vetro's YAQL engine with the API of the ``yaql`` package.

The language, the standard library and evaluation run in a Rust extension
module (``yaql._vetro_yaql``); this package keeps the reference's module
layout, classes and exceptions on top of it."""

import collections.abc  # noqa: F401  (utils relies on collections.abc)

from yaql.language import contexts
from yaql.language import conventions
from yaql.language import factory
from yaql.language import specs
from yaql.language import utils
from yaql.language import yaqltypes

__version__ = '3.2.0+vetro1'

__all__ = ['create_context', 'eval', 'YaqlFactory', 'contexts',
           'conventions', 'factory', 'specs', 'utils', 'yaqltypes']

YaqlFactory = factory.YaqlFactory


def create_context(data=utils.NO_VALUE, context=None, system=True,
                   common=True, boolean=True, strings=True, math=True,
                   collections=True, queries=True, regex=True,
                   branching=True, no_sets=False, finalizer=None,
                   delegates=False, convention=None, datetime=True,
                   yaqlized=True, group_by_agg_fallback=True):
    """A root context standing for the standard library.

    The library itself lives in the engine; the family switches other than
    ``no_sets``, ``delegates``, ``yaqlized`` and ``group_by_agg_fallback`` are
    accepted and have no effect (every family is always present)."""
    if context is None:
        context = contexts.Context(
            convention=convention or conventions.CamelCaseConvention())
    context._library = contexts.Library(
        legacy=False, delegates=delegates, no_sets=no_sets,
        group_by_agg_fallback=group_by_agg_fallback, yaqlized=yaqlized)
    if data is not utils.NO_VALUE:
        context['$'] = data
    return context.create_child_context()


_default_engine = None
_cached_expressions = {}


def eval(expression, data=None):
    """Evaluate with a shared default engine (parses are cached)."""
    global _default_engine
    if _default_engine is None:
        _default_engine = YaqlFactory().create()
    return _default_engine(expression).evaluate(data=data,
                                                context=create_context())
