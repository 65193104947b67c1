"""Strict keyword arguments: an unknown keyword is a `TypeError` with a suggestion.

    check_keywords("Adam", {"learning_rte": 0.5}, ["learning_rate", "beta_1"])
    # TypeError: Adam() got an unexpected keyword argument 'learning_rte'; did you mean
    #            'learning_rate'?

A misspelt option is never silently ignored. `strict_keywords` applies the same check to a
function or method from its own signature (Python 3.10 and 3.11 do not suggest names).
This module imports only the standard library, so any layer of the runtime may use it.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Collection, Iterable, Mapping, NoReturn, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def raise_unknown_keywords(callable_name: str, unknown: Iterable[str],
                           allowed: Iterable[str]) -> NoReturn:
    """Raises `TypeError` naming `callable_name` and the `unknown` keywords.

    Each unknown keyword gets a "did you mean 'X'?" when an `allowed` name is close to it
    (`difflib.get_close_matches`); otherwise the message lists the accepted names.
    """
    unknown = sorted(set(unknown))
    choices = sorted(set(allowed))
    if not unknown:
        raise ValueError("raise_unknown_keywords needs at least one unknown keyword.")
    import difflib  # loaded with the first misspelt keyword: `import runtime` skips it
    suggestions = {key: difflib.get_close_matches(key, choices, n=1) for key in unknown}
    if len(unknown) == 1:
        (key, close), = suggestions.items()
        message = f"{callable_name}() got an unexpected keyword argument {key!r}"
        message += f"; did you mean {close[0]!r}?" if close else "."
    else:
        named = [f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)
                 for key, close in suggestions.items()]
        message = (f"{callable_name}() got unexpected keyword arguments "
                   f"{', '.join(named[:-1])} and {named[-1]}.")
    if not all(suggestions.values()):
        message += f" Accepted keyword arguments: {', '.join(choices) or '(none)'}."
    raise TypeError(message)


def check_keywords(callable_name: str, given: Mapping[str, Any] | Collection[str],
                   allowed: Collection[str]) -> None:
    """Raises the `TypeError` of `raise_unknown_keywords` if a name in `given` is not allowed."""
    unknown = [key for key in given if key not in allowed]
    if unknown:
        raise_unknown_keywords(callable_name, unknown, allowed)


def keyword_names(fn: Callable) -> frozenset[str]:
    """The names `fn` accepts as keyword arguments (not positional-only ones or `**kwargs`)."""
    params = inspect.signature(fn).parameters.values()
    return frozenset(p.name for p in params
                     if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                   inspect.Parameter.KEYWORD_ONLY))


def init_keyword_names(cls: type) -> frozenset[str]:
    """The keyword names declared by the `__init__` methods along `cls`'s MRO.

    A base class that receives its subclasses' `**kwargs` offers these as suggestions."""
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            names |= keyword_names(init)
        except (TypeError, ValueError):  # a builtin or otherwise unintrospectable __init__
            continue
    names.discard("self")
    return frozenset(names)


def strict_keywords(name: str | None = None) -> Callable[[F], F]:
    """Decorates a function without `**kwargs` so that an unknown keyword raises the
    suggesting `TypeError` before the call.

    `name` is the public name used in the message (default: the function's `__name__`; for
    a method whose first parameter is `self`, `TypeOfSelf.method`, and for `__init__` the
    name of the class being made).
    """
    def decorate(fn: F) -> F:
        params = inspect.signature(fn).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            raise ValueError(f"strict_keywords: {fn.__qualname__} takes **kwargs; check them "
                             "with check_keywords instead.")
        method = next(iter(params), None) == "self"
        allowed = keyword_names(fn) - {"self"} if method else keyword_names(fn)

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if kwargs and not allowed.issuperset(kwargs):
                label = name
                if label is None and method and args:
                    owner = type(args[0]).__name__
                    label = owner if fn.__name__ == "__init__" else f"{owner}.{fn.__name__}"
                elif label is None:
                    label = fn.__name__
                raise_unknown_keywords(label, [k for k in kwargs if k not in allowed], allowed)
            return fn(*args, **kwargs)
        checked.__keyword_hints__ = True  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]
    return decorate


# -- suggestions for every public callable --------------------------------------------------
# Python 3.13 suggests a close keyword by itself; earlier versions only name the unknown one.
# `with_keyword_hints` adds the suggestion without changing what a call accepts or costs
# (one try block): only a TypeError raised while binding the call's arguments is reworded.

