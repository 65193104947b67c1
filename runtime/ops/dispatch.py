"""Dispatch of rt APIs to user types (`rt.experimental.dispatch_for_api`,
`dispatch_for_unary_elementwise_apis`, `dispatch_for_binary_elementwise_apis`,
`unregister_dispatch_for`).

Registering a handler for an API replaces the public name (`rt.stack`, `rt.math.add`, ...) by
a wrapper that tries the handlers, newest first, and calls the API itself when none applies.
A handler applies when its annotated parameters match the call's values and one of them is a
composite value (an extension type): a call on plain tensors always runs the API. The public
namespaces are handed over by `runtime/__init__.py` (`set_namespaces`), so this module does
not import the package above it.

Every published API also dispatches by itself, without a wrapper: when it refuses its
arguments with TypeError and one of them is a composite value, the handler registered for
the API and those values runs instead (`runtime.arguments.COMPOSITE_HANDLER`). The runtime's
own handlers (RaggedTensor, SparseTensor: ragged_dispatch) are registered that way only, and
loaded on the first such refusal (`register_on_first_composite`): `import runtime` does not
pay for them, calls on tensors never look for them, the names keep their identity, and a name
bound early (`from runtime import reduce_sum`, a module-level alias) dispatches as well.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import threading
import typing
from types import SimpleNamespace
from typing import Any, Callable

from ..arguments import COMPOSITE_HANDLER
from ..exports import NAMESPACES, export
from .extension_type import CompositeTensor

_HOLDERS: list = []  # objects whose attributes are the public APIs (rt, rt.math, ...)
_HANDLERS: dict = {}  # API -> [(handler, applies(args, kwargs))], newest first
_WRAPPERS: dict = {}  # API -> its dispatching wrapper
_ORIGINALS: dict = {}  # wrapper -> API
_REGISTERED: dict = {}  # handler -> [APIs it is registered for]
_LOADERS: list = []  # registrations run on the first call that may need them
_LOADING = threading.RLock()
_PUBLISHED: set = set()  # handlers that put a wrapper in place of their API's names

_UNARY = ("abs", "negative", "sign", "sqrt", "rsqrt", "square", "exp", "expm1", "log", "log1p",
          "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
          "atanh", "sigmoid", "floor", "ceil", "round", "reciprocal", "logical_not",
          "ones_like", "zeros_like", "cast", "identity", "is_nan", "is_finite", "is_inf", "erf",
          "erfc", "softplus", "lgamma", "digamma", "real", "imag", "conj", "angle", "saturate_cast",
          "bitwise.invert", "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.softsign",
          "nn.softplus", "nn.sigmoid", "nn.tanh", "nn.gelu", "nn.silu", "strings.length",
          "strings.lower", "strings.upper", "strings.strip", "strings.to_number")
_BINARY = ("add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod",
           "pow", "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "logical_and", "logical_or", "logical_xor", "squared_difference",
           "atan2", "realdiv", "divide_no_nan", "multiply_no_nan", "truncatediv", "truncatemod",
           "xdivy", "xlogy", "add_n_pair", "bitwise.bitwise_and", "bitwise.bitwise_or",
           "bitwise.bitwise_xor", "strings.join_pair")


def undispatched(fn: Any) -> Any:
    """The API a dispatching wrapper stands for (`fn` itself otherwise): what tables keyed by
    the API object (activation names, ...) know it by."""
    return _ORIGINALS.get(fn, fn)


def set_namespaces(*holders: Any) -> None:
    """The objects (the `runtime` module, `rt.math`, ...) whose APIs dispatching replaces."""
    _HOLDERS.extend(holders)


def _original(api: Callable) -> Callable:
    return _ORIGINALS.get(api, api)


def _holders() -> list:
    """The holders and every namespace object below them (`rt.math.special`, ...): an API is
    published under each of its names."""
    found, seen = [], set()
    pending = list(_HOLDERS)
    while pending:
        holder = pending.pop()
        if id(holder) in seen:
            continue
        seen.add(id(holder))
        found.append(holder)
        pending.extend(value for value in vars(holder).values()
                       if isinstance(value, SimpleNamespace))
    return found


def _replace_everywhere(old: Callable, new: Callable) -> None:
    """Publishes `new` wherever a holder, or a namespace below one, publishes `old`."""
    for holder in _holders():
        for name, value in list(vars(holder).items()):
            if value is old:
                setattr(holder, name, new)


def _install(api: Callable) -> Callable:
    """The dispatching wrapper of `api`, made and published on first use."""
    api = _original(api)
    wrapper = _WRAPPERS.get(api)
    if wrapper is not None:
        return wrapper
    handlers = _HANDLERS.setdefault(api, [])

    @functools.wraps(api)
    def dispatching(*args: Any, **kwargs: Any) -> Any:
        # a handler needs a composite operand: calls on tensors skip the binding below
        if _has_composite(args) or (kwargs and _has_composite(tuple(kwargs.values()))):
            if _LOADERS:
                _load()
            for handler, applies in handlers:
                if applies(args, kwargs):
                    return handler(*args, **kwargs)
        return api(*args, **kwargs)

    _WRAPPERS[api] = dispatching
    _ORIGINALS[dispatching] = api
    _replace_everywhere(api, dispatching)
    for space in NAMESPACES.values():
        for name, value in list(space.items()):
            if value is api:
                space[name] = dispatching
    return dispatching


def _register(api: Callable, handler: Callable, applies: Callable, target: Callable,
              publish: bool = True) -> None:
    """Adds `target` as `api`'s newest handler; `publish` puts the wrapper in place of the
    API's names (a user's handler runs before the API even when the API would accept the
    value); without it the handler runs when the API refuses a composite value."""
    api = _original(api)
    if publish:
        _install(api)
        _PUBLISHED.add(target)
    _HANDLERS.setdefault(api, []).insert(0, (target, applies))
    _REGISTERED.setdefault(handler, []).append((api, target))


def register_on_first_composite(loader: Callable[[], None]) -> None:
    """Runs `loader` (which registers handlers with `publish=False`) when a published API first
    refuses a composite value, or a dispatching wrapper first sees one."""
    _LOADERS.append(loader)


def _load() -> None:
    with _LOADING:  # another thread's first composite call waits until all are registered
        while _LOADERS:
            _LOADERS[0]()
            _LOADERS.pop(0)


def _handler_for(api: Callable, args: tuple, kwargs: dict) -> Callable | None:
    """The handler for a call of the published `api` that refused its arguments: the newest
    registered one that applies, when an argument is a composite value (None otherwise)."""
    if not (_has_composite(args) or (kwargs and _has_composite(tuple(kwargs.values())))):
        return None
    if _LOADERS:
        _load()
    for handler, applies in _HANDLERS.get(_original(api), ()):
        if applies(args, kwargs):
            return handler
    return None


COMPOSITE_HANDLER.append(_handler_for)


def _matches(value: Any, annotation: Any) -> bool:
    """True when `value` fits `annotation` (a type, Union, List/Sequence/Tuple of types)."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union:
        return any(_matches(value, a) for a in args)
    if origin in (list, tuple, collections.abc.Sequence, collections.abc.Iterable):
        if not isinstance(value, (list, tuple)):
            return False
        inner = args[0] if args else Any
        return all(_matches(v, inner) for v in value)
    if annotation is None or annotation is type(None):
        return value is None
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    return False


