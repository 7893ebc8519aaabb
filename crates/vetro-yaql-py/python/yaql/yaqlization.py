"""Marking Python classes and objects as usable from expressions.

An expression may read the attributes of a yaqlized object (``$.attr``),
call its methods (``$.method(1, key => 2)``) and index it (``$[key]``), as
far as its settings allow. The engine calls the ``_attribute``, ``_call``
and ``_index`` helpers below for those operations."""

import re

YAQLIZATION_ATTR = '__yaqlization__'


def yaqlize(class_or_object=None, yaqlize_attributes=True,
            yaqlize_methods=True, yaqlize_indexer=True,
            auto_yaqlize_result=False, whitelist=None, blacklist=None,
            attribute_remapping=None, blacklist_remapped_attributes=True):
    def apply(something):
        if not hasattr(something, YAQLIZATION_ATTR):
            setattr(something, YAQLIZATION_ATTR, build_yaqlization_settings(
                yaqlize_attributes=yaqlize_attributes,
                yaqlize_methods=yaqlize_methods,
                yaqlize_indexer=yaqlize_indexer,
                auto_yaqlize_result=auto_yaqlize_result,
                whitelist=whitelist,
                blacklist=blacklist,
                attribute_remapping=attribute_remapping,
                blacklist_remapped_attributes=blacklist_remapped_attributes))
        return something
    if class_or_object is None:
        return apply
    return apply(class_or_object)


def get_yaqlization_settings(class_or_object):
    return getattr(class_or_object, YAQLIZATION_ATTR, None)


def is_yaqlized(class_or_object):
    return hasattr(class_or_object, YAQLIZATION_ATTR)


def build_yaqlization_settings(
        yaqlize_attributes=True, yaqlize_methods=True, yaqlize_indexer=True,
        auto_yaqlize_result=False, whitelist=None, blacklist=None,
        attribute_remapping=None, blacklist_remapped_attributes=True):
    whitelist = set(whitelist or [])
    blacklist = set(blacklist or [])
    attribute_remapping = attribute_remapping or {}
    if blacklist_remapped_attributes:
        for value in attribute_remapping.values():
            blacklist.add(value if isinstance(value, str) else value[0])
    return {
        'yaqlizeAttributes': yaqlize_attributes,
        'yaqlizeMethods': yaqlize_methods,
        'yaqlizeIndexer': yaqlize_indexer,
        'autoYaqlizeResult': auto_yaqlize_result,
        'whitelist': whitelist,
        'blacklist': blacklist,
        'attributeRemapping': attribute_remapping,
    }


_PATTERN = type(re.compile(''))


def _operations(obj):
    """``(attributes, methods, indexer)`` allowed on ``obj``, or None when
    it is not yaqlized (what the engine asks when it meets the object)."""
    settings = get_yaqlization_settings(obj)
    if settings is None:
        return None
    return (bool(settings['yaqlizeAttributes']),
            bool(settings['yaqlizeMethods']),
            bool(settings['yaqlizeIndexer']))


def _matches(name, entry):
    if isinstance(entry, _PATTERN):
        return entry.search(name) is not None
    if callable(entry):
        return bool(entry(name))
    return name == entry


def _check_name(name, settings, error=AttributeError):
    """Private names are never exposed; a whitelist admits only its
    entries (the blacklist is then not consulted), else a blacklist refuses
    its entries."""
    name = str(name)
    whitelist = settings['whitelist']
    if name.startswith('_'):
        refused = True
    elif whitelist:
        refused = not any(_matches(name, e) for e in whitelist)
    else:
        refused = any(_matches(name, e) for e in settings['blacklist'])
    if refused:
        raise error('Cannot access ' + name)


def _auto_yaqlize(result, settings):
    """With ``auto_yaqlize_result``, results that are not builtins are
    yaqlized with the same option, so chains like ``$.a().b`` work."""
    if not settings['autoYaqlizeResult']:
        return
    cls = result if isinstance(result, type) else type(result)
    if cls.__module__ == 'builtins':
        return
    try:
        yaqlize(result, auto_yaqlize_result=True)
    except Exception:
        # Objects that refuse new attributes (slots, extension types) stay
        # as they are.
        pass


def _attribute(obj, name):
    """``obj.name`` in an expression."""
    settings = get_yaqlization_settings(obj)
    _check_name(name, settings)
    target = settings['attributeRemapping'].get(name, name)
    if not isinstance(target, str):
        target = target[0]
    result = getattr(obj, target)
    _auto_yaqlize(result, settings)
    return result


def _call(obj, name, args, kwargs):
    """``obj.name(args, key => value)`` in an expression; a remapping entry
    ``(method, {yaql_name: python_name})`` also renames keyword arguments."""
    settings = get_yaqlization_settings(obj)
    _check_name(name, settings)
    target = settings['attributeRemapping'].get(name, name)
    renames = {}
    if not isinstance(target, str):
        target, renames = target[0], (target[1] if len(target) > 1 else {})
    kwargs = {renames.get(k, k): v for k, v in kwargs.items()}
    result = getattr(obj, target)(*args, **kwargs)
    _auto_yaqlize(result, settings)
    return result


def _index(obj, key):
    """``obj[key]`` in an expression."""
    settings = get_yaqlization_settings(obj)
    _check_name(key, settings, KeyError)
    result = obj[key]
    _auto_yaqlize(result, settings)
    return result
