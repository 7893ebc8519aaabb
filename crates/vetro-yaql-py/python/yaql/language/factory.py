"""Engine factory: parser flavour and options → an engine."""

import collections

from yaql._vetro_yaql import Core
from yaql._vetro_yaql import EngineBase
from yaql.language import exceptions
from yaql.language import utils

OperatorType = collections.namedtuple('OperatorType', [
    'PREFIX_UNARY', 'SUFFIX_UNARY',
    'BINARY_LEFT_ASSOCIATIVE', 'BINARY_RIGHT_ASSOCIATIVE',
    'NAME_VALUE_PAIR'
])(
    PREFIX_UNARY='PREFIX_UNARY',
    SUFFIX_UNARY='SUFFIX_UNARY',
    BINARY_LEFT_ASSOCIATIVE='BINARY_LEFT_ASSOCIATIVE',
    BINARY_RIGHT_ASSOCIATIVE='BINARY_RIGHT_ASSOCIATIVE',
    NAME_VALUE_PAIR='NAME_VALUE_PAIR'
)

_L = OperatorType.BINARY_LEFT_ASSOCIATIVE


def _standard_operators():
    return [
        ('.', _L), ('?.', _L), (),
        ('[]', _L), ('{}', _L), (),
        ('+', OperatorType.PREFIX_UNARY), ('-', OperatorType.PREFIX_UNARY), (),
        ('=~', _L), ('!~', _L), (),
        ('*', _L), ('/', _L), ('mod', _L), (),
        ('+', _L), ('-', _L), (),
        ('>', _L), ('<', _L), ('>=', _L), ('<=', _L), ('!=', _L, 'not_equal'),
        ('=', _L, 'equal'),
        ('in', _L), (),
        ('not', OperatorType.PREFIX_UNARY), (),
        ('and', _L), (),
        ('or', _L), (),
        ('->', OperatorType.BINARY_RIGHT_ASSOCIATIVE),
    ]


class YaqlFactory:
    def __init__(self, keyword_operator='=>', allow_delegates=False):
        self._keyword_operator = keyword_operator
        self._allow_delegates = allow_delegates
        self.operators = _standard_operators()
        if keyword_operator:
            self.operators.insert(0, (keyword_operator,
                                      OperatorType.NAME_VALUE_PAIR))
        self._legacy = False

    @property
    def keyword_operator(self):
        return self._keyword_operator

    @property
    def allow_delegates(self):
        return self._allow_delegates

    def insert_operator(self, existing_operator, existing_operator_binary,
                        new_operator, new_operator_type, create_group,
                        new_operator_alias=None):
        self.operators = _inserted(
            self.operators, existing_operator, existing_operator_binary,
            (new_operator, new_operator_type, new_operator_alias),
            create_group)

    def create(self, options=None):
        options = dict(options or {})
        return YaqlEngine(self, utils.FrozenDict(options))

    def _operator_table(self):
        """The operator table for the engine: None when it is the built-in
        one of this factory's flavour, else ``(records, keyword)`` with
        records ``(symbol, type, group, alias)`` (group 0 binds tightest)."""
        records, keyword = _groups(self.operators)
        if _normalized(self.operators) == _normalized(self._default_operators()):
            return None
        return records, keyword

    def _default_operators(self):
        """The engine's built-in table: the standard one with `=>` for named
        arguments, or the legacy one, with `=>` a binary operator."""
        operators = _standard_operators()
        if not self._legacy:
            operators.insert(0, ('=>', OperatorType.NAME_VALUE_PAIR))
        else:
            operators = _inserted(operators, 'or', True, ('=>', _L, None),
                                  True)
        return operators


_BINARY = (OperatorType.BINARY_LEFT_ASSOCIATIVE,
           OperatorType.BINARY_RIGHT_ASSOCIATIVE)
_UNARY = (OperatorType.PREFIX_UNARY, OperatorType.SUFFIX_UNARY)


def _inserted(operators, existing, existing_binary, record, create_group):
    """The operator list with ``record`` added as the reference's
    ``insert_operator`` does: in the group after ``existing`` (or in the
    first group), or in a new group of its own there."""
    operators = list(operators)
    position = 0
    if existing is not None:
        kinds = _BINARY if existing_binary else _UNARY
        found = [i for i, t in enumerate(operators)
                 if len(t) >= 2 and t[0] == existing and t[1] in kinds]
        if not found:
            raise ValueError('Operator {} is not found'.format(existing))
        position = found[0]
        while position < len(operators) and len(operators[position]) > 1:
            position += 1
    if create_group:
        if position == len(operators):
            operators.append(())
            position += 1
        else:
            while position < len(operators) and len(operators[position]) < 2:
                position += 1
            operators.insert(position, ())
    operators.insert(position, record)
    return operators


def _normalized(operators):
    return [tuple(t) + (None,) * (3 - len(t)) if t else () for t in operators]


def _groups(operators):
    """Records with their precedence group, and the name-value operator;
    raises InvalidOperatorTableException where the reference does."""
    records = []
    keyword = None
    group = 0
    seen = set()
    for record in operators:
        if not record:
            group += 1
            continue
        symbol, kind = record[0], record[1]
        alias = record[2] if len(record) > 2 else None
        if kind == OperatorType.NAME_VALUE_PAIR:
            if keyword is not None:
                raise exceptions.InvalidOperatorTableException(symbol)
            keyword = symbol
            continue
        arity = 'binary' if kind in _BINARY else 'unary'
        if (kind not in _BINARY + _UNARY or (symbol, arity) in seen
                or not symbol or any(c.isspace() for c in symbol)):
            raise exceptions.InvalidOperatorTableException(symbol)
        seen.add((symbol, arity))
        records.append((symbol, kind, group, alias))
    return records, keyword


def _core(factory, options):
    get = options.get
    return Core(
        factory._legacy, bool(factory.allow_delegates),
        factory._operator_table(),
        int(get('yaql.limitIterators', -1)),
        int(get('yaql.memoryQuota', -1)),
        bool(get('yaql.convertTuplesToLists', True)),
        bool(get('yaql.convertSetsToLists', False)),
        bool(get('yaql.iterableDicts', False)),
        bool(get('yaql.convertOutputData', True)),
    )


class YaqlEngine(EngineBase):
    """Parses expressions into statements: ``engine(text)`` (implemented by
    the base class) checks the text's syntax and returns a
    ``expressions.Statement``; the syntax tree is built on evaluation and
    kept in the engine's bounded parse cache."""

    def __init__(self, factory, options):
        self._factory = factory
        self._options = options
        self._set_core(_core(factory, options))

    @property
    def options(self):
        return self._options

    @property
    def factory(self):
        return self._factory

    def copy(self, options):
        merged = dict(self._options)
        merged.update(options)
        return YaqlEngine(self._factory, utils.FrozenDict(merged))
