"""Value helpers of the ``yaql`` package: markers, type aliases, input and
output conversion, ``FrozenDict`` and the limit helpers."""

import collections.abc
import re
import sys

from yaql.language import exceptions


def create_marker(msg):
    class MarkerClass:
        __slots__ = ()

        def __repr__(self):
            return msg
    return MarkerClass()


NO_VALUE = create_marker('<NoValue>')
KEYWORD_REGEX = re.compile(r'(?!__)\b[^\W\d]\w*\b')

SequenceType = collections.abc.Sequence
MutableSequenceType = collections.abc.MutableSequence
SetType = collections.abc.Set
MutableSetType = collections.abc.MutableSet
MappingType = collections.abc.Mapping
MutableMappingType = collections.abc.MutableMapping
IterableType = collections.abc.Iterable
IteratorType = collections.abc.Iterator
QueueType = collections.deque


def is_iterator(obj):
    return isinstance(obj, IteratorType)


def is_iterable(obj):
    return isinstance(obj, IterableType) and not isinstance(
        obj, (str, MappingType))


def is_sequence(obj):
    return isinstance(obj, SequenceType) and not isinstance(obj, str)


def is_mutable(obj):
    return isinstance(obj, (MutableSequenceType, MutableSetType,
                            MutableMappingType))


class FrozenDict(MappingType):
    """An immutable, hashable mapping: how YAQL holds dictionaries."""

    __slots__ = ('_d', '_hash')

    def __init__(self, *args, **kwargs):
        self._d = dict(*args, **kwargs)
        self._hash = None

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __getitem__(self, key):
        return self._d[key]

    def __contains__(self, key):
        return key in self._d

    def get(self, key, default=None):
        return self._d.get(key, default)

    def __hash__(self):
        if self._hash is None:
            h = 0
            for pair in self._d.items():
                h ^= hash(pair)
            self._hash = h
        return self._hash

    def __eq__(self, other):
        if isinstance(other, FrozenDict):
            return self._d == other._d
        return MappingType.__eq__(self, other)

    def __repr__(self):
        return repr(self._d)


def _wrap_frozen_dict(d):
    fd = FrozenDict.__new__(FrozenDict)
    fd._d = d
    fd._hash = None
    return fd


def convert_input_data(obj, rec=None):
    """Python data → the immutable shapes YAQL works on."""
    if rec is None:
        rec = convert_input_data
    if isinstance(obj, str):
        return obj
    if isinstance(obj, SequenceType):
        return tuple(rec(t, rec) for t in obj)
    if isinstance(obj, MappingType):
        return FrozenDict((rec(key, rec), rec(value, rec))
                          for key, value in obj.items())
    if isinstance(obj, MutableSetType):
        return frozenset(rec(t, rec) for t in obj)
    if isinstance(obj, IterableType):
        return map(lambda v: rec(v, rec), obj)
    return obj


def convert_tuples_to_lists(engine):
    return engine.options.get('yaql.convertTuplesToLists', True)


def convert_sets_to_lists(engine):
    return engine.options.get('yaql.convertSetsToLists', False)


def convert_output_data(obj, limit_func, engine, rec=None):
    """YAQL results → plain Python data (dict, list, set)."""
    if rec is None:
        rec = convert_output_data
    if isinstance(obj, collections.abc.Mapping):
        result = {}
        for key, value in limit_func(obj.items()):
            result[rec(key, limit_func, engine, rec)] = rec(
                value, limit_func, engine, rec)
        return result
    if isinstance(obj, SetType):
        items = (rec(t, limit_func, engine, rec) for t in limit_func(obj))
        return list(items) if convert_sets_to_lists(engine) else set(items)
    if isinstance(obj, (tuple, list)):
        seq = list if convert_tuples_to_lists(engine) else type(obj)
        return seq(rec(t, limit_func, engine, rec) for t in limit_func(obj))
    if is_iterable(obj):
        return list(rec(t, limit_func, engine, rec) for t in limit_func(obj))
    return obj


def memorize(collection, engine):
    """A re-iterable view of a one-shot iterator."""
    if not is_iterator(collection):
        return collection
    seen = []
    source = iter(collection)

    class Remembering:
        def __init__(self):
            self.index = 0

        def __iter__(self):
            return Remembering()

        def __next__(self):
            if self.index < len(seen):
                self.index += 1
                return seen[self.index - 1]
            value = next(source)
            seen.append(value)
            limit_memory_usage(engine, (1, seen))
            self.index += 1
            return value

    return Remembering()


def get_max_collection_size(engine):
    return engine.options.get('yaql.limitIterators', -1)


def get_memory_quota(engine):
    return engine.options.get('yaql.memoryQuota', -1)


def limit_iterable(iterable, limit_or_engine):
    if isinstance(limit_or_engine, int):
        max_count = limit_or_engine
    else:
        max_count = get_max_collection_size(limit_or_engine)
    if isinstance(iterable, (SequenceType, MappingType, SetType)):
        if 0 <= max_count < len(iterable):
            raise exceptions.CollectionTooLargeException(max_count)
        return iterable

    def limited():
        for i, item in enumerate(iterable):
            if 0 <= max_count <= i:
                raise exceptions.CollectionTooLargeException(max_count)
            yield item
    return limited()


def limit_memory_usage(quota_or_engine, *args):
    if isinstance(quota_or_engine, int):
        quota = quota_or_engine
    else:
        quota = get_memory_quota(quota_or_engine)
    if quota <= 0:
        return
    total = 0
    for count, obj in args:
        total += count * sys.getsizeof(obj, 0)
        if total > quota:
            raise exceptions.MemoryQuotaExceededException()


def to_extension_method(name, context):
    layers = context.collect_functions(
        name, lambda t, ctx: not t.is_function or not t.is_method,
        use_convention=True)
    if len(layers) > 1:
        raise ValueError(
            'Multi layer functions are not supported by this helper method')
    for spec in (layers[0] if layers else ()):
        spec = spec.clone()
        spec.is_function = True
        spec.is_method = True
        yield spec


def is_keyword(text):
    return KEYWORD_REGEX.match(text) is not None


def filter_parameters_dict(parameters):
    return {k: v for k, v in parameters.items() if is_keyword(k)}