def _accepted_keywords(fn: Callable) -> frozenset[str] | None:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None  # the function checks its **kwargs itself (check_keywords)
    return frozenset(p.name for p in params
                     if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                   inspect.Parameter.KEYWORD_ONLY)) - {"self", "cls"}


def _reraise_with_hint(fn: Callable, label: str, kwargs: Mapping[str, Any],
                       error: TypeError) -> None:
    """Raises the suggesting TypeError when `kwargs` name a keyword `fn` does not accept
    (then `error` came from binding the call: `fn` takes no **kwargs, so its body never ran)."""
    accepted = _accepted_keywords(fn)
    if accepted is None:
        return
    unknown = [key for key in kwargs if key not in accepted]
    if unknown:
        try:
            raise_unknown_keywords(label, unknown, accepted)
        except TypeError as hinted:
            raise hinted.with_traceback(None) from None


def _may_misspell(fn: Callable) -> bool:
    """Whether a call of `fn` can name a keyword it does not take, read from its code object
    (cheap at import): it takes named parameters besides `self` and no `**kwargs`."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None or code.co_flags & inspect.CO_VARKEYWORDS:
        return False
    named = code.co_varnames[code.co_posonlyargcount:code.co_argcount + code.co_kwonlyargcount]
    return any(name not in ("self", "cls") for name in named)


def _label(name: str, method: bool, fn: Callable, args: tuple) -> str:
    """The name a message gives: for a method, of the class of the object it was called on."""
    if not method or not args or args[0] is None:
        return name
    owner = type(args[0]).__name__
    return owner if fn.__name__ == "__init__" else f"{owner}.{fn.__name__}"


def with_keyword_hints(fn: F, label: str | None = None) -> F:
    """`fn` wrapped so that a misspelt keyword raises `TypeError` with "did you mean"."""
    if (getattr(fn, "__keyword_hints__", False) or not inspect.isfunction(fn)
            or not _may_misspell(fn)):
        return fn
    name = label or fn.__qualname__.replace(".__init__", "")
    method = fn.__code__.co_varnames[:1] == ("self",) and fn.__code__.co_argcount > 0

    @functools.wraps(fn)
    def hinted(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError as error:
            handler = COMPOSITE_HANDLER[0](hinted, args, kwargs) if COMPOSITE_HANDLER else None
            if handler is None:
                if kwargs:
                    _reraise_with_hint(fn, _label(name, method, fn, args), kwargs, error)
                raise
        return handler(*args, **kwargs)
    hinted.__keyword_hints__ = True  # type: ignore[attr-defined]
    return hinted  # type: ignore[return-value]


# [find(api, args, kwargs) -> handler or None], set by runtime.ops.dispatch: when a published
# API refuses its arguments (TypeError) and one of them is a composite value (a RaggedTensor,
# SparseTensor, extension type), the handler registered for that API and those values runs
# instead. Looked up only after the refusal, so a call on tensors pays nothing for it, and a
# name bound before any handler was loaded (`from runtime import reduce_sum`) dispatches too.
COMPOSITE_HANDLER: list = []


def add_keyword_hints_to_class(cls: type) -> type:
    """Gives `cls`'s own `__init__` (or `__new__`) and public methods keyword hints, in place (the class and
    its subclasses keep their identity; a method shared with a subclass stays one object)."""
    if cls.__dict__.get("__keyword_hinted__"):
        return cls
    for attr, value in list(vars(cls).items()):
        if attr.startswith("_") and attr not in ("__init__", "__new__"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            label = cls.__name__ if attr == "__new__" else f"{cls.__name__}.{attr}"
            hinted = with_keyword_hints(value.__func__, label)
            if hinted is not value.__func__:
                setattr(cls, attr, type(value)(hinted))
        elif inspect.isfunction(value):
            label = cls.__name__ if attr == "__init__" else f"{cls.__name__}.{attr}"
            hinted = with_keyword_hints(value, label)
            if hinted is not value:
                setattr(cls, attr, hinted)
    cls.__keyword_hinted__ = True  # type: ignore[attr-defined]
    return cls


def add_keyword_hints_to_classes(namespace: Mapping[str, Any], package: str) -> None:
    """Adds hints to the public classes in `namespace` (a module's globals) that are defined
    in `package` (the runtime's own classes, never a user's or a library's)."""
    for attr, value in list(namespace.items()):
        if (not attr.startswith("_") and isinstance(value, type)
                and getattr(value, "__module__", "").startswith(package)):
            add_keyword_hints_to_class(value)
