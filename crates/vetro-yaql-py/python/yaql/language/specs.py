"""Function specifications: how a Python function is seen from YAQL
(name, parameters and their types, function or method), and the
decorators that declare it."""

import inspect

from yaql.language import exceptions
from yaql.language import utils
from yaql.language import yaqltypes

NO_DEFAULT = utils.create_marker('<NoValue>')

# Counts every change made to any parameter or function definition: a
# function's description for the engine (`_descriptor`) is kept until one.
_changes = [0]


class ParameterDefinition:
    __slots__ = ('value_type', 'name', 'position', 'default', 'alias')

    def __setattr__(self, name, value):
        _changes[0] += 1
        object.__setattr__(self, name, value)

    def __init__(self, name, value_type=None, position=None, alias=None,
                 default=None):
        self.value_type = value_type
        self.name = name
        self.position = position
        self.default = default
        self.alias = alias

    def __repr__(self):
        return (f'{self.name} => position={self.position} '
                f'value_type={self.value_type} default={self.default}')

    def clone(self):
        return ParameterDefinition(self.name, self.value_type, self.position,
                                   self.alias, self.default)


class FunctionDefinition:
    __slots__ = ('is_method', 'is_function', 'name', 'parameters', 'payload',
                 'doc', 'no_kwargs', 'meta', '_described')

    def __setattr__(self, name, value):
        _changes[0] += 1
        object.__setattr__(self, name, value)

    def __init__(self, name, payload, parameters=None, doc='', meta=None,
                 is_function=True, is_method=False, no_kwargs=False):
        self.is_method = is_method
        self.is_function = is_function
        self.name = name
        self.parameters = parameters or {}
        self.payload = payload
        self.doc = doc
        self.no_kwargs = no_kwargs
        self.meta = meta or {}

    def __call__(self, engine, context, receiver=utils.NO_VALUE):
        """A Python callable that calls this function from Python."""
        def func(*args, **kwargs):
            if receiver is not utils.NO_VALUE:
                args = (receiver,) + args
            return _call_direct(self, engine, context, args, kwargs)
        return func

    def clone(self):
        parameters = {k: p.clone() for k, p in self.parameters.items()}
        return FunctionDefinition(self.name, self.payload, parameters,
                                  self.doc, self.meta, self.is_function,
                                  self.is_method, self.no_kwargs)

    def strip_hidden_parameters(self):
        fd = self.clone()
        hidden = [k for k, p in fd.parameters.items()
                  if isinstance(p.value_type, yaqltypes.HiddenParameterType)]
        for key in hidden:
            p = fd.parameters.pop(key)
            if p.position is not None:
                for other in fd.parameters.values():
                    if other.position is not None and \
                            other.position > p.position:
                        other.position -= 1
        return fd

    def set_parameter(self, name, value_type=None, nullable=None,
                      alias=None, overwrite=False):
        if isinstance(name, ParameterDefinition):
            if name.name in self.parameters and not overwrite:
                raise exceptions.DuplicateParameterDecoratorException(
                    function_name=self.name or self.payload.__name__,
                    param_name=name.name)
            self.parameters[name.name] = name
            return name
        spec = inspect.getfullargspec(self.payload)
        if isinstance(name, int):
            if 0 <= name < len(spec.args):
                name = spec.args[name]
            elif name == len(spec.args) and spec.varargs is not None:
                name = spec.varargs
            else:
                raise IndexError('argument position is out of range')
        key = name
        if name == spec.varkw:
            position, key = None, '**'
        elif name == spec.varargs:
            position, key = len(spec.args), '*'
        elif name in spec.kwonlyargs:
            position = None
        elif name in spec.args:
            position = spec.args.index(name)
        else:
            raise exceptions.NoParameterFoundException(
                function_name=self.name or self.payload.__name__,
                param_name=name)
        default = NO_DEFAULT
        if spec.defaults is not None and name in spec.args:
            index = spec.args.index(name) - len(spec.args)
            if index >= -len(spec.defaults):
                default = spec.defaults[index]
        elif spec.kwonlydefaults is not None:
            default = spec.kwonlydefaults.get(name, NO_DEFAULT)
        if key in self.parameters and not overwrite:
            raise exceptions.DuplicateParameterDecoratorException(
                function_name=self.name or self.payload.__name__,
                param_name=name)
        yaql_type = value_type
        if value_type is None:
            if nullable is None:
                nullable = True
            base = object if default in (None, NO_DEFAULT, utils.NO_VALUE) \
                else type(default)
            yaql_type = yaqltypes.PythonType(base, nullable)
        elif not isinstance(value_type, yaqltypes.SmartType):
            if nullable is None:
                nullable = default is None
            yaql_type = yaqltypes.PythonType(value_type, nullable)
        pd = ParameterDefinition(name, yaql_type, position, alias, default)
        self.parameters[key] = pd
        return pd

    def insert_parameter(self, name, value_type=None, nullable=None,
                         alias=None, overwrite=False):
        pd = self.set_parameter(name, value_type, nullable, alias, overwrite)
        for p in self.parameters.values():
            if p is not pd and p.position is not None and \
                    p.position >= pd.position:
                p.position += 1

    def is_valid_method(self):
        first = None
        for p in self.parameters.values():
            if p.position is None or isinstance(
                    p.value_type, yaqltypes.HiddenParameterType):
                continue
            if first is None or p.position < first.position:
                first = p
        return bool(first) and not isinstance(
            first.value_type, yaqltypes.LazyParameterType)

    # -- how the engine sees this function ---------------------------------

    def _ordered(self):
        positional = sorted(
            (p for k, p in self.parameters.items()
             if p.position is not None and k != '*'),
            key=lambda p: p.position)
        kwonly = [p for k, p in self.parameters.items()
                  if p.position is None and k not in ('*', '**')]
        return positional, kwonly

    def _descriptor(self):
        """``(name, form, signature, invoker, checks)`` for the engine:
        ``checks`` has one entry per parameter of the signature, in its
        order, with the predicate narrowing that parameter's type or None.
        Made once and kept (the engine asks at every evaluation) until a
        definition changes or a parameter is added to or taken from this
        one's dict directly."""
        key = (_changes[0], len(self.parameters))
        try:
            made, descriptor = self._described
        except AttributeError:
            made = None
        if made != key:
            descriptor = self._describe()
            # Not a change of the definition: no count.
            object.__setattr__(self, '_described', (key, descriptor))
        return descriptor

    def _describe(self):
        positional, kwonly = self._ordered()
        parts = []
        checks = []

        def add(prefix, p, optional=True):
            parts.append(prefix + _param_sig(p, optional))
            vt = p.value_type
            checks.append(vt._checker() if vt is not None else None)

        for p in positional:
            if not isinstance(p.value_type, yaqltypes.HiddenParameterType):
                add('', p)
        for p in kwonly:
            if not isinstance(p.value_type, yaqltypes.HiddenParameterType):
                add('kw:', p)
        star = self.parameters.get('*')
        if star is not None:
            add('*', star, optional=False)
        if '**' in self.parameters:
            add('**', self.parameters['**'], optional=False)
        if self.no_kwargs:
            parts.append('nokw')
        if self.is_function and self.is_method:
            form = 'both'
        elif self.is_method:
            form = 'method'
        else:
            form = 'function'
        return (self.name, form, ', '.join(parts),
                _Invoker(self, positional, kwonly), checks)


