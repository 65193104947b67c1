"""The decorators `rt.function`, `rt.defun`, `rt.defun_with_attributes`, `rt.register`, and
the switch that runs compiled functions as plain Python."""

from __future__ import annotations

import warnings

from .. import context
from .concrete import ConcreteFunction
from .polymorphic import Function, validate_attributes


def function(func=None, *, input_signature=None, autograph=True, experimental_autograph_options=None,
             reduce_retracing=False, jit_compile=None, name=None, experimental_relax_shapes=None,
             **_ignored):
    """Compiles `func` into traced graphs; usable as `@rt.function` or `@rt.function(...)`."""
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(fn):
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)
    return decorate if func is None else decorate(func)


def defun(func=None, input_signature=None, autograph=True, experimental_autograph_options=None,
          reduce_retracing=False, experimental_relax_shapes=None):
    """The seed's name for `rt.function`."""
    return function(func, input_signature=input_signature, autograph=autograph,
                    experimental_autograph_options=experimental_autograph_options,
                    reduce_retracing=reduce_retracing,
                    experimental_relax_shapes=experimental_relax_shapes)


def defun_with_attributes(func=None, input_signature=None, attributes=None, autograph=True,
                          experimental_autograph_options=None, jit_compile=None,
                          reduce_retracing=False, experimental_relax_shapes=None):
    """`defun` with function attributes: `func_name` (str), `noinline` (bool), `implements` (str)."""
    attributes = validate_attributes(attributes)
    if experimental_relax_shapes:
        reduce_retracing = True

    def decorate(fn):
        return Function(fn, name=attributes.get("func_name"), input_signature=input_signature,
                        autograph=autograph, experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                        attributes=attributes)
    return decorate if func is None else decorate(func)


def register(func, *args, **kwargs) -> ConcreteFunction:
    """Traces `func` (a compiled Function) for these arguments without running it."""
    if not isinstance(func, Function):
        raise ValueError(f"register() needs a function made by rt.function or rt.defun, got "
                         f"{func!r}.")
    return func.get_concrete_function(*args, **kwargs)


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, compiled functions run their Python code on every call."""
    context.run_functions_eagerly(run_eagerly)


def functions_run_eagerly() -> bool:
    """True when compiled functions currently run their Python code eagerly."""
    return context.functions_run_eagerly()


def experimental_run_functions_eagerly(run_eagerly: bool) -> None:
    """Deprecated name of run_functions_eagerly (warns with DeprecationWarning)."""
    warnings.warn("experimental_run_functions_eagerly is deprecated; use run_functions_eagerly.",
                  DeprecationWarning, stacklevel=2)
    run_functions_eagerly(run_eagerly)


def experimental_functions_run_eagerly() -> bool:
    """Deprecated name of functions_run_eagerly (warns with DeprecationWarning)."""
    warnings.warn("experimental_functions_run_eagerly is deprecated; use functions_run_eagerly.",
                  DeprecationWarning, stacklevel=2)
    return functions_run_eagerly()
