"""Engine factory: parser flavour and options → an engine."""

import collections

from yaql._vetro_yaql import Core
from yaql.language import exceptions
from yaql.language import expressions
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
        ('>', _L), ('<', _L), ('>=', _L), ('<=', _L), ('!=', _L), ('=', _L),
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
        binary_types = (OperatorType.BINARY_RIGHT_ASSOCIATIVE,
                        OperatorType.BINARY_LEFT_ASSOCIATIVE,
                        OperatorType.NAME_VALUE_PAIR)
        position = 0
        if existing_operator is not None:
            position = -1
            for i, t in enumerate(self.operators):
                if len(t) < 2 or t[0] != existing_operator:
                    continue
                if existing_operator_binary == (t[1] in binary_types):
                    position = i
                    break
            if position < 0:
                raise ValueError('Operator {} is not found'.format(
                    existing_operator))
            while position < len(self.operators) and \
                    len(self.operators[position]) > 1:
                position += 1
        record = (new_operator, new_operator_type, new_operator_alias)
        if create_group:
            self.operators.insert(position, ())
            self.operators.insert(position + 1, record)
            self.operators.insert(position + 2, ())
        else:
            self.operators.insert(position, record)

    def create(self, options=None):
        options = dict(options or {})
        for name in self._custom_operators():
            raise exceptions.InvalidOperatorTableException(name)
        return YaqlEngine(self, utils.FrozenDict(options))

    def _custom_operators(self):
        standard = {(t[0], t[1]) for t in _standard_operators() if t}
        if self._keyword_operator:
            standard.add((self._keyword_operator,
                          OperatorType.NAME_VALUE_PAIR))
        if self._legacy:
            standard.add(('=>', _L))
        return [t[0] for t in self.operators
                if t and (t[0], t[1]) not in standard]


def _core(factory, options):
    get = options.get
    return Core(
        factory._legacy, bool(factory.allow_delegates),
        int(get('yaql.limitIterators', -1)),
        int(get('yaql.memoryQuota', -1)),
        bool(get('yaql.convertTuplesToLists', True)),
        bool(get('yaql.convertSetsToLists', False)),
        bool(get('yaql.iterableDicts', False)),
        bool(get('yaql.convertOutputData', True)),
    )


class YaqlEngine:
    """Parses expressions into statements (through a bounded parse cache)."""

    def __init__(self, factory, options):
        self._factory = factory
        self._options = options
        self._core = _core(factory, options)

    @property
    def options(self):
        return self._options

    @property
    def factory(self):
        return self._factory

    def __call__(self, expression, options=None):
        engine = self if not options else self.copy(options)
        engine._core.parse(expression)
        return expressions.Statement(expression, engine)

    def copy(self, options):
        merged = dict(self._options)
        merged.update(options)
        return YaqlEngine(self._factory, utils.FrozenDict(merged))
