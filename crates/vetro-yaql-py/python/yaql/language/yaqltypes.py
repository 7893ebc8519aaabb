"""Parameter types for Python functions registered in a context.

Each type tells the engine which values it accepts (``_sig``: a type of the
engine's signature syntax, narrowed by ``_checker()`` when the syntax cannot
express it) and, for hidden and lazy types, what the Python function
receives (``_inject``/``_receive``)."""

import collections.abc
import datetime

from yaql.language import exceptions
from yaql.language import utils


class HiddenParameterType:
    """A parameter the caller does not pass: it is injected."""

    def _inject(self, engine, context):
        raise NotImplementedError


class LazyParameterType:
    """A parameter that receives its argument unevaluated."""


class SmartType:
    __slots__ = ('nullable',)
    _type = 'object'

    def __init__(self, nullable):
        self.nullable = nullable

    def _sig(self):
        return self._type + ('?' if self.nullable else '')

    def _checker(self):
        """A predicate the engine applies after ``_sig``'s type, or None."""
        return None

    def check(self, value, context=None, *args, **kwargs):
        if value is None:
            return self.nullable
        return self._accepts(value)

    def _accepts(self, value):
        return True

    def convert(self, value, receiver=None, context=None, function_spec=None,
                engine=None, *args, **kwargs):
        return value

    def _receive(self, value, engine, context):
        return value


class GenericType(SmartType):
    __slots__ = ('checker', 'converter')

    def __init__(self, nullable, checker=None, converter=None):
        super().__init__(nullable)
        self.checker = checker
        self.converter = converter

    def check(self, value, context=None, *args, **kwargs):
        if value is None:
            return self.nullable
        return self.checker is None or self.checker(value, context, *args,
                                                    **kwargs)

    def _checker(self):
        if self.checker is None:
            return None
        return lambda value: bool(self.check(value))

    def _receive(self, value, engine, context):
        if self.converter is None:
            return value
        return self.converter(value, None, context, None, engine)


_PYTHON_SIG = [
    (bool, 'bool'),
    (int, 'int'),
    (str, 'String'),
    (float, 'Number'),
    (datetime.datetime, 'DateTime'),
    (datetime.timedelta, 'TimeDelta'),
    (dict, 'Mapping'),
    (utils.MappingType, 'Mapping'),
    (list, 'Sequence'),
    (tuple, 'Sequence'),
    (set, 'Set'),
    (frozenset, 'Set'),
    (utils.SetType, 'Set'),
]


class PythonType(GenericType):
    __slots__ = ('python_type', 'validators')

    def __init__(self, python_type, nullable=True, validators=None):
        self.python_type = python_type
        self.validators = validators or []
        super().__init__(nullable, self._check_value)

    def _check_value(self, value, *args, **kwargs):
        return isinstance(value, self.python_type) and all(
            v(value) for v in self.validators)

    def _sig_name(self):
        t = self.python_type
        if t is not object and not isinstance(t, tuple):
            for py_type, sig in _PYTHON_SIG:
                if t is py_type:
                    return sig
        return 'object'

    def _sig(self):
        name = self._sig_name()
        if name == 'object' and self.nullable:
            return 'any'
        return name + ('?' if self.nullable else '')

    def _checker(self):
        # The signature type is exact for the classes it names; other
        # classes and validators are checked on the value.
        if self.validators or (self._sig_name() == 'object' and
                               self.python_type is not object):
            return lambda value: bool(self.check(value))
        return None


class _Simple(SmartType):
    __slots__ = ()

    def __init__(self, nullable=False):
        super().__init__(nullable)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class String(_Simple):
    _type = 'String'

    def _accepts(self, value):
        return isinstance(value, str)


class Integer(_Simple):
    _type = 'Integer'

    def _accepts(self, value):
        return isinstance(value, int) and not isinstance(value, bool)


class Number(_Simple):
    _type = 'Number'

    def _accepts(self, value):
        return _is_number(value)


class DateTime(_Simple):
    _type = 'DateTime'

    def _accepts(self, value):
        return isinstance(value, datetime.datetime)


class Iterable(SmartType):
    __slots__ = ('validators',)
    _type = 'Iterable'

    def __init__(self, validators=None, nullable=False):
        super().__init__(nullable)
        self.validators = validators or []

    def _accepts(self, value):
        return (utils.is_iterable(value) and
                not isinstance(value, utils.MappingType) and
                all(v(value) for v in self.validators))

    def _checker(self):
        if self.validators:
            return lambda value: bool(self.check(value))
        return None


class Iterator(Iterable):
    __slots__ = ()
    _type = 'Iterator'

    def _accepts(self, value):
        return isinstance(value, collections.abc.Iterator) and \
            all(v(value) for v in self.validators)


class Sequence(Iterable):
    __slots__ = ()
    _type = 'Sequence'

    def _accepts(self, value):
        return utils.is_sequence(value) and \
            all(v(value) for v in self.validators)


class MappingRule(LazyParameterType, SmartType):
    __slots__ = ()
    _type = 'Rule'

    def __init__(self):
        super().__init__(False)


class Keyword(LazyParameterType, SmartType):
    __slots__ = ()
    _type = 'Keyword'

    def __init__(self, expand=True):
        super().__init__(False)


