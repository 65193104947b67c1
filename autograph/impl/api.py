"""The user-facing API: `to_graph`, `to_code`, `convert`, `converted_call`, `do_not_convert`,
`experimental`."""

from __future__ import annotations

import functools
import sys
import types
from types import SimpleNamespace
from typing import Any, Callable, Optional

from ..core.options import ConversionOptions, Feature, FeatureSpec
from ..operators.directives import set_loop_options
from ..pyct import parser
from ..pyct.namespaces import LiveNamespace
from . import conversion, errors, rules
from .converted_call import convert_function
from .converted_call import converted_call as _converted_call

do_not_convert = rules.do_not_convert

experimental = SimpleNamespace(Feature=Feature, set_loop_options=set_loop_options,
                               do_not_convert=do_not_convert)
"""`ag.experimental.Feature`, `ag.experimental.set_loop_options`, `ag.experimental.do_not_convert`."""


def converted_call(f: Callable, *args: Any, **kwargs: Any) -> Any:
    """Calls `f(*args, **kwargs)` converting `f` first (with the default options)."""
    return _converted_call(ConversionOptions(), f, args, kwargs)


def _function_of(entity: Any) -> tuple[types.FunctionType, Optional[Any]]:
    """(the plain function to convert, the object to bind it to, if any)."""
    if isinstance(entity, types.MethodType) and isinstance(entity.__func__, types.FunctionType):
        return entity.__func__, entity.__self__
    if isinstance(entity, types.FunctionType):
        return entity, None
    call = rules.python_call_method(entity)
    if call is not None:
        return call, entity
    raise TypeError(f"autograph converts functions, methods and callable objects, not {entity!r}")


def _python_function_of(entity: Any) -> Any:
    """The Python function a compiled function stands for. An object with a callable
    `__ag_python_function__` attribute (`rt.function`'s results: the function, bound for a
    method) or else `python_function` attribute (`tf.function`'s) converts as that function;
    anything else as itself."""
    for attribute in ("__ag_python_function__", "python_function"):
        inner = getattr(entity, attribute, None)
        if callable(inner):
            return inner
    return entity


def _wrap(converted: Callable, original: Callable) -> Callable:
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        try:
            return converted(*args, **kwargs)
        except Exception as e:
            annotated = errors.annotate(e)      # in place: message, note and traceback
            if annotated is not e:
                raise annotated from None
            if sys.version_info < (3, 11):
                raise e             # a bare `raise` on 3.10 restores the unfiltered traceback
            raise
    wrapper.__dict__.update(__ag_converted__=converted, __ag_original__=original)
    return wrapper


def convert(entity: Any, options: ConversionOptions, wrap_errors: bool = True) -> Callable:
    """The converted version of a function, method or callable object.

    Functions marked `do_not_convert` come back unchanged."""
    if rules.is_marked_do_not_convert(entity) or hasattr(entity, "__ag_converted__"):
        return entity
    fn, bound_to = _function_of(entity)
    if rules.is_marked_do_not_convert(fn):
        return entity
    converted: Callable = convert_function(fn, options)
    if bound_to is not None:
        converted = types.MethodType(converted, bound_to)
    return _wrap(converted, entity) if wrap_errors else converted


def to_graph(entity: Callable, recursive: bool = True,
             experimental_optional_features: FeatureSpec = None) -> Callable:
    """The converted function: with Python values it behaves exactly like `entity`; with
    eager tensors it runs eagerly; while a function is being traced, control flow on staged
    tensors is staged. Errors raised inside name the original file and line.

    `recursive` also converts the functions it calls. `experimental_optional_features`:
    see `ag.experimental.Feature`. A compiled function (such as `rt.function`'s result, see
    `_python_function_of`) converts as its Python function.
    """
    options = ConversionOptions.make(recursive, experimental_optional_features)
    return convert(_python_function_of(entity), options)


def to_code(entity: Callable, recursive: bool = True,
            experimental_optional_features: FeatureSpec = None) -> str:
    """The converted source of `entity`: valid Python that reads like the original.

    A compiled function (such as `rt.function`'s result, see `_python_function_of`) shows
    its Python function converted."""
    options = ConversionOptions.make(recursive, experimental_optional_features)
    fn, _ = _function_of(_python_function_of(entity))
    conversion.check_convertible(fn)
    node, info = conversion.parse_for_conversion(fn)
    node, _ = conversion.convert_node(node, info, options, LiveNamespace(fn.__globals__))
    source = parser.unparse(node)
    return source if source.endswith("\n") else source + "\n"


