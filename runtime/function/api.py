"""The decorators `rt.function`, `rt.defun`, `rt.defun_with_attributes`, `rt.register`, and
the switch that runs compiled functions as plain Python."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, ParamSpec, Sequence, TypeVar, Union, overload

from .. import context
from ..arguments import strict_keywords
from ..debug_modes import warn_deprecated
from ..exports import export
from ..shapes import TensorSpec
from . import logs
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
             experimental_relax_shapes: Optional[bool] = None,
             experimental_compile: Union[bool, str, None] = None,
             experimental_wait_for_compile: Optional[bool] = None) -> Function[P, R]: ...


@overload
def function(func: None = None, *,
             input_signature: Optional[Sequence[TensorSpec]] = None, autograph: bool = True,
             experimental_autograph_options: Any = None, reduce_retracing: bool = False,
             jit_compile: Union[bool, str, None] = None, name: Optional[str] = None,
             experimental_relax_shapes: Optional[bool] = None,
             experimental_compile: Union[bool, str, None] = None,
             experimental_wait_for_compile: Optional[bool] = None
             ) -> Callable[[Callable[P, R]], Function[P, R]]: ...


@strict_keywords("rt.function")
def function(func: Optional[Callable[P, R]] = None, *,
             input_signature: Optional[Sequence[TensorSpec]] = None, autograph: bool = True,
             experimental_autograph_options: Any = None, reduce_retracing: bool = False,
             jit_compile: Union[bool, str, None] = None, name: Optional[str] = None,
             experimental_relax_shapes: Optional[bool] = None,
             experimental_compile: Union[bool, str, None] = None,
             experimental_wait_for_compile: Optional[bool] = None
             ) -> Union[Function[P, R], Callable[[Callable[P, R]], Function[P, R]]]:
    """Compiles `func` into traced graphs; usable as `@rt.function` or `@rt.function(...)`.

    The first call with a new input signature (the shapes and dtypes of tensor arguments, the
    values of Python arguments) runs `func` once to trace it into a graph, after autograph has
    turned its Python `if`/`while`/`for` on tensors into staged control flow; the graph is
    compiled and cached, and later calls with a matching signature run the compiled graph
    without running the Python code again. Works on plain functions and on methods (each
    instance gets its own traces). `rt.run_functions_eagerly(True)` makes every compiled
    function run its Python code instead, for debugging.

    Args:
        func: The Python function to compile. When None, `rt.function(...)` returns a
            decorator that takes it.
        input_signature: A sequence of `rt.TensorSpec`, one per positional argument: the only
            signature the function accepts, traced once. A `None` dimension accepts any size.
            A call that does not fit raises `TypeError` or `ValueError` naming the argument.
            When None (the default), each new signature of the arguments gets its own trace.
        autograph: When True (the default), `func` and the functions it calls are converted
            by autograph before tracing, so Python control flow on tensors is staged. When
            False, `func` is traced as written: a Python `if` on a tensor is an error.
        jit_compile: The tier that runs the graphs. None or False (the default): generated
            NumPy code. True or "numba": Numba kernels (`pip install 'autograph-rt[jit]'`).
            "xla": XLA through JAX (`pip install 'autograph-rt[xla]'`). Any other value is a
            `ValueError` naming the choices.
        reduce_retracing: When True, calls whose tensor shapes differ only in their sizes share
            a trace with `None` dimensions after the second shape is seen, instead of tracing
            once per shape.
        experimental_autograph_options: Optional conversions for autograph: None, an
            `ag.experimental.Feature`, a tuple of them, or an `ag.ConversionOptions`.
        name: The name of the function and of its concrete functions' graphs; the Python
            function's name when None.
        experimental_relax_shapes: TensorFlow's older name of `reduce_retracing`: a true value
            turns it on.
        experimental_compile: TensorFlow's older name of `jit_compile` (deprecated: warns
            with `DeprecationWarning`); giving both is a `ValueError`.
        experimental_wait_for_compile: For `jit_compile=True`: when True, the first call
            compiles the Numba kernel and every call runs it; when False, calls run on the
            NumPy tier while the kernel compiles in a background process, then switch to it
            (tiered execution, docs/jit.md). None (the default) follows
            `rt.config.experimental.set_jit_wait_for_compile` (False unless set). The other
            tiers compile before the first call returns either way.

    Returns:
        An `rt.Function` wrapping `func` (callable with the same arguments, with
        `get_concrete_function`, `experimental_get_tracing_count` and
        `pretty_printed_concrete_signatures`), or, when `func` is None, a decorator that
        makes one.

    Raises:
        TypeError: An unknown keyword argument (naming the closest accepted one), or a `func`
            that is not callable.
        ValueError: A `jit_compile` value that is not a tier.
        TypeError: An `experimental_wait_for_compile` that is not a bool or None.

    Example:
        >>> import runtime as rt
        >>> @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
        ... def total(x):
        ...     if rt.reduce_sum(x) > 0:
        ...         return rt.reduce_sum(x)
        ...     return rt.constant(0.0)
        >>> float(total(rt.constant([1.0, 2.0])))
        3.0
        >>> total.experimental_get_tracing_count()
        1
    """
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)
    if experimental_compile is not None:
        if jit_compile is not None:
            raise ValueError("rt.function: give jit_compile or its deprecated name "
                             "experimental_compile, not both.")
        warn_deprecated("rt.function: experimental_compile is deprecated; use jit_compile.",
                        logs.user_stacklevel())
        jit_compile = experimental_compile

    def decorate(fn: Callable[P, R]) -> Function[P, R]:
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                        experimental_wait_for_compile=experimental_wait_for_compile)
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
    """`rt.function` under its older name, with `input_signature` also accepted by position.

    The parameters mean what they mean for `rt.function`; the graphs run on the NumPy tier.

    Args:
        func: The Python function to compile; when None, returns a decorator that takes it.
        input_signature: A sequence of `rt.TensorSpec`, one per positional argument, or None.
        autograph: Whether autograph converts `func` before tracing (default True).
        experimental_autograph_options: Optional autograph conversions, as for `rt.function`.
        reduce_retracing: Whether calls that differ only in sizes share a trace.
        experimental_relax_shapes: Older name of `reduce_retracing`.

    Returns:
        An `rt.Function`, or a decorator that makes one when `func` is None.

    Example:
        >>> import runtime as rt
        >>> @rt.defun
        ... def double(x):
        ...     return x * 2.0
        >>> double(rt.constant(1.5)).numpy()
        np.float32(3.0)
    """
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
    """`rt.defun` with function attributes recorded on the concrete functions.

    Args:
        func: The Python function to compile; when None, returns a decorator that takes it.
        input_signature: A sequence of `rt.TensorSpec`, one per positional argument, or None.
        attributes: A mapping of attribute names to values, kept in each concrete function's
            `attributes`: `func_name` (str, also the function's name), `noinline` (bool),
            `implements` (str). Any other name, or a value that is not a str, int, float or
            bool, is a `ValueError`.
        autograph: Whether autograph converts `func` before tracing (default True).
        experimental_autograph_options: Optional autograph conversions, as for `rt.function`.
        jit_compile: The tier that runs the graphs, as for `rt.function`.
        reduce_retracing: Whether calls that differ only in sizes share a trace.
        experimental_relax_shapes: Older name of `reduce_retracing`.

    Returns:
        An `rt.Function`, or a decorator that makes one when `func` is None.

    Example:
        >>> import runtime as rt
        >>> @rt.defun_with_attributes(attributes={"func_name": "scaled"})
        ... def scale(x):
        ...     return x * 3.0
        >>> scale.get_concrete_function(rt.constant(1.0)).attributes["func_name"]
        'scaled'
    """
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
    warn_deprecated("experimental_run_functions_eagerly is deprecated; use "
                    "run_functions_eagerly.", logs.user_stacklevel())
    run_functions_eagerly(run_eagerly)


def experimental_functions_run_eagerly() -> bool:
    """Deprecated name of functions_run_eagerly (warns with DeprecationWarning)."""
    warn_deprecated("experimental_functions_run_eagerly is deprecated; use "
                    "functions_run_eagerly.", logs.user_stacklevel())
    return functions_run_eagerly()


# where TensorFlow 2 exports the seed's switches too (`tf.config.experimental_run_functions_eagerly`)
export("config.experimental_run_functions_eagerly")(experimental_run_functions_eagerly)
export("config.experimental_functions_run_eagerly")(experimental_functions_run_eagerly)