def _param_sig(p, optional=True):
    vt = p.value_type
    sig = vt._sig() if vt is not None else 'any'
    name = p.alias or p.name
    text = f'{name}:{sig}'
    if optional and p.default is not NO_DEFAULT:
        text += '=nv'
    return text


class _Invoker:
    """Calls the Python function with arguments bound by the engine."""

    __slots__ = ('fd', 'positional', 'kwonly')

    def __init__(self, fd, positional, kwonly):
        self.fd = fd
        self.positional = positional
        self.kwonly = kwonly

    def __call__(self, engine, handle, pos, rest, kwargs, outer=None):
        """``outer``: the engine's handle on the context above the one the
        function is registered in (for ``Super``)."""
        from yaql.language import contexts
        context = contexts.RunningContext(handle)
        args = []
        call_kw = {}
        values = iter(pos)
        missing = False
        for p in self.positional:
            vt = p.value_type
            if isinstance(vt, yaqltypes.Super):
                value = vt._bind(self.fd, outer)
            elif isinstance(vt, yaqltypes.HiddenParameterType):
                value = vt._inject(engine, context)
            else:
                value = next(values)
                if value is utils.NO_VALUE:
                    missing = True
                    continue
                value = vt._receive(value, engine, context)
            if missing:
                call_kw[p.name] = value
            else:
                args.append(value)
        for p in self.kwonly:
            vt = p.value_type
            if isinstance(vt, yaqltypes.Super):
                call_kw[p.name] = vt._bind(self.fd, outer)
                continue
            if isinstance(vt, yaqltypes.HiddenParameterType):
                call_kw[p.name] = vt._inject(engine, context)
                continue
            value = next(values)
            if value is not utils.NO_VALUE:
                call_kw[p.name] = vt._receive(value, engine, context)
        if rest:
            star = self.fd.parameters['*'].value_type
            args.extend(star._receive(v, engine, context) for v in rest)
        if kwargs:
            kw_type = self.fd.parameters['**'].value_type
            for k, v in kwargs.items():
                call_kw[k] = kw_type._receive(v, engine, context)
        return self.fd.payload(*args, **call_kw)


