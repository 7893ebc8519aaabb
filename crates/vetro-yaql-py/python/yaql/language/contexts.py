"""Contexts: variables and functions visible to an expression.

A ``Context`` made by ``yaql.create_context()`` stands for the standard
library (held by the engine) plus the Python functions and data registered
on it and on its children. A ``RunningContext`` is what Python functions
receive during an evaluation."""

from yaql.language import exceptions
from yaql.language import specs
from yaql.language import utils


def _normalize_name(name):
    if not name.startswith('$'):
        name = '$' + name
    if name == '$':
        name = '$1'
    return name


class Library:
    """Which standard library a root context stands for."""

    __slots__ = ('legacy', 'delegates', 'no_sets', 'group_by_agg_fallback',
                 'yaqlized')

    def __init__(self, legacy=False, delegates=False, no_sets=False,
                 group_by_agg_fallback=True, yaqlized=True):
        self.legacy = legacy
        self.delegates = delegates
        self.no_sets = no_sets
        self.group_by_agg_fallback = group_by_agg_fallback
        self.yaqlized = yaqlized

    def flags(self):
        return (self.legacy, self.delegates, self.no_sets,
                self.group_by_agg_fallback, self.yaqlized)


class ContextBase:
    def __init__(self, parent_context=None, convention=None):
        self._parent_context = parent_context
        self._convention = convention
        if convention is None and parent_context:
            self._convention = parent_context.convention

    @property
    def parent(self):
        return self._parent_context

    @property
    def convention(self):
        return self._convention

    def register_function(self, spec, *args, **kwargs):
        pass

    def get_data(self, name, default=None, ask_parent=True):
        return default

    def __getitem__(self, name):
        return self.get_data(name)

    def __setitem__(self, name, value):
        pass

    def __delitem__(self, name):
        pass

    def __contains__(self, item):
        return False

    def __call__(self, name, engine, receiver=utils.NO_VALUE,
                 data_context=None, use_convention=False,
                 function_filter=None):
        raise NotImplementedError

    def get_functions(self, name, predicate=None, use_convention=False):
        return set(), False

    def delete_function(self, spec):
        pass

    def collect_functions(self, name, predicate=None, use_convention=False):
        result = []
        context = self
        while context is not None:
            fs, exclusive = context.get_functions(name, predicate,
                                                  use_convention)
            if fs:
                result.append(fs)
            if exclusive:
                break
            context = context.parent
        return result

    def create_child_context(self):
        return Context(self)

    def keys(self):
        return iter(())


class Context(ContextBase):
    def __init__(self, parent_context=None, data=utils.NO_VALUE,
                 convention=None):
        super().__init__(parent_context, convention)
        self._functions = {}
        self._data = {}
        self._exclusive_funcs = set()
        self._library = parent_context._library if isinstance(
            parent_context, Context) else None
        if data is not utils.NO_VALUE:
            self['$'] = data

    def register_function(self, spec, *args, **kwargs):
        exclusive = kwargs.pop('exclusive', False)
        if not isinstance(spec, specs.FunctionDefinition) and callable(spec):
            spec = specs.get_function_definition(
                spec, *args, convention=self._convention, **kwargs)
        if spec.is_method and not spec.is_valid_method():
            raise exceptions.InvalidMethodException(spec.name)
        self._functions.setdefault(spec.name, set()).add(spec)
        if exclusive:
            self._exclusive_funcs.add(spec.name)

    def get_functions(self, name, predicate=None, use_convention=False):
        if use_convention and self._convention is not None:
            name = self._convention.convert_function_name(name)
        fs = self._functions.get(name, set())
        if predicate is not None:
            fs = {f for f in fs if predicate(f)}
        return set(fs), name in self._exclusive_funcs

    def delete_function(self, spec):
        self._functions.get(spec.name, set()).discard(spec)
        self._exclusive_funcs.discard(spec.name)

    def get_data(self, name, default=None, ask_parent=True):
        name = _normalize_name(name)
        if name in self._data:
            return self._data[name]
        if ask_parent and self._parent_context is not None:
            return self._parent_context.get_data(name, default, ask_parent)
        return default

    def __setitem__(self, name, value):
        self._data[_normalize_name(name)] = value

    def __delitem__(self, name):
        self._data.pop(_normalize_name(name), None)

    def __contains__(self, item):
        if isinstance(item, specs.FunctionDefinition):
            return item in self._functions.get(item.name, ())
        if isinstance(item, str):
            return _normalize_name(item) in self._data
        return False

    def keys(self):
        return self._data.keys()

    def create_child_context(self):
        return Context(self)

    def __call__(self, name, engine, receiver=utils.NO_VALUE,
                 data_context=None, use_convention=False,
                 function_filter=None):
        def call(*args, **kwargs):
            from yaql.language import expressions
            return expressions.call_function(
                engine, data_context or self, name, receiver, args, kwargs)
        return call

    # -- what the engine needs ---------------------------------------------

    def _vetro_chain(self):
        chain = []
        context = self
        while isinstance(context, Context):
            chain.append(context)
            context = context._parent_context
        chain.reverse()
        return chain

    def _vetro_layers(self):
        layers = []
        for context in self._vetro_chain():
            data = {k[1:]: v for k, v in context._data.items()}
            functions = [fd._descriptor()
                         for fs in context._functions.values() for fd in fs]
            layers.append((data, functions, list(context._exclusive_funcs)))
        return layers