def _has_composite(value: Any) -> bool:
    if isinstance(value, CompositeTensor):
        return True
    return isinstance(value, (list, tuple)) and any(_has_composite(v) for v in value)


def _checker(api: Callable, annotations: dict) -> Callable:
    """`applies(args, kwargs)`: the call's values for `annotations` match them, one composite."""
    signature = inspect.signature(_original(api))

    def applies(args: tuple, kwargs: dict) -> bool:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return False
        found = False
        for name, annotation in annotations.items():
            if name not in bound.arguments:
                continue
            value = bound.arguments[name]
            if not _matches(value, annotation):
                return False
            found = found or _has_composite(value)
        return found
    return applies


def _annotations_of(handler: Callable, api: Callable) -> dict:
    hints = typing.get_type_hints(handler) if hasattr(handler, "__annotations__") else {}
    hints.pop("return", None)
    api_params = list(inspect.signature(_original(api)).parameters)
    handler_params = list(inspect.signature(handler).parameters)
    out = {}
    for i, name in enumerate(handler_params):  # the handler's names may differ from the API's
        if name in hints and i < len(api_params):
            out[api_params[i]] = hints[name]
    return out


@export("experimental.dispatch_for_api")
def dispatch_for_api(api: Callable, *signatures: dict) -> Callable:
    """Decorator: `handler` runs in place of `api` when the call's values match the handler's
    type annotations (or one of `signatures`, dicts of parameter name to type)."""
    return _for_api(api, signatures, publish=True)


