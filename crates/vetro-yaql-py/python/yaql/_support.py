"""Helpers the Rust core calls: value construction and classification,
and building the exception a YAQL error maps to."""

import ast
import datetime
import re

from yaql import yaqlization
from yaql.language import exceptions
from yaql.language import utils
from yaql.language.utils import FrozenDict, NO_VALUE  # noqa: F401

yaqlized_attribute = yaqlization._attribute
yaqlized_call = yaqlization._call
yaqlized_index = yaqlization._index

wrap_frozen_dict = utils._wrap_frozen_dict

_UTC = datetime.timezone.utc


def make_datetime(fields, offset):
    tz = None if offset is None else make_timezone(offset)
    return datetime.datetime(*fields, tzinfo=tz)


def make_timedelta(microseconds):
    return datetime.timedelta(microseconds=microseconds)


def make_timezone(seconds):
    if seconds == 0:
        return _UTC
    return datetime.timezone(datetime.timedelta(seconds=seconds))


def make_regex(pattern, flags):
    return re.compile(pattern, flags)


def classify(obj):
    """Tell the core how to hold a Python object it has no fast path for."""
    if isinstance(obj, utils.MappingType):
        return ('map', dict(obj.items()))
    if isinstance(obj, str):
        return ('seq', obj)
    if isinstance(obj, utils.SequenceType):
        return ('seq', tuple(obj))
    if isinstance(obj, utils.SetType):
        return ('set', obj)
    if isinstance(obj, datetime.datetime):
        offset = obj.utcoffset()
        fields = (obj.year, obj.month, obj.day, obj.hour, obj.minute,
                  obj.second, obj.microsecond)
        seconds = None if offset is None else int(offset.total_seconds())
        return ('dt', fields, seconds)
    if isinstance(obj, datetime.timedelta):
        return ('td', obj // datetime.timedelta(microseconds=1))
    if isinstance(obj, datetime.tzinfo):
        offset = obj.utcoffset(None)
        if offset is not None:
            return ('tz', int(offset.total_seconds()))
    if isinstance(obj, utils.IteratorType):
        return ('iter', obj)
    return ('obj', obj, yaqlization._operations(obj))


_BUILTIN = {
    'key': KeyError,
    'index': IndexError,
    'stop_iteration': StopIteration,
    'zero_division': ZeroDivisionError,
    'overflow': OverflowError,
    'recursion': RecursionError,
    'assertion': AssertionError,
    'type': TypeError,
    'value': ValueError,
    'attribute': AttributeError,
    'arithmetic': ArithmeticError,
    'regex': re.error,
    'timeout': TimeoutError,
}

_RESOLUTION = {
    'no_function': exceptions.NoFunctionRegisteredException,
    'no_method': exceptions.NoMethodRegisteredException,
    'no_matching_function': exceptions.NoMatchingFunctionException,
    'no_matching_method': exceptions.NoMatchingMethodException,
    'ambiguous_function': exceptions.AmbiguousFunctionException,
    'ambiguous_method': exceptions.AmbiguousMethodException,
    'mapping_translation': exceptions.MappingTranslationException,
    'argument': exceptions.ArgumentException,
    'collection_too_large': exceptions.CollectionTooLargeException,
    'memory_quota': exceptions.MemoryQuotaExceededException,
    'yaql': exceptions.YaqlException,
}


def _char_position(expr, position):
    if position is None or expr is None:
        return position
    return len(expr.encode('utf-8')[:position].decode('utf-8', 'ignore'))


def _key(message):
    """The key of a KeyError: the engine writes the missing key as Python's
    repr() writes it (`0`, `'a'`, `None`, `(1, 2)`), which Python's
    KeyError holds as the key itself; other messages are text."""
    try:
        return ast.literal_eval(message)
    except Exception:  # not a literal (a clipped repr, a message)
        return message


def _with_message(cls, text, **attrs):
    exc = cls.__new__(cls)
    Exception.__init__(exc, text)
    for k, v in attrs.items():
        setattr(exc, k, v)
    return exc


def _token_value(message):
    """The token a grammar error names, as the reference's lexer gives its
    value: a number, a string's content, a function's name, the constants
    true, false and null as Python values."""
    m = re.search(r"unexpected (?:number (\S+?)|string \"(.*)\"|'(.*?)')(?:,|$| at)",
                  message, re.S)
    if not m:
        return None
    number, string, token = m.groups()
    if number is not None:
        return float(number) if '.' in number else int(number)
    if string is not None:
        return string.replace('\\"', '"').replace('\\\\', '\\')
    if len(token) > 1 and token.endswith('('):
        return token[:-1]
    # The literal words are constants of the reference's lexer.
    return _CONSTANTS.get(token, token)


_CONSTANTS = {'true': True, 'false': False, 'null': None}


def _escape_error(expr, position, message):
    """The reference decodes a string's escapes with Python's codec, whose
    error on `\\x`, `\\u` or `\\U` followed by other than hex digits is a
    UnicodeDecodeError over the escape's bytes up to the first bad one."""
    reason = message[message.index('truncated'):]
    start = _char_position(expr, position)
    size = 2 + reason.count('X')
    escape = expr[start:start + size]
    good = len(escape[2:]) - len(escape[2:].lstrip('0123456789abcdefABCDEF'))
    return UnicodeDecodeError('unicodeescape', escape.encode('utf-8'), 0,
                              2 + good, reason)


def make_error(kind, message, position, expr, receiver=None):
    """The exception instance for a core error of the given kind
    (`receiver`: the text of a method call's receiver, for the errors of
    method resolution)."""
    if kind == 'lexical' and expr is not None and 'truncated \\' in message:
        return _escape_error(expr, position, message)
    if kind == 'lexical':
        m = re.search(r"character '(.*)'", message, re.S)
        value = m.group(1) if m else None
        return exceptions.YaqlLexicalException(
            value, _char_position(expr, position))
    if kind == 'grammar':
        if 'end of statement' in message or position is None:
            return exceptions.YaqlGrammarException(expr, None, None)
        return exceptions.YaqlGrammarException(
            expr, _token_value(message), _char_position(expr, position))
    if kind in _BUILTIN:
        cls = _BUILTIN[kind]
        if cls is KeyError:
            return KeyError(_key(message))
        return cls(message) if message else cls()
    cls = _RESOLUTION.get(kind, exceptions.YaqlException)
    if kind in ('no_function', 'no_matching_function', 'ambiguous_function'):
        m = re.search(r'function "(.*?)"', message, re.S)
        if m:
            return cls(m.group(1))
    if receiver is not None and kind in ('no_method', 'no_matching_method',
                                         'ambiguous_method'):
        m = re.search(r'method "(.*?)"', message, re.S)
        if m:
            return cls(m.group(1), receiver)
    if cls is exceptions.ArgumentException:
        m = re.match(r'Invalid argument (.*)', message)
        return _with_message(cls, message,
                             parameter_name=m.group(1) if m else None)
    return _with_message(cls, message)