class MultiContext(ContextBase):
    def __init__(self, context_list, convention=None):
        self._context_list = context_list
        if convention is None:
            convention = context_list[0].convention
        parents = [c.parent for c in context_list if c.parent is not None]
        parent = MultiContext(parents) if parents else None
        super().__init__(parent, convention)

    def register_function(self, spec, *args, **kwargs):
        self._context_list[0].register_function(spec, *args, **kwargs)

    def get_data(self, name, default=None, ask_parent=True):
        for context in self._context_list:
            result = context.get_data(name, utils.NO_VALUE, False)
            if result is not utils.NO_VALUE:
                return result
        if ask_parent and self.parent is not None:
            return self.parent.get_data(name, default, ask_parent)
        return default

    def __setitem__(self, name, value):
        self._context_list[0][name] = value

    def __delitem__(self, name):
        for context in self._context_list:
            del context[name]

    def delete_function(self, spec):
        for context in self._context_list:
            context.delete_function(spec)

    def __contains__(self, item):
        return any(item in c for c in self._context_list)

    def get_functions(self, name, predicate=None, use_convention=False):
        result = set()
        exclusive = False
        for context in self._context_list:
            fs, ex = context.get_functions(name, predicate, use_convention)
            result.update(fs)
            exclusive = exclusive or ex
        return result, exclusive

    def keys(self):
        seen = set()
        for c in self._context_list:
            for k in c.keys():
                if k not in seen:
                    seen.add(k)
                    yield k


class LinkedContext(ContextBase):
    def __init__(self, parent_context, linked_context, convention=None):
        self.linked_context = linked_context
        if linked_context.parent:
            super().__init__(LinkedContext(parent_context,
                                           linked_context.parent, convention),
                             convention)
        else:
            super().__init__(parent_context, convention)

    def register_function(self, spec, *args, **kwargs):
        return self.linked_context.register_function(spec, *args, **kwargs)

    def get_data(self, name, default=None, ask_parent=True):
        result = self.linked_context.get_data(name, utils.NO_VALUE, False)
        if result is not utils.NO_VALUE:
            return result
        if ask_parent and self.parent is not None:
            return self.parent.get_data(name, default, ask_parent)
        return default

    def __setitem__(self, name, value):
        self.linked_context[name] = value

    def __delitem__(self, name):
        del self.linked_context[name]

    def delete_function(self, spec):
        self.linked_context.delete_function(spec)

    def __contains__(self, item):
        return item in self.linked_context

    def get_functions(self, name, predicate=None, use_convention=False):
        return self.linked_context.get_functions(name, predicate,
                                                 use_convention)

    def keys(self):
        return self.linked_context.keys()


class RunningContext(ContextBase):
    """A scope of an evaluation in progress (what callbacks receive)."""

    def __init__(self, handle, convention=None):
        super().__init__(None, convention)
        self._handle = handle

    def get_data(self, name, default=None, ask_parent=True):
        value = self._handle.get(_normalize_name(name)[1:])
        return default if value is utils.NO_VALUE else value

    def __setitem__(self, name, value):
        self._handle.set(_normalize_name(name)[1:], value)

    def __contains__(self, item):
        if isinstance(item, str):
            return self._handle.get(_normalize_name(item)[1:]) \
                is not utils.NO_VALUE
        return False

    def create_child_context(self):
        return RunningContext(self._handle.child(), self._convention)

    def __call__(self, name, engine, receiver=utils.NO_VALUE,
                 data_context=None, use_convention=False,
                 function_filter=None):
        def call(*args, **kwargs):
            if kwargs or any(callable(a) for a in args):
                from yaql.language import expressions
                return expressions.call_function(
                    engine, data_context or self, name, receiver, args,
                    kwargs)
            if receiver is utils.NO_VALUE:
                return self._handle.call(name, args, False)
            return self._handle.call(name, (receiver,) + args, True)
        return call