def handle_composites(api: Callable, *signatures: dict) -> Callable:
    """`dispatch_for_api` for the runtime's own composite values, without publishing a wrapper:
    the handler runs when `api` refuses the call's values (see the module docstring)."""
    return _for_api(api, signatures, publish=False)


def _for_api(api: Callable, signatures: tuple, publish: bool) -> Callable:
    if not callable(api):
        raise TypeError(f"dispatch_for_api: `api` must be an rt function, got {api!r:.60}.")

    def decorator(handler: Callable) -> Callable:
        checks = list(signatures) or [_annotations_of(handler, api)]
        for types in checks:
            if not types:
                raise ValueError("dispatch_for_api: the handler needs a type annotation on the "
                                 "parameters it handles (or pass a signature dict).")
            _register(api, handler, _checker(api, types), handler, publish)
        return handler
    return decorator


def _apis(names: tuple) -> list:
    found = []
    for dotted in names:
        space, _, attr = dotted.rpartition(".")
        api = NAMESPACES.get(space, {}).get(attr)
        if api is None and not space:  # rt.math.erf, rt.math.xlogy: no rt.* alias
            api = NAMESPACES.get("math", {}).get(attr)
        if callable(api) and _original(api) not in found:
            found.append(_original(api))
    return found


def _first_params(api: Callable, count: int) -> list:
    params = [p for p in inspect.signature(api).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in params[:count]]


def _elementwise_target(api: Callable, handler: Callable, count: int) -> Callable:
    names = _first_params(api, count)

    def target(*args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(api).bind(*args, **kwargs)
        operands = [bound.arguments.pop(n) for n in names]
        rest = dict(bound.arguments)
        return handler(functools.partial(_call_with(api, names), **rest), *operands)
    return target


def _call_with(api: Callable, names: list) -> Callable:
    def call(*operands: Any, **rest: Any) -> Any:
        return api(**dict(zip(names, operands)), **rest)
    return call


def _register_elementwise(names: tuple, types: tuple, handler: Callable,
                          publish: bool = True) -> None:
    for api in _apis(names):
        params = _first_params(api, len(types))
        if len(params) < len(types):
            continue
        _register(api, handler, _checker(api, dict(zip(params, types))),
                  _elementwise_target(api, handler, len(types)), publish)


@export("experimental.dispatch_for_unary_elementwise_apis")
def dispatch_for_unary_elementwise_apis(x_type: Any) -> Callable:
    """Decorator: `handler(api_func, x)` runs for every unary elementwise API (`rt.abs`,
    `rt.math.exp`, `rt.ones_like`, ...) called on a value of `x_type`; `api_func` is the API
    with the call's other arguments bound."""
    def decorator(handler: Callable) -> Callable:
        _register_elementwise(_UNARY, (x_type,), handler)
        return handler
    return decorator


@export("experimental.dispatch_for_binary_elementwise_apis")
def dispatch_for_binary_elementwise_apis(x_type: Any, y_type: Any) -> Callable:
    """Decorator: `handler(api_func, x, y)` runs for every binary elementwise API (`rt.add`,
    `rt.math.maximum`, `rt.equal`, ...) called on values of `x_type` and `y_type`."""
    def decorator(handler: Callable) -> Callable:
        _register_elementwise(_BINARY, (x_type, y_type), handler)
        return handler
    return decorator


@export("experimental.unregister_dispatch_for")
def unregister_dispatch_for(dispatch_target: Callable) -> None:
    """Removes a handler registered by the `dispatch_for_*` decorators."""
    entries = _REGISTERED.pop(dispatch_target, None)
    if entries is None:
        raise ValueError(f"unregister_dispatch_for: {dispatch_target!r:.80} is not a registered "
                         "dispatch target.")
    for api, target in entries:
        _HANDLERS[api][:] = [(h, a) for h, a in _HANDLERS[api] if h is not target]
        _PUBLISHED.discard(target)
        if not any(h in _PUBLISHED for h, _ in _HANDLERS[api]):
            _uninstall(api)  # the runtime's own handlers need no wrapper


def _uninstall(api: Callable) -> None:
    """Publishes `api` itself again in place of its wrapper (no handler is left)."""
    wrapper = _WRAPPERS.pop(api, None)
    if wrapper is None:
        return
    _ORIGINALS.pop(wrapper, None)
    _replace_everywhere(wrapper, api)
    for space in NAMESPACES.values():
        for name, value in list(space.items()):
            if value is wrapper:
                space[name] = api