class Lambda(LazyParameterType, SmartType):
    __slots__ = ('with_context', 'method')
    _type = 'Lambda'

    def __init__(self, with_context=False, method=False):
        super().__init__(False)
        self.with_context = with_context
        self.method = method

    def _receive(self, value, engine, context):
        if value is None or not callable(value):
            return value
        if self.with_context:
            return lambda ctx, *args, **kwargs: value(*args, **kwargs)
        return value


class Constant(SmartType):
    """A literal of the expression text (computed arguments do not fit);
    the function receives its value."""

    __slots__ = ('expand',)
    _type = 'Const'

    def __init__(self, nullable, expand=True):
        super().__init__(nullable)
        self.expand = expand


class StringConstant(Constant):
    __slots__ = ()
    _type = 'ConstString'

    def __init__(self, nullable=False):
        super().__init__(nullable)


class BooleanConstant(Constant):
    __slots__ = ()
    _type = 'ConstBool'

    def __init__(self, nullable=False, expand=True):
        super().__init__(nullable, expand)


class NumericConstant(Constant):
    __slots__ = ()
    _type = 'ConstNumber'

    def __init__(self, nullable=False, expand=True):
        super().__init__(nullable, expand)


class YaqlExpression(LazyParameterType, SmartType):
    __slots__ = ('_expression_type',)
    _type = 'Expr'

    def __init__(self, expression_type=None):
        super().__init__(False)
        self._expression_type = expression_type


class Context(HiddenParameterType, SmartType):
    __slots__ = ()

    def __init__(self):
        super().__init__(False)

    def _inject(self, engine, context):
        return context


class Engine(HiddenParameterType, SmartType):
    __slots__ = ()

    def __init__(self):
        super().__init__(False)

    def _inject(self, engine, context):
        return engine


class FunctionDefinition(HiddenParameterType, SmartType):
    __slots__ = ()

    def __init__(self):
        super().__init__(False)

    def _inject(self, engine, context):
        return None


class Receiver(HiddenParameterType, SmartType):
    __slots__ = ()

    def __init__(self):
        super().__init__(False)

    def _inject(self, engine, context):
        return None


class YaqlInterface(HiddenParameterType, SmartType):
    __slots__ = ()

    def __init__(self):
        super().__init__(False)

    def _inject(self, engine, context):
        from yaql import yaql_interface
        return yaql_interface.YaqlInterface(context, engine)


class Delegate(HiddenParameterType, SmartType):
    __slots__ = ('name', 'with_context', 'method', 'use_convention')

    def __init__(self, name=None, with_context=False, method=False,
                 use_convention=True):
        super().__init__(False)
        self.name = name
        self.with_context = with_context
        self.method = method
        self.use_convention = use_convention

    def _inject(self, engine, context):
        if self.name is None:
            # A delegate factory: the function's name comes with the call.
            def factory(name, *args, **kwargs):
                return context(name, engine,
                               use_convention=self.use_convention)(
                    *args, **kwargs)
            return factory
        fn = context(self.name, engine, use_convention=self.use_convention)
        if self.with_context:
            return lambda ctx, *args, **kwargs: fn(*args, **kwargs)
        return fn


class Super(HiddenParameterType, SmartType):
    """The overloads of the same function in the contexts above the one it
    is registered in (``base(*args)``). ``with_name`` takes the function
    name as the first argument; ``method=True`` calls the next argument's
    method; ``with_context`` drops a leading context argument."""

    __slots__ = ('with_context', 'method', 'with_name')

    def __init__(self, with_context=False, method=None, with_name=False):
        super().__init__(False)
        self.with_context = with_context
        self.method = method
        self.with_name = with_name

    def _inject(self, engine, context):
        return None

    def _bind(self, function, outer):
        """The callable the function receives; ``outer`` is the engine's
        handle on the context above the function's own."""
        def call(*args):
            if self.with_context:
                args = args[1:]
            name = function.name
            if self.with_name:
                name, args = args[0], args[1:]
            method = self.method
            if method is None:
                method = function.is_method and not function.is_function
            if outer is None:
                raise exceptions.NoFunctionRegisteredException(name)
            return outer.call(name, args, bool(method))
        return call


class SmartTypeAggregation(SmartType):
    """Types combined; classes given instead of types mean ``PythonType``."""

    __slots__ = ('types',)

    def __init__(self, *args, **kwargs):
        super().__init__(kwargs.get('nullable', False))
        types = []
        for item in args:
            if isinstance(item, (type, tuple)):
                item = PythonType(item)
            if isinstance(item, (HiddenParameterType, LazyParameterType)):
                raise ValueError('Special smart types are not supported')
            types.append(item)
        self.types = types

    def _sig(self):
        return 'any'

    def _checker(self):
        return lambda value: bool(self.check(value))


class AnyOf(SmartTypeAggregation):
    """A value any of the types accepts."""

    __slots__ = ()

    def _accepts(self, value):
        return any(t.check(value) for t in self.types)


class Chain(SmartTypeAggregation):
    """A value every one of the types accepts."""

    __slots__ = ()

    def _accepts(self, value):
        return all(t.check(value) for t in self.types)


class NotOfType(SmartType):
    """A value the type does not accept."""

    __slots__ = ('smart_type',)

    def __init__(self, smart_type, nullable=True):
        super().__init__(nullable)
        if isinstance(smart_type, (type, tuple)):
            smart_type = PythonType(smart_type, nullable=nullable)
        self.smart_type = smart_type

    def _sig(self):
        return 'any'

    def _accepts(self, value):
        return not self.smart_type.check(value)

    def _checker(self):
        return lambda value: bool(self.check(value))
