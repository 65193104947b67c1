"""The decorators `rt.function`, `rt.defun`, `rt.defun_with_attributes`, `rt.register`, and
the switch that runs compiled functions as plain Python."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Mapping, Optional, ParamSpec, Sequence, TypeVar, Union, overload

from .. import context
from ..arguments import strict_keywords
from ..shapes import TensorSpec
from .concrete import ConcreteFunction
from .polymorphic import Function, validate_attributes

P = ParamSpec("P")
R = TypeVar("R")

# The overloads tell type checkers that the decorated function keeps its parameters and
# result: `@rt.function def f(x: rt.Tensor) -> rt.Tensor` makes `f` a `Function[[Tensor], Tensor]`,
# whose calls are checked as calls of `f` itself.


@overload
def function(func: Callable[P, R], *,
             input_signature: Optional[Sequence[TensorSpec]] = None, autograph: bool = True,
             experimental_autograph_options: Any = None, reduce_retracing: bool = False,
             jit_compile: Union[bool, str, None] = None, name: Optional[str] = None,
             experimental_relax_shapes: Optional[bool] = None) -> Function[P, R]: ...


@overload
def function(func: None = None, *,
             input_signature: Optional[Sequence[TensorSpec]] = None, autograph: bool = True,
             experimental_autograph_options: Any = None, reduce_retracing: bool = False,
             jit_compile: Union[bool, str, None] = None, name: Optional[str] = None,
             experimental_relax_shapes: Optional[bool] = None
             ) -> Callable[[Callable[P, R]], Function[P, R]]: ...


@strict_keywords("rt.function")
def function(func: Optional[Callable[P, R]] = None, *,
             input_signature: Optional[Sequence[TensorSpec]] = None, autograph: bool = True,
             experimental_autograph_options: Any = None, reduce_retracing: bool = False,
             jit_compile: Union[bool, str, None] = None, name: Optional[str] = None,
             experimental_relax_shapes: Optional[bool] = None
             ) -> Union[Function[P, R], Callable[[Callable[P, R]], Function[P, R]]]:
    """Compiles `func` into traced graphs; usable as `@rt.function` or `@rt.function(...)`.

    `jit_compile` picks the tier that runs the graphs: None or False the generated NumPy
    code, True or "numba" Numba kernels (`pip install 'autograph-rt[jit]'`); any other value
    is a ValueError naming the choices. An unknown keyword argument raises `TypeError`
    naming the closest accepted one; `experimental_relax_shapes` is TensorFlow's older name
    of `reduce_retracing`."""
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(fn: Callable[P, R]) -> Function[P, R]:
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)
    return decorate if func is None else decorate(func)


@overload
def defun(func: Callable[P, R], input_signature: Optional[Sequence[TensorSpec]] = None,
          autograph: bool = True, experimental_autograph_options: Any = None,
          reduce_retracing: bool = False,
          experimental_relax_shapes: Optional[bool] = None) -> Function[P, R]: ...


@overload
def defun(func: None = None, input_signature: Optional[Sequence[TensorSpec]] = None,
          autograph: bool = True, experimental_autograph_options: Any = None,
          reduce_retracing: bool = False, experimental_relax_shapes: Optional[bool] = None
          ) -> Callable[[Callable[P, R]], Function[P, R]]: ...


@strict_keywords("rt.defun")
def defun(func: Optional[Callable[P, R]] = None,
          input_signature: Optional[Sequence[TensorSpec]] = None,
          autograph: bool = True, experimental_autograph_options: Any = None,
          reduce_retracing: bool = False, experimental_relax_shapes: Optional[bool] = None
          ) -> Union[Function[P, R], Callable[[Callable[P, R]], Function[P, R]]]:
    """The seed's name for `rt.function`."""
    return function(func, input_signature=input_signature, autograph=autograph,
                    experimental_autograph_options=experimental_autograph_options,
                    reduce_retracing=reduce_retracing,
                    experimental_relax_shapes=experimental_relax_shapes)


@overload
def defun_with_attributes(func: Callable[P, R],
                          input_signature: Optional[Sequence[TensorSpec]] = None,
                          attributes: Optional[Mapping[str, Any]] = None, autograph: bool = True,
                          experimental_autograph_options: Any = None,
                          jit_compile: Union[bool, str, None] = None, reduce_retracing: bool = False,
                          experimental_relax_shapes: Optional[bool] = None) -> Function[P, R]: ...


@overload
def defun_with_attributes(func: None = None,
                          input_signature: Optional[Sequence[TensorSpec]] = None,
                          attributes: Optional[Mapping[str, Any]] = None, autograph: bool = True,
                          experimental_autograph_options: Any = None,
                          jit_compile: Union[bool, str, None] = None, reduce_retracing: bool = False,
                          experimental_relax_shapes: Optional[bool] = None
                          ) -> Callable[[Callable[P, R]], Function[P, R]]: ...


@strict_keywords("rt.defun_with_attributes")
def defun_with_attributes(func: Optional[Callable[P, R]] = None,
                          input_signature: Optional[Sequence[TensorSpec]] = None,
                          attributes: Optional[Mapping[str, Any]] = None, autograph: bool = True,
                          experimental_autograph_options: Any = None,
                          jit_compile: Union[bool, str, None] = None, reduce_retracing: bool = False,
                          experimental_relax_shapes: Optional[bool] = None
                          ) -> Union[Function[P, R], Callable[[Callable[P, R]], Function[P, R]]]:
    """`defun` with function attributes: `func_name` (str), `noinline` (bool), `implements` (str)."""
    attributes = validate_attributes(attributes)
    if experimental_relax_shapes:
        reduce_retracing = True

    def decorate(fn: Callable[P, R]) -> Function[P, R]:
        return Function(fn, name=attributes.get("func_name"), input_signature=input_signature,
                        autograph=autograph, experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                        attributes=attributes)
    return decorate if func is None else decorate(func)


def register(func: Any, *args: Any, **kwargs: Any) -> ConcreteFunction:
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
