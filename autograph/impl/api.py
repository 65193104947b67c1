"""The user-facing API: `to_graph`, `to_code`, `do_not_convert`."""

from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable, Optional

from ..pyct import parser
from ..pyct.namespaces import LiveNamespace
from . import conversion, errors, rules
from .options import ConversionOptions, FeatureSpec

do_not_convert = rules.do_not_convert


def _function_of(entity: Any) -> tuple[types.FunctionType, Optional[Any]]:
    """(the plain function to convert, the object to bind it to, if any)."""
    if isinstance(entity, types.MethodType):
        return entity.__func__, entity.__self__
    if isinstance(entity, types.FunctionType):
        return entity, None
    call = rules.python_call_method(entity)
    if call is not None:
        return call, entity
    raise TypeError(f"autograph converts functions, methods and callable objects, not {entity!r}")


def _wrap(converted: Callable, original: Callable) -> Callable:
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        try:
            return converted(*args, **kwargs)
        except Exception as e:
            errors.annotate(e)      # in place: message, note and traceback
            if sys.version_info < (3, 11):
                raise e             # a bare `raise` on 3.10 restores the unfiltered traceback
            raise
    wrapper.__ag_converted__ = converted
    wrapper.__ag_original__ = original
    return wrapper


def convert(entity: Any, options: ConversionOptions, wrap_errors: bool = True) -> Callable:
    """The converted version of a function, method or callable object.

    Functions marked `do_not_convert` come back unchanged."""
    if rules.is_marked_do_not_convert(entity) or hasattr(entity, "__ag_converted__"):
        return entity
    fn, bound_to = _function_of(entity)
    if rules.is_marked_do_not_convert(fn):
        return entity
    converted: Callable = conversion.convert_function(fn, options)
    if bound_to is not None:
        converted = types.MethodType(converted, bound_to)
    return _wrap(converted, entity) if wrap_errors else converted


def to_graph(entity: Callable, recursive: bool = True,
             experimental_optional_features: FeatureSpec = None) -> Callable:
    """The converted function: with Python values it behaves exactly like `entity`; with
    eager tensors it runs eagerly; while a function is being traced, control flow on staged
    tensors is staged. Errors raised inside name the original file and line.

    `recursive` also converts the functions it calls. `experimental_optional_features`:
    see `ag.experimental.Feature`.
    """
    options = ConversionOptions.make(recursive, experimental_optional_features)
    return convert(entity, options)


def to_code(entity: Callable, recursive: bool = True,
            experimental_optional_features: FeatureSpec = None) -> str:
    """The converted source of `entity`: valid Python that reads like the original."""
    options = ConversionOptions.make(recursive, experimental_optional_features)
    fn, _ = _function_of(entity)
    conversion.check_convertible(fn)
    node, info = conversion.parse_for_conversion(fn)
    node, _ = conversion.convert_node(node, info, options, LiveNamespace(fn.__globals__))
    source = parser.unparse(node)
    return source if source.endswith("\n") else source + "\n"