def _call_direct(fd, engine, context, args, kwargs):
    """Call a function definition from Python with plain values."""
    call_args = []
    call_kw = {}
    values = list(args)
    positional, kwonly = fd._ordered()
    for p in positional:
        vt = p.value_type
        if isinstance(vt, yaqltypes.HiddenParameterType):
            call_args.append(vt._inject(engine, context))
        elif values:
            call_args.append(values.pop(0))
        elif (p.alias or p.name) in kwargs:
            call_kw[p.name] = kwargs.pop(p.alias or p.name)
        elif p.default is NO_DEFAULT:
            raise exceptions.ArgumentException(p.name)
    for p in kwonly:
        vt = p.value_type
        if isinstance(vt, yaqltypes.HiddenParameterType):
            call_kw[p.name] = vt._inject(engine, context)
        elif (p.alias or p.name) in kwargs:
            call_kw[p.name] = kwargs.pop(p.alias or p.name)
    if values:
        if '*' not in fd.parameters:
            raise exceptions.ArgumentException('*')
        call_args.extend(values)
    if kwargs:
        if '**' not in fd.parameters:
            raise exceptions.ArgumentException('**')
        call_kw.update(kwargs)
    return fd.payload(*call_args, **call_kw)


def _get_function_definition(func):
    if not hasattr(func, '__yaql_function__'):
        func.__yaql_function__ = FunctionDefinition(None, func, {},
                                                    func.__doc__)
    return func.__yaql_function__


def _infer_parameter_type(name):
    if name in ('context', '__context'):
        return yaqltypes.Context()
    if name in ('engine', '__engine'):
        return yaqltypes.Engine()
    if name in ('yaql_interface', '__yaql_interface'):
        return yaqltypes.YaqlInterface()
    return None


def convert_function_name(function_name, convention):
    if not function_name:
        return function_name
    function_name = function_name.rstrip('_')
    if not convention:
        return function_name
    if not function_name[0].isalpha():
        finish = function_name.find(function_name[0], 1)
        if finish <= 1:
            return function_name
        return function_name[:finish + 1] + convention.convert_function_name(
            function_name[finish + 1:])
    return convention.convert_function_name(function_name)


def convert_parameter_name(parameter_name, convention):
    if not parameter_name:
        return parameter_name
    parameter_name = parameter_name.rstrip('_')
    if not convention:
        return parameter_name
    return convention.convert_parameter_name(parameter_name)


def get_function_definition(func, name=None, function=None, method=None,
                            convention=None, parameter_type_func=None):
    if parameter_type_func is None:
        parameter_type_func = _infer_parameter_type
    fd = _get_function_definition(func).clone()
    spec = inspect.getfullargspec(func)
    for arg in spec.args + spec.kwonlyargs:
        if arg not in fd.parameters:
            fd.set_parameter(arg, parameter_type_func(arg))
    if spec.varargs and '*' not in fd.parameters:
        fd.set_parameter(spec.varargs, parameter_type_func(spec.varargs))
    if spec.varkw and '**' not in fd.parameters:
        fd.set_parameter(spec.varkw, parameter_type_func(spec.varkw))
    if name is not None:
        fd.name = name
    elif fd.name is None:
        fd.name = convert_function_name(fd.payload.__name__, convention)
    elif convention is not None:
        fd.name = convert_function_name(fd.name, convention)
    if function is not None:
        fd.is_function = function
    if method is not None:
        fd.is_method = method
    if convention:
        for p in fd.parameters.values():
            if p.alias is None:
                p.alias = convert_parameter_name(p.name, convention)
    return fd


def _parameter(name, value_type=None, nullable=None, alias=None):
    def wrapper(func):
        _get_function_definition(func).set_parameter(name, value_type,
                                                     nullable, alias)
        return func
    return wrapper


def parameter(name, value_type=None, nullable=None, alias=None):
    if value_type is not None and isinstance(
            value_type, yaqltypes.HiddenParameterType):
        raise ValueError('Use inject() for hidden parameters')
    return _parameter(name, value_type, nullable=nullable, alias=alias)


def inject(name, value_type=None, nullable=None, alias=None):
    if value_type is not None and not isinstance(
            value_type, yaqltypes.HiddenParameterType):
        raise ValueError('Use parameter() for normal function parameters')
    return _parameter(name, value_type, nullable=nullable, alias=alias)


def name(function_name):
    def wrapper(func):
        _get_function_definition(func).name = function_name
        return func
    return wrapper


def method(func):
    fd = _get_function_definition(func)
    fd.is_method = True
    fd.is_function = False
    return func


def extension_method(func):
    fd = _get_function_definition(func)
    fd.is_method = True
    fd.is_function = True
    return func


def no_kwargs(func):
    _get_function_definition(func).no_kwargs = True
    return func


def meta(name, value):
    def wrapper(func):
        _get_function_definition(func).meta[name] = value
        return func
    return wrapper


def yaql_property(source_type):
    def decorator(func):
        @name('#property#' + func.__name__)
        @parameter('obj', source_type)
        def wrapper(obj):
            return func(obj)
        return wrapper
    return decorator
