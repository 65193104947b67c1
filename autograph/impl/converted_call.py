"""`ag__.converted_call(f, *args, **kwargs)`: calls `f`, converted first when it is user code.

Conversion happens once per function (the result is remembered per function object).
Library code, builtins, already-converted code and functions marked `do_not_convert` are
called as they are; so are functions whose source cannot be found (with a logged warning).

`ag__` is the object converted code reaches the operators through. There is one per set of
conversion options, so that `ag__.converted_call` converts the functions it calls with the
same options as the code that calls them; `convert_function` binds converted code to it.
"""

from __future__ import annotations

import builtins
import functools
import threading
import types
import weakref
from typing import Any, Callable, Optional

from .. import operators
from ..core.options import ConversionOptions, Feature
from ..operators.py_builtins import OVERRIDES, print_tensors_
from ..pyct import loader
from ..pyct.parser import SourceUnavailableError
from . import conversion, logs, rules

_namespaces: dict[ConversionOptions, types.SimpleNamespace] = {}
_AS_IS = object()
_per_function: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def converted_call(options: ConversionOptions, f: Any, args: tuple, kwargs: dict) -> Any:
    """Calls `f(*args, **kwargs)`, converting `f` when autograph should."""
    target = _target(f, options)
    return target(*args, **kwargs)


class _Operators(types.SimpleNamespace):
    """An `ag__`: each operator is looked up in `autograph.operators` when converted code first
    reads it (which loads its module), then kept as an attribute."""

    def __getattr__(self, name: str) -> Any:
        if name not in operators.__all__:
            raise AttributeError(f"'ag__' has no operator {name!r}")
        value = getattr(operators, name)
        if name == "print_":
            value = _print_operator(self.options) or value
        setattr(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(operators.__all__))


def operator_namespace(options: ConversionOptions) -> types.SimpleNamespace:
    """The `ag__` object for `options`."""
    ns = _namespaces.get(options)
    if ns is not None:
        return ns

    def call(f: Any, /, *args: Any, **kwargs: Any) -> Any:
        return converted_call(options, f, args, kwargs)

    ns = _Operators(converted_call=call, options=options)
    with _lock:
        _namespaces.setdefault(options, ns)
    return _namespaces[options]


def convert_function(fn: types.FunctionType, options: ConversionOptions) -> types.FunctionType:
    """A converted twin of `fn`, sharing its globals, closure cells and defaults."""
    conversion.check_convertible(fn)
    converted = conversion.convert_code(fn, options)
    return loader.make_function(converted.code, fn, fn.__globals__,
                                {"ag__": operator_namespace(options)})


def _print_operator(options: ConversionOptions) -> Optional[Callable]:
    """What `print` becomes (`ag__.print_`): see `ConversionOptions.print_mode`; None when
    it stays Python's `print` (which runs when the function is traced)."""
    mode = options.print_mode()
    if mode == "always":
        return operators.print_
    if mode == "tensors":
        return print_tensors_
    return None


def _override(f: Any, options: ConversionOptions) -> Optional[Callable]:
    """The operator that replaces builtin `f`."""
    if not options.uses(Feature.BUILTIN_FUNCTIONS):
        return None
    if f is builtins.print:
        return _print_operator(options)
    return OVERRIDES.get(f)


def _target(f: Any, options: ConversionOptions) -> Callable:
    if type(f) is types.FunctionType:
        return _function_target(f, options) or f
    if type(f) is types.MethodType:
        fn = f.__func__
        if type(fn) is types.FunctionType:
            conv = _function_target(fn, options)
            return types.MethodType(conv, f.__self__) if conv is not None else f
        return f
    if type(f) in (types.BuiltinFunctionType, types.BuiltinMethodType):
        return _override(f, options) or f
    if isinstance(f, type):
        return _override(f, options) or f
    if isinstance(f, functools.partial):
        inner = _target(f.func, options)
        if inner is f.func:
            return f
        return functools.partial(inner, *f.args, **f.keywords)
    call = rules.python_call_method(f)
    if call is not None and not rules.is_library_function(call):
        conv = _function_target(call, options)
        if conv is not None:
            return types.MethodType(conv, f)
    return f


def _function_target(fn: types.FunctionType, options: ConversionOptions) -> Optional[Callable]:
    """The converted twin of a plain function, or None to call it as it is."""
    try:
        per = _per_function[fn]
    except KeyError:
        per = None
    except TypeError:
        return None
    if per is not None:
        hit = per.get(options)
        if hit is not None:
            return None if hit is _AS_IS else hit
    result = _decide(fn, options)
    with _lock:
        _per_function.setdefault(fn, {})[options] = _AS_IS if result is None else result
    return result


def _decide(fn: types.FunctionType, options: ConversionOptions) -> Optional[Callable]:
    if loader.is_generated(fn.__code__):
        return None
    if rules.is_marked_do_not_convert(fn):
        logs.log(2, "Not converting %s: marked do_not_convert", fn.__qualname__)
        return None
    if rules.is_library_function(fn):
        return None
    if not options.recursive:
        return None
    if conversion.is_generator(fn) or conversion.is_coroutine(fn):
        logs.warning("Not converting %s: autograph does not convert generators or coroutines; "
                     "it runs as plain Python.", fn.__qualname__)
        return None
    try:
        return convert_function(fn, options)
    except SourceUnavailableError as e:
        logs.warning("Not converting %s: %s. It runs unconverted, so control flow on tensors "
                     "inside it is not staged.", fn.__qualname__, e)
        return None
    except conversion.ConversionError as e:
        logs.warning("Not converting %s: %s. It runs unconverted.", fn.__qualname__, e)
        return None


