"""Parsed statements and evaluation."""

import inspect

from yaql import _vetro_yaql
from yaql.language import contexts
from yaql.language import utils


# A parsed expression bound to its engine (``.expression``, ``.engine``,
# ``.evaluate(data, context)``), made by ``engine(text)``.
Statement = _vetro_yaql.Statement


def evaluate_statement(engine, expression, data=utils.NO_VALUE,
                       context=None):
    """``Statement.evaluate``: a new root context when none is given."""
    if context is None or context is utils.NO_VALUE:
        import yaql
        context = yaql.create_context()
    return evaluate(engine, expression, data, context)


def _library_flags(context):
    root = context
    while root is not None:
        library = getattr(root, '_library', None)
        if library is not None:
            return library.flags()
        root = root.parent
    return contexts.Library().flags()


def evaluate(engine, expression, data, context):
    core = engine._core
    if isinstance(context, contexts.RunningContext):
        return core.evaluate(engine, expression, data, [],
                             contexts.Library().flags(), context._handle)
    if isinstance(context, contexts.Context):
        layers = context._vetro_layers()
    else:
        layers = [_flatten(context)]
    return core.evaluate(engine, expression, data, layers,
                         _library_flags(context))


def _flatten(context):
    """One engine layer from any ContextBase (Multi/Linked contexts)."""
    data = {}
    for key in list(context.keys()):
        data[key[1:]] = context.get_data(key)
    return (data, [], [])


def call_function(engine, context, name, receiver, args, kwargs):
    """Call a YAQL function by name from Python with plain values."""
    child = context.create_child_context()
    names = []
    for i, value in enumerate(args):
        child[f'__vetro_arg{i}'] = value
        names.append(_argument(f'$__vetro_arg{i}', value))
    for i, (key, value) in enumerate(kwargs.items()):
        child[f'__vetro_kw{i}'] = value
        names.append(f'{key} => $__vetro_kw{i}')
    call = f'{name}({", ".join(names)})'
    if receiver is not utils.NO_VALUE:
        child['__vetro_receiver'] = receiver
        call = '$__vetro_receiver.' + call
    return engine(call).evaluate(context=child)


def _argument(variable, value):
    """The argument text for a value passed from Python: a callable stands
    for a lambda and is called with the lambda's arguments, as the
    reference's ``Lambda`` parameters do with Python callables."""
    if not callable(value) or isinstance(value, type):
        return variable
    try:
        parameters = list(inspect.signature(value).parameters.values())
    except (TypeError, ValueError):
        parameters = None
    if parameters is None:
        arity = 1
    else:
        positional = [p for p in parameters if p.kind in (
            p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = sum(1 for p in positional if p.default is p.empty)
        varargs = any(p.kind == p.VAR_POSITIONAL for p in parameters)
        arity = max(required, 1 if positional or varargs else 0)
    return f'{variable}({", ".join(f"$%d" % (i + 1) for i in range(arity))})'
